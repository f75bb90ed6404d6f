// Package core is Turnstile's Core coordinator as a deterministic machine.
//
// Core owns the durable Session, Turn, active input and run event records,
// scheduling and coordination of the Core–Runtime protocol. All of its
// decisions live in Machine, which reads no clock, starts no goroutine,
// touches no socket and draws no randomness: a shell (the WebSocket
// gateway, the public API, or the simulator) turns I/O into events and
// applies the effects the machine returns.
//
//	m := core.New(core.DefaultConfig(), store.NewMemory())
//	effects := m.Step(now, core.ConnOpened{Device: "d1", Conn: 1})
//
// # Events
//
// Step(now, Event) is the only entry point. Events are ConnOpened,
// ConnClosed, FrameReceived (already decoded with package wire),
// FrameRejected (a frame that failed to decode), TimerFired,
// SubscriberOverflow, and the API calls CreateSession, SubmitTurn,
// SteerInput, CancelTurn, ReadTurn and Subscribe, each with a caller-chosen
// CallID. Timers are events too: the machine asks for them with SetTimer
// and learns of them through TimerFired, so the simulator runs every
// timeout in virtual time.
//
// # Effects and their ordering
//
// Step returns Send, CloseConn, SetTimer, CancelTimer, Observation and
// APIResult, to be applied in the order returned. Every durable write of
// a Step reaches the Store before Step returns: a frame is sent only after
// the state that justifies it is recorded (a Turn is durably claimed
// before its execution_start leaves; an input is durably "delivering"
// before its prompt_steer leaves). Each API event yields exactly one
// APIResult; a call answered with an error changed no durable state.
// Observations of a subscriber arrive in persisted order, each event once,
// then exactly one closing Observation (subscriptions are volatile: a
// Core crash ends them without one, and the shell reports that to its
// callers). See each effect type for details.
//
// # Rules
//
// Devices and connections. A newer connection for a device replaces the
// older one, which is closed and quarantined: its capability snapshot,
// preparation streams and Run routes are removed and nothing is inherited.
// Connection IDs are generations: the machine remembers the highest one
// opened per device and assumes the shell mints them increasing per device
// (the simulator in dial order, a real gateway in accept order). An older
// or equal one arriving later is closed at once ("stale connection") and
// changes nothing; a Restart forgets the generations seen.
// Capabilities come from the last valid heartbeat only: unknown before the
// first, a kind missing from a heartbeat is undeclared, nothing is
// inferred. An invalid heartbeat (incomplete or duplicated declaration, or
// a heartbeat frame that failed to decode) clears the snapshot and closes
// the connection. A connection silent for ConnIdleTimeout is closed.
//
// Capability admission. Requirements lists the capabilities a Turn needs
// (the admission table: always-required ones; environment none versus
// hosted; native_session_recovery when the Session started Turns without a
// recorded native session ID; engine-profile controls; structured output;
// multi-agent; tool search; programmatic tool calling; function tools;
// images; HTTP MCP). Core checks them at device selection and again, on
// `ready`, against the connection's snapshot of that moment. It never picks
// another Harness kind: a device declaring the kind available but lacking
// a capability makes the Turn fail with capability_unsupported, at
// selection or at the final check. A kind undeclared or unavailable means
// wait, at both points: at the final check the admission is released
// (execution_release) and the Turn stays queued and unclaimed, to be
// scheduled again; no Run input or Run ID was sent, so this is no replay.
//
// Scheduling. Turns run FIFO per Session, one active Turn per Session. The
// device is the admissible one with the fewest open preparations and Runs,
// ties broken by device ID. Core subscribes to the preparation status
// stream, then sends execution_prepare with the Session identity and the
// immutable configuration only (never Run input nor Run ID). Statuses
// count only on the first handle seen on the stream with strictly
// increasing revisions; stale and duplicate ones are ignored. On `ready`
// the final check runs, the Turn is claimed durably (state starting, Run
// ID minted) and execution_start carries the executor ID, handle, Run ID
// and the ordered input. preparation_capacity leaves the Turn unclaimed and
// retries after PrepareRetryDelay; the refusing connection is gated
// meanwhile: no preparation before its wait ends (PrepareRetryDelay,
// doubling per consecutive refusal up to PrepareRetryMax, 30 s; a heartbeat
// of it ends the wait), then one open at a time, the window doubling with
// every preparation it takes, so a full Runtime gets a probe per wait
// rather than a preparation per queued Turn per second. A start refused with
// executor_unavailable is retried once, with a fresh preparation, when no
// native output was observed and no cancel was sent. Every other refusal
// (executor_capacity, the Runtime's executor limit, and
// resource_unavailable, an Environment busy with a write, export or runtime
// preparation, included), and a `ready` without executor_id (released),
// fails the Turn (preparation_start_failed with the Runtime's code);
// uncertain delivery is never replayed.
//
// Judgment call: re-preparing after a connection loss. A connection lost
// while an unclaimed Turn is being prepared leaves the Turn queued, and it
// is prepared again (on any admissible connection) with a new request ID.
// The seed's "no replay" on reconnection concerns Run input,
// initialisation, transfers and pending mutations; none of them was sent:
// execution_prepare carries only the Session identity and immutable
// configuration, no Run input and no Run ID, and its admission was local
// to the lost connection (the Runtime retires it with the connection), so
// the next preparation is a new admission, not a replay of anything whose
// effect is unknown. Once execution_start has left, the Turn is claimed and
// never started again.
//
// Judgment call: require_existing_native_session. The configuration sets
// it exactly when native_session_recovery is required: the Session has
// started a Turn (or delivered a start without confirmation) and no native
// session ID is recorded. The seed sets the flag "when the native Session
// must be recovered"; with a recorded ID the configuration names it in
// agent_session_id and the Runtime resumes it under strict_resume (a
// mismatch is native_session_conflict), so there is nothing to recover by
// search. Without a recorded ID but with earlier Turns, native history may
// exist that Core cannot name: the flag makes the Runtime refuse
// (history_unavailable) rather than silently start a fresh native session.
// A Session that never started a Turn has no history to require.
// SessionState (ListTurns) shows when the next Turn needs recovery and,
// when every device of the pool is back and none declares
// native_session_recovery for the kind, that the Session is unusable and
// why; SubmitTurn then refuses with ErrSessionUnrecoverable rather than
// queue a Turn that can only fail.
//
// Run events are persisted in arrival order and handed to subscribers.
// error then done fails the Turn with engine_failed, exposing the
// classified engine_error_code and engine_http_status (only then); done
// alone completes it. Usage snapshots replace each other; a missing
// measure stays unknown. A Turn reaching RunEventsPerTurnMax stops being
// observed and fails with event_persistence_failed rather than drop events.
//
// Steering. Active inputs are recorded durably per Turn with decimal input
// IDs and delivered one at a time with durable_receipt: true once the Run
// runs. From delivery start Core waits WrittenTimeout for `written`; else
// the input is unknown, never redelivered, and the Turn fails with
// input_outcome_unknown. Only `accepted` advances the input cursor. A
// not_ready or busy refusal before `written` offers the same input again
// after SteerRetryDelay; any other refusal fails the Turn with
// input_<code>.
//
// Cancel. An unclaimed Turn is cancelled at once (its admission handle
// released). A claimed one gets prompt_cancel with delivery ID
// "cancel:<runID>"; its terminal state then comes from the cancel receipt
// (a `done` meanwhile does not override it), or is cancel_unconfirmed when
// none decides by the cancel deadline: the first attempt's send plus
// CancelConfirmTimeout, recorded durably (CancelDeadline) with the request.
// A receipt refused with not_ready (the Run is still starting; the cancel
// was not applied, so retrying is safe) makes Core send prompt_cancel
// again after CancelRetryDelay, while the Turn is not terminal, with a
// fresh delivery ID ("cancel:<runID>:<n>" for attempt n) recorded before it
// leaves; only the latest attempt's receipt counts (once: a duplicate
// receipt of an attempt already answered with not_ready is ignored) and
// decides as usual. Retries never extend the wait: every attempt's
// confirmation window ends at the same deadline, and no retry is sent at
// or past it (a not_ready within CancelRetryDelay of the deadline just
// waits for it), so a Run that stays starting fails the Turn with
// cancel_unconfirmed CancelConfirmTimeout after the first send. A
// CancelTurn call while the retry waits sends it at once. A receipt
// refused with run_inactive lets the stream decide; cancel_failed is
// cancel_unconfirmed.
//
// Observation. Subscribe is the SubscribeDurable run subscription. When a
// connection carrying a claimed Turn is lost the Turn fails with
// delivery_unknown (start unconfirmed) or event_stream_incomplete (stream
// broken); both mean the native effect is unknown. Subscribers are closed
// with ErrDisconnected, or ErrSubscriberOverflow on SubscriberOverflow.
// Core never fabricates an `error` or `done`.
//
// Workspace (workspace*.go). ReadWorkspace reads a file or lists a
// directory of a Session with an Environment. While the Session's Run
// runs, the read carries that exact Run ID. Otherwise it runs on the
// Session's scheduling reservation (no Turn of the Session is prepared
// meanwhile): a read-only profile is prepared on an admissible device
// (workspace_read_preparation), read with its handle, released, and the
// data is answered only once released arrived; failed
// (cleanup_unconfirmed), expired, a lost connection or no answer within
// WorkspaceReadWait (17 s) answer unavailable with no data. At most
// WorkspaceReadsPerConn (4) reads, WorkspaceWritesPerConn (1) write and
// WorkspaceExportsPerConn (1) export are in flight per connection: a
// write or export for which every admissible connection has its one in
// flight is refused ErrWorkspaceConnBusy (a kind of ErrWorkspaceBusy),
// nothing reserved or sent. A device with an unresolved suspension
// (fencing.go) is chosen for no workspace read, write or export, as for
// no Turn: with no other device the call answers unavailable
// (no_device).
// WriteWorkspace (at most 5 MiB, a clean relative path, an Environment ID
// that is a canonical UUID, all checked first) reserves the write durably
// in the SessionRecord (MutationRecord) before begin leaves, sends 64 KiB
// chunks on acknowledged offsets, records CommitSent before the commit
// leaves, and settles on a completed or rejected receipt. Lost before its
// commit it settles as not applied (unavailable); after it, or on an
// unknown receipt or no receipt within WorkspaceWriteWait (195 s), it is
// unknown, never replayed, and later writes of the Session are refused
// (ErrWorkspaceMutationPending), across restarts. The wire's session_id
// and mutation ID are UUIDs derived from Core's identities.
// ExportWorkspace pulls a tar stream on the same reservation within
// WorkspaceExportWait (180 s); with Stream set each chunk leaves the
// machine as an ExportChunk effect and the next is pulled only after the
// caller's ExportChunkTaken (Abandon ends it with a cancel), so nothing
// of the archive is kept; the answer is completed only after the release.
// An export Core stops early (a result it does not accept, a profile that
// ended, the wait, an abandoning caller) sends cancel best effort: its
// Send carries ExportCancelSendBudget (2 s), and the shell drops a cancel
// it could not write within 2 s of queueing it, without closing the
// connection (every other frame keeps the shell's 10 s write rule).
//
// # Store
//
// Store (store.go) is the consumer-side interface of the durable records:
// counters (the sources of "s-<n>", "t-<n>" and "p-<n>"), Sessions, Turns,
// active inputs and run events. The machine calls it synchronously; a
// Store is fail-stop. Package core/store provides the in-memory Store the
// simulator keeps across Core crashes. A call rejected with an error, and
// a frame that is ignored, write nothing.
//
// # Identities
//
// Sessions are "s-<n>", Turns "t-<n>"; a Turn's first Run ID is its Turn
// ID and its single retry attempt is "<turn>.2". Preparation request IDs
// are "p-<n>", never a Run ID. Active input IDs are the decimal position of
// the input in its Turn. The cancel delivery ID is "cancel:<runID>", then
// "cancel:<runID>:<n>" for the n-th attempt after not_ready refusals.
//
// # Restart
//
// Restart rebuilds a Machine from the Store after a crash. Unclaimed Turns
// are queued again in their order (their preparations died with the
// connections). A Turn whose execution_start was sent is never started
// again: it fails with delivery_unknown when the start was unconfirmed,
// event_stream_incomplete when it was running, or cancel_unconfirmed when
// its cancel receipt was awaited (whether or not its durable cancel
// deadline had passed: the wait does not survive the crash, so the
// deadline only ever ends sooner); an input awaiting its receipt becomes
// unknown and queued inputs not_delivered.
//
// # Environments and engines
//
// Operator calls prepare an Environment over runtime_prepare
// (runtime_prepare.go) and quiesce and resume a device's Runtime with
// suspend_id fencing (fencing.go); both keep durable records in a Store
// that implements PreparationStore / SuspensionStore (store.Memory does).
// A Session created with an Environment definition
// (AgentConfig.Definition: files, skills, plugins, setup commands) is
// prepared the same way on every connection before Core prepares one of
// its Turns there (environment.go, environment_dispatch.go): the Turn
// waits while the preparation runs, and fails with the step's code
// (runtime_preparation_unconfirmed after a transport error) when it ended
// otherwise; nothing is replayed on that connection, and a later
// connection runs a fresh preparation. ReadEnvironment shows each
// connection's preparation.
// Config.Policy is the engine profile catalog's immutable Policy
// (core/engine) that Session admission, device selection and the final
// check all read; nil selects the built-in catalog (synthetic and codex),
// so a kind without a profile is never admitted.
// # Interactions
//
// A Run's permission requests, user-choice prompts and function calls are
// recorded on the Turn (TurnRecord.Interactions, at most
// 256 per Turn). AnswerPermission, AnswerUserChoice and
// SubmitFunctionResult are checked against the record — the interaction
// exists on the current Run, is answerable, the admitted device declares
// permissions / function_tools (function_result_images for images), user
// choice answers bind to issued question IDs, function content is valid —
// before anything is sent. A function result carrying images also needs
// the engine profile Core runs to qualify function_result_images for the
// Session (checked first, like an image input's message_images): a device
// declaring the capability does not stand in for it, and the result is
// refused ErrEngineUnqualified with nothing sent or changed. Then the
// decision is recorded with a fresh
// delivery ID ("decision:<turn>:<n>:<attempt>"), sent, and awaited for
// DecisionAckTimeout (15 s). Only an interaction_decision_ack with that
// delivery ID and applied=true makes it applied; a refusal records its
// code; no receipt in time, a lost connection or a restart leaves it
// unknown, never applied (an unknown one may be answered again). A
// permission_cancel withdraws a pending request. TurnView.Interactions
// lists them with their outcome.
//
// # Subagent observations
//
// A Session whose Agent enables multi_agent is prepared with
// observe_subagent_identities (and needs a device declaring
// subagent_observations); its Run may report subagent_identity,
// subagent_lifecycle, subagent_turn and subagent_item frames (Envelope.id
// = Run ID). Core records each one it accepts on the Turn
// (TurnRecord.Subagents, at most 512 per Turn, in arrival order, with the
// frame as reported) and TurnView.Subagents shows them (GET
// /core/v1/turns/{turn}, "subagents"). They are not run events: they
// neither count toward RunEventsPerTurnMax nor change the Turn's state.
// Like other Run output they are taken only on the Run's live route and
// never after its done. An observation is refused (not recorded, nothing
// durable changes) with a named reason (subagent.go): the Session did
// not ask for them (ErrSubagentNotObserved), a lifecycle, turn or item of
// a native_id before that Run's subagent_identity of it
// (ErrSubagentUnidentified), a second identity of a native_id
// (ErrSubagentIdentified), an item of a subagent turn the Run has not
// reported (ErrSubagentTurnUnknown), one identical to an observation the
// Run already reported (ErrSubagentDuplicate: a replayed or duplicated
// frame is no new native fact), after done (ErrSubagentRunEnded), or
// past the bound (ErrSubagentLimit). A completed subagent turn is not a
// closed subagent: later turns of the same native_id are taken; Core
// infers no closure and keeps each lifecycle status as reported.
//
// # Introspection
//
// Devices, Snapshot, Turn, ActiveTurns, Preparations, Timers and
// Subscribers give checkers sorted, read-only views.
package core
