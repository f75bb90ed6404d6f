// Package world is the full-stack simulated world: one Core, one to four
// Runtime daemons with their simulated Harnesses, a seeded API workload and
// swarm-selected faults, run by the sim kernel and judged by the sim/check
// ledger and linearizability checker.
//
//	o := world.Run(seed, world.Config{})       // one seed, checked
//	r := world.Replay(o.Result.Schedule, cfg)  // same fingerprint
//	s := world.Shrink(o, cfg)                  // smaller failing schedule
//
// Options(cfg) gives the kernel options (Setup, wire.Describe trace
// lines, a liveness phase of 1735 s plus 20 s per turn beyond the default
// ten, see LivenessTimeout) for callers that drive sim directly (the
// determinism auditor); Run adds the linearizability check on top.
//
// # Nodes
//
// "core" runs core.Machine. Its store (core/store.Memory behind a tap that
// reports every durable write to the ledger) lives outside the node: a
// Core crash loses the machine, and the restart rebuilds it with
// core.Restart from the store. The node's shell accepts connections (the
// dialing device is the peer node), refuses with "incompatible_version"
// an upgrade whose version wire.Compatible refuses, decodes every
// frame with wire.Decode (a decode failure becomes FrameRejected, with the
// type when the envelope was readable) and encodes every Send with
// wire.EncodeUnverified followed at once by the strict decode of the bytes
// (an encode or decode failure is a "wire_encode" violation; see Speed). API calls
// arrive as sim calls from the workload and are answered after 1–20 ms, so
// every read is an interval of virtual time.
//
// "d1".."d4" are devices of sim/harness (harness.Device): each process
// runs daemon.Machine with the shared shell and the simulated Harness
// inside it. The shell dials Core, reconnects after a loss or refusal with
// capped exponential backoff (200 ms doubling to 5 s, plus seeded jitter),
// waits out a version-mismatch window before redialling, decodes and
// encodes frames, and reports a CloseConn it performed back to the
// machine as ConnClosed; the world's observer and recorder (devices.go)
// feed the ledger. Device declarations vary per seed: devices drop
// optional capabilities (structured output, subagents, function tools,
// images, local environment, tool search, workspace preparation) with
// chance 1/6 each (the first device only in a quarter of the seeds), so
// Core must sometimes refuse a turn; a quarter of the devices also declare
// a second, fully capable kind ("other") that Core must never substitute,
// and on devices but the first the sessions' kind is then unavailable half
// the time. Limits vary too: a third of the
// devices get one or two active slots (preparation_capacity), a third a
// 2–7 s admission expiry.
// The seed's capability profile (its own "capability-profile" stream,
// capability_profiles.go) makes devices but the first declare the kind
// without tool_observations or native_session_recovery a third of the
// time each, and in a third of the seeds makes a device's kind go
// unavailable for 1–5 s right behind a `preparing` status it sends (up to
// three times), so Core's final check at `ready` meets a declaration that
// no longer admits the Session.
// The capability swarm (its own "capability-swarm" stream,
// capability_swarm.go) makes, in half of the seeds, devices but the first
// (and the first too in a quarter of those) drop each of mcp_http_tools,
// mcp_http_required, mcp_http_bearer_auth, message_items, function_tools,
// tool_search, workspace_output_export, web_search_control and
// text_verbosity a third of the time, each on its own. Its own
// "workload:mcp-empty" stream gives a quarter of the Agents without servers
// an explicit empty MCP server list.
// The engine catalog (its own "engine-profile" stream, engine_profile.go)
// is the simulator's open profile in most seeds, a drawn profile for the
// Sessions' kind in a quarter (operations, placements, MCP origins,
// bearer, controls, additional configuration and tool validation
// callbacks), and the built-in catalog in an eighth; in those, every other
// Session is a plain one every catalog qualifies, and a restarted Core may
// come up with a catalog without the kind or without its execution
// environments.
//
// The Harness (package sim/harness, one per device process, behaviour
// drawn once per seed with harness.DrawConfig) answers native calls after
// seeded latencies through node timers: preparations (sometimes seconds
// long), turns that stream deltas and cumulative usage and end with done
// (sometimes after an engine error; at most one 16–48 s turn per device),
// (its engine error cycles through every §6.3 code, unknown codes and
// statuses at and past both ends of 100..599, forwarded unclassified by
// the daemon's shell: engine_errors.go), durable writes consumed shortly after being written (a turn cannot end
// naturally while a write into it is outstanding), cancels that settle the
// turn as cancelled (a cancel that reaches a live turn wins over its
// natural end), settlement waits, closes. It records ground truth in the
// ledger at the instant each native fact happens: executor created and
// closed, turn created and settled, input applied. A daemon crash kills
// its Harness: every live executor is recorded closed and every live turn
// settled failed (ended by the crash in the Harness's truth).
//
// "workload" is the API client (stream "workload"). It creates one to
// four sessions with varied agent configuration (environment none,
// self_hosted or openai_hosted; json_schema output; multi-agent on or off;
// function tools, deferred tools with tool search; images in some inputs;
// text verbosity; for a third of those with an Environment, an
// Environment definition of files, a skill, a plugin and setup commands
// that Core prepares through runtime_prepare on each connection before
// their Turns run there, workload_definition.go), submits the run's turns
// over the first 20 s, steers up
// to three inputs per turn, cancels a quarter of the turns at a random
// moment and reads each turn until it is terminal. Calls to a crashed Core
// time out after 3 s.
//
// # Workload shapes
//
// Each seed draws a shape from its "shape" stream (Derived.Workload.Shape,
// in options.json): the default above in three eighths of the seeds, and
// in one seed in six, eight or twelve a shape that drives the machines to
// the documented limits and races the default never reaches:
//
//   - bursty_sessions: twice the turns, submitted in three 300 ms bursts.
//   - many_short_turns: eight times the turns on one device with the
//     documented capacity, short native turns (one or two steps), few
//     steers, and a native done without usage: more than 64 admissions on
//     one connection (admission_records_full) and usage taken from the
//     last snapshot (usage_from_snapshot).
//   - many_steers: a few turns; the first is flooded with 270 steers in
//     3 s (Core refuses those past 256: steer_input_limit), the others
//     steered for 45 s, also once terminal (steer_after_unknown when an
//     earlier input became unknown).
//   - capacity_pressure: one device, active_max 1–2, two idle executors
//     kept, an executor table two above active_max, six sessions and slow
//     closes: capacity refusals while closing executors still count
//     (capacity_full_of_executors) and evictions of idle executors
//     (idle_eviction_judged).
//   - kinds_flapping: each device's kind goes unavailable for 1–10 s once
//     or twice and comes back (harness.Device.SetKindAvailable, a
//     daemon.KindAvailability event declared by a heartbeat at once:
//     kind_availability_changed).
//   - interaction_heavy: every native turn asks (permissions, user
//     choices, function calls) and waits up to 20 s for its answers; three
//     native decisions in eight confirm 16–25 s late, past Core's 15 s
//     receipt wait, so Core records them unknown and the workload answers
//     again (decision_repeated_after_unknown), and three permission
//     decisions in eight meet the native withdrawal of their request while
//     at the daemon (decision_raced_permission_cancel). Its liveness
//     deadline grows by 70 s a turn.
//
// Beside its shape, a seed with faults and a single device draws the
// preparation flood in one seed in five ("preparation-flood" stream,
// workload_prep_flood.go): 70 more Sessions submit one Turn each in a
// burst at 4 s while the device's direction of the connection stalls for
// 4 s, so Core holds 64 preparations open on the connection
// (preparations_per_conn_full); every other Agent carries a harness_config
// (workload_agent_options.go). A third of the seeds with faults replay,
// behind each `written` steering receipt a device sends Core, the Run's
// latest accepting receipt for another input ("receipt-replay" stream,
// hostile_receipt_replay.go: earlier_receipt_replayed), and a third forge,
// behind half the done frames a device sends Core while Core awaits a
// cancel receipt of the Run, a cancel_failed receipt for that cancel
// ("cancel-failed-forgery" stream, hostile_cancel_failed.go:
// cancel_failed_after_done). Half the seeds with
// faults hold the cancel receipts of a Run's first prompt_cancel 13–28 s
// around Core's 15 s confirmation ("cancel-stall" stream, cancel_stall.go),
// and half hold Core's direction 20–45 s behind two in three of its first
// environment_quiesce and environment_resume of a suspension, around its
// 30 s reply wait ("suspension-stall" stream, suspension_stall.go; Core's
// direction, because the daemon's reply travels under its 5 s send budget).
// A run is not over while Core awaits a suspension reply. Half the seeds
// with faults add two streamed exports to each Session with an
// Environment, whose client goes away after the first chunk of half of
// them, and stall Core's direction 0.5–4 s as Core sends any export
// cancel ("export-cancel" stream, export_cancel_stall.go): the cancel
// leaves within its 2 s best-effort budget or is dropped
// (workspace_export_cancel_held_in_time, workspace_export_cancel_dropped).
// Half the Agents enable multi_agent, and the simulated Harness has half their
// Turns spawn subagents it reports (sim/harness/subagents.go:
// subagent_recorded); half the seeds with faults forge towards Core,
// behind half the subagent_identity frames a device sends, a stale
// observation of that Run (a lifecycle of a never-identified native_id or
// an item of an unreported subagent turn), and behind half the done frames
// of Runs that reported a subagent, a new identity for the Run
// ("subagent-stale" stream, hostile_subagent.go: subagent_stale_forged,
// subagent_after_done_forged).
//
// The daemon shell honours each Send's budget (sim/harness): a receipt
// held by a stall, or slower than its budget, closes the connection when
// the budget runs out (receipt_budget_closed). Core's frames cross with
// their budget (sim.Send.Budget): a best-effort one that cannot leave in
// time is dropped by the network, the connection left open. In a third of the seeds
// with faults, the devices' processes deliver admission expiry timers up
// to 1, 10 or 30 s late ("expiry-lag" stream, expiry_lag.go), so a start
// that reaches a daemon past the deadline meets the machine's own clock
// check (start_past_deadline_refused).
//
// # Faults
//
// Outcome.Derived describes what the seed drew beside its schedule
// (devices with their declared kinds, unsupported capabilities and limits,
// the Harness's settings, the workload's sessions and turn arrivals).
//
// Every kind is swarm-selected per seed by the kernel (sim.Options.Swarm):
// the kernel's conn_loss, stall, slow and dial_refuse, and the world's:
//
//   - core_crash: Core crashes (store kept) and restarts after For. In
//     half the seeds Core also crashes right after a prompt_cancel, before
//     its receipt can be back, and the workload cancels a running Turn so
//     there is one (cancel_crash.go).
//   - core_zombie: a new Core takes over from the durable store (the
//     store's lease moves to the next epoch) while the old one keeps
//     running with its connections for For: it steps, fires its timers
//     and sends, and every commit it tries is refused as fenced, which
//     stops it with that batch's effects withheld, as the production
//     shell stops on pgstore.ErrFenced (failover.go).
//   - daemon_crash: a daemon and its Harness crash and restart after For.
//   - device_replace: the daemon dials a second connection; the newer one
//     replaces the older at both ends.
//   - invalid_heartbeat: the daemon sends one malformed heartbeat.
//   - version_mismatch: for For, the device's daemon is an older build:
//     its upgrades declare harness.OlderVersion, which Core's shell refuses
//     with "incompatible_version" by the gateway's rule; the daemon is made
//     to redial at once (its current connection is replaced and refused)
//     and treats the refusal as permanent until the window ends.
//   - status_republish: the daemon resends the current preparation_status
//     of the newest live admission of its current connection, as it does
//     for a repeated request; Core must ignore the duplicate revision. An
//     admission retired with a lost connection is never replayed.
//   - harness_*: the Harness kinds of sim/harness (registered by
//     harness.Register), each arming the device's Harness for its next
//     matching call: prepare_failure, start_failure_nil (no turn),
//     start_failure_turn (a turn and an error), write_failure,
//     write_uncertain (applied or not), write_over_budget (answered after
//     the daemon's budget; often consumed at once while the call overruns
//     35–60 s), late_accepted (consumed seconds after the write),
//     cancel_failure (the cancel request fails), cancel_late (settles 5–20
//     s after the cancel), cancel_never (settles at heal), late_events
//     (events after the cancel settled), settle_error (an unconfirmed
//     settlement answer), not_reusable (settlement says Reusable=false),
//     close_failure (the retry succeeds) and hang (the next prepare,
//     start, write or close answers only at heal; a hung write may already
//     be consumed).
//   - daemon_clock_jump: the device's wall clock jumps by ±[1 s, 30 min]
//     (registered by harness.Register); the daemon's heartbeat ts and
//     expires_at follow it, its decisions do not. Heal does not undo it.
//     Nothing in Core or the checkers reads a daemon's wall clock: the
//     ledger's admission deadline is the grant instant plus the device's
//     configured expiry, in virtual time.
//   - fence_stray_resume, fence_work_races_resume, transfer_early_commit
//     (faults_environment.go): ahead of Core's next environment_resume a
//     forged resume of another suspension, or (without rollback) a forged
//     runtime_prepare begin and commit and a forged workspace_write begin
//     and commit racing it; ahead of Core's next
//     runtime_prepare chunk a forged commit of that transfer. The Runtime
//     must refuse each (not_suspended, resource_unavailable,
//     invalid_request). harness_prepare_receipt_lost,
//     harness_prepare_conn_loss, harness_setup_failure,
//     harness_setup_hang, harness_quiesce_reply_lost,
//     harness_stage_slow and harness_install_unconfirmed act on the
//     daemon's side (sim/harness).
//   - hostile_proxy: a mutating proxy (sim.Kernel.SetProxy) on one or both
//     directions of a Core–daemon connection for For: it duplicates
//     frames, replays earlier frames of the direction later, sends copies
//     padded to just under 4 MiB, copies with an envelope ID inflated past
//     128 bytes and, at most once and rarely, a copy over 4 MiB (the
//     transport then closes the connection). A WebSocket never reorders a
//     direction, so neither does the proxy: a replay (or a stall or slow
//     of one direction) is how old frames come after newer ones.
//   - hostile_core_frames: a rogue on Core's side of a connection forges
//     what an honest Core never sends: starts of never-granted, foreign,
//     stale (older connection), released and wrong-executor handles, a
//     start with a used Run ID, a conflicting repeat of a started start, a
//     conflicting duplicate prepare, prepares the configuration rules
//     refuse, empty and unknown releases, undecodable prepares, cancels and
//     steers of unknown Runs, an input_id over 256 bytes, a steer reusing
//     an input Core saw accepted with other content, a steer whose
//     input_id is blank, prepares whose HTTP MCP servers break the
//     connection rules (answered by the configuration table sim/check
//     restates), the opposite decision for a permission request the
//     daemon applied; in one seed of many, a flood of its own admissions
//     past the connection's 64 admission records, then releases of the
//     oldest (hostile_records.go); and towards Core a status with a
//     foreign handle for a stream Core already follows. In half the
//     seeds with faults a peer in the middle also sends, within 5 ms of a
//     daemon's applied receipt for one of Core's permission decisions, the
//     opposite decision, while the Turn still runs
//     (hostile_decision_applied.go).
//   - rogue_core (hostile_rogue_core.go): a scripted rogue on Core's side
//     of a connection runs an admission and a Run of its own and sends
//     the daemon what is wrong in each situation it sets up: undecodable
//     starts and releases and a start with an invalid input; a release
//     of its granted handle under another request ID; a cancel and a
//     steer behind its start, before the native start returns; steers
//     one after the other up to 256 admitted inputs, then one more; once
//     its Run is done, a prepare of its Session naming another native
//     session; and a function result with an image for every call on a
//     kind without function_result_images.
//   - rogue_daemon: the rogue node dials Core claiming a device (foreign,
//     or in a sixth of the faults a real one, which it then replaces as any
//     newer connection does) and speaks wrongly on purpose: an incompatible
//     version, two connections at once, done/error/receipts/statuses for
//     Runs and requests it never got (before and after a heartbeat that
//     declares no kind), then an invalid, near-limit or oversized
//     heartbeat, or silence until Core's idle timeout.
//   - workspace_write_race and workspace_read_forged (faults_workspace.go):
//     while a Turn bound to an Environment runs, a write of its Session
//     through Core's API and a begin for its Environment forged as from
//     Core (the daemon must refuse it: execution is excluded while a
//     write is received or applied); or reads of the running Run forged
//     as from Core: one naming a foreign Environment, one the device's
//     Harness is armed to interrupt and, once that was answered unknown,
//     another of the same owner (sim/check workspace_runtime.go judges
//     the answers).
//
// Durable event subscribers (subscribers.go): in a swarm-drawn share of
// the Turns the Core node, as Core's shell, subscribes one or two honest
// readers and sometimes a slow one whose small buffer overflows; the
// ledger judges every stream against the durable store
// (subscriber_stream).
//
// Each hostile fault draws from its own stream (seeded by its pick and
// instant), so shrinking other faults never changes what it does. Every
// identity a hostile peer mints starts with check.HostileIDPrefix; each
// forgery it expects refused is registered as a check.HostileProbe naming
// its action, whose documented answer sim/check holds. No honest turn is exempted from liveness or
// linearizability: a hostile action either leaves honest outcomes
// untouched (it uses its own identities, or honest ones only where the
// answer cannot reach an honest outcome: an input Core already saw
// accepted, a handle whose stream Core already follows, a request Core has
// finished with) or ends like a fault the honest peers already survive (a
// connection lost to an oversized frame, a real device's connection
// replaced by the rogue's), whose failed turns are allowed outcomes.
//
// At heal every crashed node restarts, armed Harness faults are dropped
// (but one harness_write_over_budget armed on a device is armed again: an
// overrunning write is no partition and completes on its own within 60 s;
// in the quiet after heal it is what lets a steer wait out Core's written
// window), hung calls are released and a version window closes. A crash
// fault whose process is already down finds no victim: the kernel counts
// it applied, the world counts it in Outcome.Skipped, and campaigns report
// it under "found no victim", not as injected. Once the workload
// has read every turn terminal (and the middle has sent the decision
// repeats still due well inside the liveness deadline, which the
// deployment stays up for: hostile_decision_repeat.go), every daemon is
// asked to shut down; the liveness predicate (SetConvergenceLazy) then
// waits for the ledger's Pending: every turn terminal, every native turn
// settled, every executor closed.
//
// # Checkers
//
// The node adapters only observe. Core side: the store tap records turn
// submission and states (starting maps to queued: Core's
// executor_unavailable retry sends a starting turn back to queued), input
// outcomes, cursor advances, usage, and persisted done and error; inbound
// frames record done and error decoded on the wire (before the machine
// persists them), cancel receipts Core acts on (matched to Core's latest
// prompt_cancel of the run and its durable record) and preparation
// statuses Core applies (by the gateway's stream rule, from Core's
// frames); outbound frames record run starts and first deliveries of each
// input (a resend after not_ready or busy is not a redelivery). Daemon
// side: handles granted (with the admission deadline), started, released
// and expired, receipts, cancel receipts, done, error and usage; each
// device's configured limits at setup. Capability, configuration,
// refusal codes and capacity are judged by the ledger from the wire tap
// (every frame decoded once), the workload's own requests (SessionCreated,
// SteerAnswered) and the Harness's ground truth; no observer reads a
// machine's requirements, snapshot, preparations or accounting. The
// Harness shares one native session memory across devices, so a new
// native root over a Session's history is visible as a breach.
// The Harness records ground truth before the machine hears of it (the
// native apply precedes the accepted receipt). The workload records reads
// and steers with call and return instants; a steer's outcome comes from
// a later read (accepted, or at the terminal read rejected or unknown)
// and an unresolved steer stays open.
//
// One kernel check per ledger check name drains Ledger.AfterStep after
// every step; Ledger.Final runs at the end (liveness, orphaned resources,
// accepted steers against truth). The end-of-run liveness check also reads
// Core's store itself (liveness_store.go): a turn stored queued, starting
// or running when a run ends fails it, named with its state, whatever the
// tap recorded; and a violation whose check name no kernel check takes
// fails the run as unreported_violation instead of being dropped. A
// failing run stops at its first violation, so its turns may be open. After the run, linearize.Check (1 s
// budget, the fault timeline as annotations) judges the ledger's History: Illegal
// adds a "linearizability" violation (check.LinearizeViolation) and porcupine's HTML to the Outcome;
// Unknown is reported by Outcome.LinUnknown, neither pass nor violation.
//
// # Marks
//
// Each check.ExpectedMarks mark is counted in the ledger and the kernel
// when the state is really reached: an admission expired before start (a
// daemon sends expired for a handle never started), cancel raced done (Core
// receives done while its cancel receipt is awaited), steer unknown after
// 30 s (Core records an input unknown a full written window after its
// delivery; reached through harness_write_over_budget, a write consumed at
// once whose call overruns 35–60 s while the native turn stays open
// behind it, so the next input waits out the window; any connection loss
// meanwhile ends the run, so it is reached mostly after heal, with the
// over-budget fault kept past heal), cancel_unconfirmed (Core fails a turn with it), cleanup retried (a close after a failed close), capacity
// rejection then success (a turn refused for preparation_capacity is
// started later), stale revision ignored (Core receives a status at or
// below the revision it holds), reconnect during steer (a device's
// connection closes or is replaced while Core awaits a receipt), Core
// restart mid-turn (Core crashes with a claimed turn), Core restart with a
// cancel pending (a prompt_cancel awaited its deciding receipt at the
// crash).
//
// # Speed
//
// Every frame is encoded by its sender and strictly decoded once, with
// wire.Decode, when it is sent: its trace line, the wire tap and the
// receiving machine share that decoding, reused only for the very bytes
// that left (frame_path.go; TestSharedDecodingsUnchanged proves nobody
// changes a shared decoding). The shells (Core's and the daemons') encode
// without the encoder's own strict scan of its output, since that decode
// follows at once and a frame it refuses is not sent but reported as a
// wire_encode violation (TestBrokenEncodingIsRefusedBeforeSending plants
// a broken encoding). The frames heavy seeds carry by the thousand
// (execution_prepare and preparation_status in canonical form, the acks,
// delta, workspace_read) are encoded, decoded and described without
// reflection where that cannot change a byte; property tests in package
// wire hold each to the reflective path.
//
// A campaign's cost grows with its heavy seeds: one with a hundred Turns
// queued behind capacity refusals steps Core over every Session and Turn
// on each of its steps and carries execution_prepare and
// preparation_status frames by the thousand. Core keeps its Sessions,
// Turns, preparations, subscribers and devices in lists beside their maps,
// written only by named helpers (TestIndexWriters holds them to that), so
// its per-step invariants walk slices, and its scheduler visits only the
// Sessions marked ready. The checkers that ran on every step or event walk
// only what can still matter (the suspension reply count, the connection
// timing watches, the receipts in flight).
//
// BenchmarkCampaignSeed runs whole seeds at the campaign workers' GC
// target (campaign.WorkerGCPercent), BenchmarkCampaignSeedGC100 at the
// runtime's default.
// Each reports cpu-ns/seed (process CPU, GC included), events/seed and
// frames/seed. Compare two builds by their ratio from interleaved runs in
// one session (-benchtime 60x -count 5, then the medians), and by
// instruction counts, which a loaded machine does not move:
//
//	GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off GOMAXPROCS=1 valgrind --tool=cachegrind --cache-sim=no \
//	    bin/turnstile sim -seeds 20 -first 1 -workers 1 -out /tmp/cg
//
// (valgrind stops on Go's preemption signals, and on the RDTSCP
// instruction the runtime's lock spinning may run; the two GODEBUG
// settings keep the runtime off both). Campaigns and the benchmark keep
// the buffers of padded frames (near or over the 4 MiB limit) from seed
// to seed (Config.Pads, pads.go): each would otherwise cost fresh pages. A change that claims speed keeps every fingerprint: the
// per-seed lines of `turnstile sim -json` on a fixed range are identical
// before and after, wall time aside.
package world
