// Package harness is the simulated Harness and the simulator's daemon
// process: the one used by the full-stack world (sim/world) and by the
// daemon's own sim suite.
//
// # Devices and processes
//
// A Device is one Runtime device. It holds what outlives its daemon
// process: the daemon.Config, the Harness Config, the reconnect Backoff,
// an Observer and a Recorder, the Harness faults armed on it, a
// version-mismatch window and the long turns already played. Its Factory
// starts a process, a Daemon node: the daemon.Machine with a shell that
// dials Core (reconnecting with capped exponential backoff and seeded
// jitter, waiting out the version window after an "incompatible_version"
// refusal), decodes every frame with wire.Decode (a failure becomes
// daemon.FrameRejected with the type and ID the envelope still offers),
// encodes every Send with wire.Encode (or Device.Encode), prefixes
// machine timers, reports a CloseConn it performed back to the
// machine as ConnClosed, and
// runs the Harness in the same process. Commands injected as timers drive
// faults and the end of a run: CmdHeal (release hung calls), CmdShutdown,
// CmdInvalidHeartbeat (one malformed heartbeat), CmdReplace (a second
// connection replaces the first), CmdRepublish (resend the newest live
// admission's preparation_status on its own, current connection; an
// admission of a lost connection is retired and never replayed) and CmdWallClock (tell the machine the
// device's wall clock moved). Device.Crash kills the process with its
// Harness and lets the kernel restart it.
//
// The Observer sees every machine event, every effect (before the shell
// carries it out), the machine after each step, and shell errors (a frame
// that does not encode). It only observes.
//
// # The Harness
//
// Harness answers the machine's native calls (Prepare, StartTurn,
// DurableWrite, Cancel, AwaitSettlement, CloseExecutor) after seeded
// latencies (stream "harness:<device>") through its host's timers.
// Preparations are sometimes seconds long; a turn streams deltas and
// cumulative usage and ends with done, sometimes after an engine error
// (Config.SlowPrepare, Config.EngineError; DrawConfig draws both); one
// turn in five, up to Config.LongTurnsMax per device, runs 16–48 s. A
// turn cannot end naturally while a durable write into it is outstanding;
// a written input is consumed shortly after the write; a cancel that
// reaches a live turn wins over its natural end and settles it cancelled;
// settlement waits are answered once the turn has settled; a close kills
// a live turn on the executor.
//
// A turn of an executor prepared with observe_subagent_identities (a
// multi-agent Session) spawns subagents half the time (subagents.go,
// stream "harness-subagents:<device>"): one or two children, each
// reported fresh and in order — identity, a running lifecycle, one or two
// subagent turns with up to two items each (message or
// subagent_coordination), sometimes a closed lifecycle — interleaved
// across children and emitted along the progress steps, never after the
// native done. One turn in eight of any other executor reports a
// subagent identity anyway (planUnasked, stream
// "harness-subagents-unasked:<device>"), which the daemon must drop: it
// forwards subagent observations only for a Turn that asked. A Recorder
// that also implements SubagentRecorder hears each report as it is
// emitted (NativeSubagentUnasked for the unasked ones).
//
// Latencies around the documents' timers are drawn per seed too
// (Config.SlowStart, SlowWrite, SlowCancel, GlacialPrepare; latency.go):
// starts of 3–20 s (cancels meet not_ready past Core's 15 s window),
// writes of 8–12 s (around the 10 s write budget), cancels settling 8–18 s
// later (around the 10 s settlement wait) and one preparation of
// 290–320 s (around the 5-minute admission expiry), so that each timer is
// sometimes the one that decides. SlowWorkspace (workspace_latency.go)
// does the same for Core's workspace waits: native reads of 14–20 s,
// installs of 190–200 s and exports of 176–188 s. A Recorder that also implements
// TimingRecorder hears when native calls arrive and return (writes called
// and answered, cancels failed, closes called, any answer, the process
// dying), for the timing oracles.
//
// Ground truth is recorded at the instant each native fact happens, in
// the Harness's Truth and in the device's Recorder (the sim/check ledger's
// shape): executor created and closed, turn created and settled (with its
// outcome), input written and applied. The Harness dies with its process:
// every live turn is then settled failed and every executor closed, both
// marked as ended by the crash (TurnTruth.EndedByCrash,
// ExecutorTruth.ClosedByCrash) and recorded in the Recorder. Truth also
// lists contract breaches the Harness saw from the daemon (Violations: a
// start on a retired or unknown executor or under a live turn, a close
// under an unsettled turn, an input written twice, a run started natively
// twice, a call for an unknown turn or executor) and, separately, breaches
// of the Harness's own contract that only its faults cause (Breaches: a
// native event emitted after the turn's settlement, counted per turn in
// TurnTruth.EventsAfterSettlement). A successful settlement means the
// output can no longer be written; the daemon drops such events.
//
// # Faults
//
// Every Harness behaviour under fault is its own kernel fault kind
// (Kinds), registered with Kernel.RegisterFault by Register: the swarm
// selects the kinds per seed and schedules faults against devices, so they
// are in the schedule, on the fault timeline and shrinkable. A fault arms
// its device for its next matching call (at most TokensMax per kind):
//
//   - harness_prepare_failure: the preparation fails; in half of the
//     cases it leaves no executor, in the other half it leaves its
//     executor behind (PrepareResult.Retained), open until the daemon
//     closes it.
//   - harness_start_failure_nil: the start fails with no turn.
//   - harness_start_failure_turn: a turn and an error (settles failed).
//   - harness_write_failure: the write is definitely not written.
//   - harness_write_uncertain: the outcome is unknown (applied or not).
//   - harness_write_over_budget: the write answers after the daemon's
//     budget: consumed at the end, or consumed at once while the call
//     overruns 35–60 s (the turn stays open behind it).
//   - harness_late_accepted: written at once, consumed 3–33 s later.
//   - harness_cancel_failure: the cancel request fails; the turn runs on.
//   - harness_cancel_late: the cancelled turn settles 5–20 s later.
//   - harness_cancel_never: the cancelled turn settles only at heal.
//   - harness_late_events: a native event follows the cancel's settlement.
//   - harness_settle_error: the settlement answer is unconfirmed.
//   - harness_not_reusable: the settlement says Reusable=false.
//   - harness_close_failure: the close fails (the retry may succeed).
//   - harness_hang: the next prepare, start, write or close answers only
//     at heal (a hung write may already be consumed).
//   - harness_settle_before_done: the next turn that ends (cancelled or
//     naturally) while a settlement wait is outstanding settles and
//     answers the wait without ever emitting its native done
//     (TurnTruth.DoneSuppressed): the daemon's done must come from the
//     settlement's outcome.
//   - harness_workspace_read_interrupted: the next workspace read is
//     interrupted: its outcome is unknown (read_unconfirmed).
//   - harness_workspace_close_failure: the next read-only profile close
//     fails (the daemon's retry may succeed).
//   - harness_workspace_write_unconfirmed: the next workspace install
//     answers unknown, installed or not (drawn).
//   - harness_workspace_stall: the next native read, install or export
//     answers 10–30 s or 185–250 s later (past Core's 17 s read wait, or
//     its 180 s export and 195 s write waits).
//   - harness_workspace_export_chunk_lost: the daemon's next export chunk
//     is lost in flight; its connection breaks.
//   - harness_workspace_digest_mismatch: one byte of the next write chunk
//     the daemon receives is changed, so the body no longer matches its
//     declared SHA-256.
//   - harness_workspace_transfer_conn_loss: the daemon's next chunk
//     receipt of a write is lost in flight; the connection breaks
//     mid-transfer.
//   - harness_prepare_receipt_lost: the daemon's next runtime_prepare
//     chunk receipt is lost in flight; the connection breaks.
//   - harness_prepare_conn_loss: the connection breaks as the next
//     runtime_prepare chunk reaches the daemon, before it is read.
//   - harness_setup_failure: the next setup command exits 70.
//   - harness_setup_hang: the next setup command answers only at heal.
//   - harness_quiesce_reply_lost: the daemon's next environment_quiesced
//     is lost in flight; the connection breaks.
//   - harness_stage_slow: the installer stages the next runtime_prepare
//     chunk, and every later chunk of its transfer, 100–130 s late (a
//     transfer of two chunks outlasts Core's 195 s exchange from begin,
//     and the daemon's expiry refuses it invalid_request).
//   - harness_install_unconfirmed: the installer cannot confirm the next
//     installation of a skill, plugin or file (nothing is installed).
//
// Workspaces (workspace.go): every Environment has one seeded file tree
// (WorkspaceFiles, present or not, and in a third of them a bulk file of
// 64–200 KiB so that exports span several chunks), shared by the world's
// devices; reads, listings, read-only profiles, installs and exports
// (workspace_export.go: a tar stream of the tree in name order) run
// against it after the usual latencies, and a WorkspaceRecorder receives
// the seed, every native read (with the profile it went through), every
// close and every install (with whether its digest matched) as it
// happens; a WorkspaceExportRecorder every archive with the tree it holds.
//
// One kind is not armed but acts at once:
//
//   - daemon_clock_jump: the device's wall clock jumps by an offset drawn
//     from the fault's pick in ±[1 s, 30 min] (ClockJumpOffset). The wall
//     clock is the host's: the running daemon is sent
//     daemon.WallClockStep (CmdWallClock), a restarted one is sent the
//     device's whole offset when it starts. Virtual time, the machine's
//     now, never jumps, as a monotonic clock does not; only heartbeat ts
//     and expires_at move.
//
// At heal (Register's hook) every device drops its armed faults, ends its
// version window and releases its hung calls. A wall clock that jumped
// stays jumped: heal does not undo it.
package harness
