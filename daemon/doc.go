// Package daemon is the Runtime dispatcher as a deterministic machine.
//
// The Machine holds every protocol decision of the Runtime side of the
// Core–Runtime protocol: admission records and handles, revisions, expiry,
// capacity, executor reuse and idle expiry, the Turn lifecycle, durable
// input receipts, cancel and settlement, cleanup ownership and shutdown.
// It performs no I/O. It never reads a clock, starts a goroutine, uses a
// channel, draws randomness or lets map order reach its output; a shell
// (or the simulator) feeds it events and executes the effects it returns:
//
//	effects := m.Step(now, ev)
//
// # Events
//
//   - ConnOpened{Conn} / ConnClosed{Conn}: a connection (ConnID, its
//     generation) came up or went away. A newer ConnOpened replaces the
//     older connection.
//   - FrameReceived{Conn, Frame}: a frame the shell decoded; FrameRejected
//     for one it could not decode.
//   - TimerFired{Timer}: a timer the machine armed reached its instant.
//   - NativeResult{Call, Result}: a native call finished.
//   - NativeTurnEvent{Turn, Event}: native output of a Turn, in order;
//     wire.Done is the native terminal result and closes the output.
//   - NativeInputApplied{Turn, InputID}: the native side consumed an input.
//   - ShutdownRequested (or a device_shutdown frame).
//   - KindAvailability{Kind, Available}: a registered kind became
//     available or unavailable; a heartbeat declares it at once, and
//     admitted executors keep the declaration they were admitted under.
//   - WallClockStep{Offset}: the wall clock moved by Offset relative to
//     the monotonic clock (a production shell using time.Now() needs it
//     only if it reads wall time separately; the simulator sends it to
//     model wall-clock jumps).
//
// # Time
//
// now is monotonic: it never goes backwards (Step panics), and every
// ordering, timer, expiry and budget decision uses it. Wall time is now
// plus the accumulated WallClockStep offsets and is used only for wire
// values: heartbeat ts (Unix seconds, as the documented era's Runtime
// sends it) and preparation_status expires_at (Unix ms). A
// wall-clock jump therefore moves those values and nothing else: an
// admission still expires exactly AdmissionExpiry after its grant.
//
// # Effects and their ordering contracts
//
// Effects of one Step are executed in order. Send frames of one connection
// are written in emission order and never redirected to another
// connection. SetTimer replaces an earlier arming of the same TimerID;
// stale fires are ignored. NativeCall runs outside Step and reports
// exactly one NativeResult; the machine keeps calls on one target serial
// (one close per executor, one settlement wait per Turn). Report lists
// what is still owned once shutdown started.
//
// # Rules
//
// Admission. execution_prepare is validated (configuration shape,
// registered and available kind, preparation and environment
// capabilities, agent_options keys). One bound to an Environment with a
// workspace write, export or runtime preparation in progress (a
// runtime_prepare transfer of it from its begin to its terminal result,
// or an installation a lost connection left running) is refused
// resource_unavailable, read-only profiles included. It is then checked
// against capacity:
// active preparations and executions (ActiveMax, 4), executors in any
// state including closing and uncertain ones (ExecutorsMax, 20) and
// admission records of the connection (AdmissionRecordsMax, 64).
// A refusal is an explicit
// rejected status with the operation and an error code; it never replaces
// a handle's revision. Every refusal a retry can clear is
// preparation_capacity, the one code Core retries (keeping its Turn
// unclaimed): the active limit; a full executor table while closing,
// uncertain or lost-connection executors hold slots (cleanup occupies the
// capacity; each frees its slot once cleanup succeeds); the Session's own executor being
// closed, bound to a lost connection (closed once its Turn settles or its
// preparation ends, never reused), still being prepared for an admission
// that ended, or held by a live admission or Turn of this connection,
// which always ends on its own by release, expiry or settlement. A new
// executor needed while the table holds ExecutorsMax executors, all idle
// or in use, is refused executor_capacity before the active limit is
// looked at (the executor limit refuses: 16 idle and 4 active held; Core
// does not retry it). A full table's refusal closes the oldest idle
// executor once sent, to make room. A Session
// executor whose close failed answers executor_cleanup_unconfirmed. The
// admission record table cannot fill with live records: each non-terminal
// record holds an active slot and AdmissionRecordsMax >= ActiveMax, so the
// oldest terminal record is evicted to make room. A granted admission has a connection-local handle
// and a revision stream preparing → ready → starting → started, or
// released / expired / failed. A healthy idle executor of the same
// Session and configuration fingerprint is reused: ready at revision 1
// with reused=true and no native preparation. The same request ID with
// the same content republishes the current status; different content is
// request_conflict. Admissions expire five minutes after the grant;
// nothing extends the deadline, and an expired admission's executor is
// still cleaned up.
//
// Start and release. execution_start is valid only for a live ready
// handle of this connection, issued to the same request ID, naming its
// executor, with a Run ID never used on this connection (run_conflict
// otherwise, for active and finished Runs alike; the set is per
// connection and dropped with it); it transfers the admission once (starting, then started when
// the native Turn exists). A start that returns no Turn closes the
// executor and then fails the admission (executor_unavailable once the
// close is confirmed). execution_release before start abandons only that
// admission: the executor goes back to idle, no Turn is touched.
//
// Turns. Native events are forwarded in order with the Run ID; events
// arriving before started are buffered (at most OutputFramesMax: the
// shell's bounded output channel gives the backpressure, and anything past
// the bound is dropped and counted in TurnView.Overflow). Usage
// snapshots replace each other. An error is always followed by done.
// done is published only after native settlement, a confirmed executor
// close when the settlement said Reusable=false, and every admitted input
// receipt; continuity is committed and the executor released (idle with
// its idle-expiry timer, or closed) before done is sent. done republishes
// the native terminal result when the Harness emitted it before settling;
// when the Turn settled first (a cancel, a start error), done is the
// settlement's continuity outcome (content, usage, metadata), never an
// empty fabricated one. A successful settlement closes the output: native
// events arriving after it, or after the native terminal result, break
// the Harness contract and are dropped, never forwarded.
//
// Subagent observations. subagent_identity, subagent_lifecycle,
// subagent_turn and subagent_item are Run output like the rest: forwarded
// in native order with the Run ID, buffered before started, dropped after
// the native terminal result or settlement. They are forwarded only for a
// Turn whose executor was prepared with observe_subagent_identities under
// a declaration that supports subagent_observations; any other is dropped
// (an undeclared report is the adapter contract's
// ErrUndeclaredObservation). The daemon does not judge their order; Core
// does.
//
// Durable inputs. prompt_steer with durable_receipt: one native write per
// Run at a time, bounded by NativeWriteBudget; `written` when it completes,
// `accepted` when the native side confirms consumption. A write over
// budget or with an unknown outcome is answered outcome_unknown, kept and
// never replayed; repeats of an input ID get the stored receipt. A new
// input for a Run whose executor has closed is run_inactive. Each
// receipt Send carries ReceiptSendBudget.
//
// Cancel. prompt_cancel cancels exactly the Run's Turn and waits for
// settlement. With a delivery ID the receipt is applied=true only after
// settlement and cleanup, carrying the continuity outcome (the same the
// done carries when no native terminal result preceded settlement); a settlement
// wait that times out answers applied=false cancel_failed and keeps the
// Turn owned. Unknown Runs answer run_inactive, Turns still starting
// not_ready.
//
// Executors. A failed close keeps the executor and its capacity slot;
// closes are retried serially with exponential backoff. Waiter timeouts
// never free a resource.
//
// Connections. When a connection goes, its routes and handles retire:
// live admissions fail (connection_closed), Turns are cancelled and
// settled natively, nothing is sent on or replayed to a successor.
// Admissions, handles, Run routes, their timers and outputs are
// connection-local, and so are executors: runtime-harness-protocol binds
// an executor record to its Session, Environment, connection and frozen
// configuration, and a lost connection retires its owners and handles
// (连接丢失会让其所有者和句柄退役). An executor is bound to the connection
// it was prepared on and never reused by another: the lost connection's
// idle executors and those its retired admissions reserved are closed at
// once, busy ones once their Turn settles (Reusable or not), preparing
// ones once their preparation completes; its old timers, outputs and
// cancels reach nothing of the successor. A later connection's prepare of
// the Session is told to retry (preparation_capacity) while the old
// executor is still busy or closing, then gets a new executor. Session
// continuity comes from the native identity, not the executor: the
// native session a retired executor held is kept for its Session
// (continuity.go, at most ExecutorsMax Sessions, the oldest forgotten
// first), so a prepare naming agent_session_id must match it
// (native_session_conflict), and one with require_existing_native_session
// and no agent_session_id (a Turn whose done was lost with its
// connection) gets a new executor prepared to resume it rather than
// history_unavailable. A failed close keeps the slot and is retried
// serially.
//
// Shutdown. Unstarted admissions are released, Turns cancelled, idle and
// finished executors closed; failed closes are retried. A Turn the
// shutdown cut short (no native terminal result before the cancel, no
// prompt_cancel from Core) is published as an error frame
// (InterruptedError) then done, never as a plain done, so Core records it
// failed (engine_failed), not completed; a Turn Core is cancelling gets
// its applied receipt as usual. Report says what
// is still owned (executors, Turns, outstanding native calls) and is
// Complete only when nothing is.
//
// Workspace operations (workspace*.go). The read-only preparation
// profile (workspace_read_only, needing workspace_read_preparation) opens
// a local reader on the bound directory, never an executor; it counts as
// an active preparation until its close is confirmed, refuses
// execution_start (read_only_preparation), and publishes released only
// after the confirmed close; a failed close answers failed
// cleanup_unconfirmed, keeps the reader, and the serial retry's
// confirmed close publishes released at the next revision. workspace_read
// (bytes or a listing) runs against a ready profile, a ready executable
// preparation's executor, or the Run a handle was transferred to, with
// the exact frozen Environment identity; at most
// WorkspaceConfig.ReadsInFlightMax (4) per connection (read_capacity); a
// duplicate pending ID starts nothing; an answer the request does not
// allow, or unknown, is sent as unknown read_unconfirmed and stops later
// reads of that owner. workspace_write is one transfer per connection
// (write_capacity): begin, 64 KiB chunks acknowledged with their end
// offset, commit; the size and SHA-256 are checked before the installer
// runs; a malformed, incomplete or expired (WorkspaceConfig.TransferExpiry,
// 195 s) transfer never reaches it; execution in the write's Environment is
// refused (resource_unavailable) from begin until the installer answered,
// and a begin while it executes, or while the Runtime is quiesced
// (fencing.go), is refused the same way; an unknown
// installer answer is unknown write_unconfirmed. workspace_export pulls
// the profile's tar archive in 64 KiB chunks (begin, next with the
// consumed total, cancel). Answers are never sent on a later connection.
//
// Interactions and function calls (interaction.go). permission_request,
// prompt_for_user_choice and function_call are forwarded in order on the
// Run ID and belong to the Turn that emitted them (permission_cancel
// travels on the interaction ID); a native callback of a settled Turn is
// dropped. Decisions are routed by interaction ID, function results by Run
// and call ID, to that Turn's responder (RespondPermission,
// RespondUserChoice, SubmitFunctionResult native calls), checked first:
// not_pending (unknown, withdrawn, or the Turn's admission closed: output
// closed, cancel requested, settled), not_ready (start unresolved),
// unsupported (permissions / function_tools, function_result_images: the
// admitted declaration's; whether the engine profile qualifies images in
// function results is Core's to check, before it sends one),
// runtime_error for a decision that fails validation or names a question
// the prompt never issued (CodeInvalidDecision: the closed decision set of
// wire-reference §3.6 has no code of its own for it, and invalid_result is
// the function-result code for invalid content), invalid_result,
// decision_conflict. The ack
// carries the delivery ID and says applied=true only after the native
// result; an adapter's ErrUnsupportedOperation for a declared operation is
// contract_violation. Applied decisions are remembered
// (AppliedDecisionsMax for AppliedDecisionTTL): an identical repeat is
// applied=true again without a native call, a different one conflicts; a
// repeat while the first is out waits for the same native result.
// Admitted decisions hold the Turn's barrier: done waits for them.
//
// Runtime preparation transfers (runtime_prepare.go) and suspension
// fencing (fencing.go) are served too; their files document the rules. A
// runtime_prepare transfer without its commit by its expiry
// (Limits.PrepareExpiry, 195 s) after its begin is dropped and refused
// invalid_request then.
// Plain (non-durable)
// prompt_steer is answered unsupported: the machine has no native path for
// it.
//
// # Checking
//
// Every Step ends with checkInvariants, which panics on an impossible
// state (assertions are always on); among them, an idle executor of a
// live connection belongs to it. Snapshot, Capacity and Owned give
// checkers a sorted, read-only view: admission records, executors, Turns
// with their input receipts, capacity counts and owned resources.
package daemon
