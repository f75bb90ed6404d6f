// Package check observes a simulated run and judges it. It never steers:
// the world calls plain record methods on a Ledger and reads back
// violations, marks and linearizability results. It imports only wire,
// the standard library and porcupine.
//
// # Independence
//
// An oracle never asks the code it judges. Expected answers come from the
// seeds' rules written out again here (the capability admission table in
// RequiredCapabilities, the execution_prepare configuration table, the
// finite code sets and the refusal table's content rows), from frames
// observed on the simulated network (Wire), from the API client's own
// requests (SessionCreated, SteerAnswered) and from the simulated
// Harness's ground truth. TestTidyOraclesCallNoMachineCode fails the
// build when a non-test file calls a function or method of package core
// or daemon (or a subpackage) or reads one of their package variables;
// types, struct fields and constants are vocabulary and allowed, and
// oracleAllowed lists, with a reason, the only functions that may be
// called (frame renderers).
//
// # Time
//
// Every record carries virtual time as int64 nanoseconds on one monotonic
// scale the caller chooses (the virtual clock's UnixNano works). The
// package never reads a clock; Violation renders instants as durations.
//
// # Ledger
//
// The world translates machine effects and Harness ground truth into
// records, grouped by who knows the fact:
//
//   - Core (effects and store): TurnSubmitted, RunStartSent,
//     InputDelivered, InputOutcome, CursorAdvanced, TurnState,
//     DoneObserved and ErrorObserved (ObservedOnWire or ObservedPersisted),
//     CancelAckObserved, UsagePersisted, CoreRestarted (with the facts
//     reloaded from the store).
//   - The API client (its requests and answers): SessionCreated (the
//     configuration asked for, as a SessionSpec) and SteerAnswered.
//   - The network (Wire): every frame sent, delivered or lost and every
//     open and close, decoded once. The frame oracles follow heartbeats,
//     execution_prepare and execution_start from Core, and preparation
//     statuses, receipts and terminal frames from the daemons.
//   - Daemons (effects): HandleGranted (with the admission deadline),
//     HandleStarted, HandleReleased, HandleExpired, ReceiptSent,
//     CancelAckSent, DoneSent, ErrorSent, UsageSent.
//   - Core stepping a status: StatusStepped (a preparation_status Core
//     received on a stream it opened, with the frames Core sent for that
//     request and any durable write in the same step; stale_status.go).
//   - Setup: DeviceConfigured (a device's configured limits, capped by
//     the seeds' 4 active and 20 executors).
//   - Simulated Harness (ground truth): ExecutorCreated, ExecutorClosed
//     (successful closes only), TurnCreated, InputApplied (native order),
//     TurnSettled.
//   - Workload API calls, for linearizability: ReadTurn and SteerInput,
//     each with call and return instants; an unknown steer is open.
//   - Mark, for rare states reached.
//   - Hostile peers: HostileProbe (a forgery and its documented answer),
//     RogueConn (a rogue's connection, with the device and version it
//     claims) and HostileDurableWrite.
//
// Safety checks run inside the record methods. AfterStep(step) hands the
// violations found since the last call to the world, stamped with its step
// counter. Final(at) runs the end-of-run checks once heal, the liveness
// deadline and shutdown are past; Pending names what liveness still waits
// for so the world can stop early or report the reason. Same records in
// the same order give the same violations byte for byte: anything built
// from a map goes through sorted keys.
//
// # Checkers
//
// Each violation carries a check name:
//
//   - run_started_twice: Core sends execution_start for a run ID twice, or
//     the Harness creates a native turn for a run twice.
//   - input_delivered_twice: Core delivers an input of a run twice (also
//     across reconnects and restarts), or the Harness applies it twice.
//   - accepted_without_ground_truth: a daemon sends an accepted receipt,
//     Core records an accepted outcome or advances its cursor, before the
//     Harness applied the input; at Final, an accepted steer call that
//     returned before the native apply or without one.
//   - fabricated_terminal: Core sees done or error (on the wire or in its
//     store), or an applied cancel receipt, for a run no daemon sent it
//     for; or Core persists done or error it never decoded from the wire.
//   - cancel_receipt_overridden: after Core received an applied cancel
//     receipt, the turn's terminal state is anything but cancelled.
//   - handle_reuse: a handle starts twice, after release or expiry (the
//     deadline given at grant, whether or not the daemon noticed), on a
//     connection that did not grant it, or was never granted.
//   - stale_revision_applied: Core acts on a preparation status its
//     stream rule says to ignore (a revision not above the last one that
//     counted, another handle than the stream's first, no handle or
//     revision): in that step it sends a frame for the request or writes
//     durably (stale_status.go).
//   - capability (from the wire): an execution_prepare (selection) or
//     execution_start (final check) sent to a connection before any
//     heartbeat, whose latest declaration does not declare the Session's
//     kind available or lacks a capability RequiredCapabilities gives for
//     the Session as the client asked for it (recovery when the prepare
//     requires existing history or the Harness holds history the prepare
//     does not name; images from the start's input and steers the API
//     accepted); or a start for a request Core never prepared on that
//     connection.
//   - prepare_configuration (from the wire): an execution_prepare whose
//     configuration differs from the seed's table for its Session:
//     agent_kind, no Run input, agent_state_key, strict_resume, exactly
//     one environment binding with the exact Environment ID, agent_options
//     exactly model and system_prompt (plus model_provider and
//     harness_config when set), execution_controls (web search disabled,
//     text verbosity resolved with the default medium, programmatic tool
//     calling, json_schema output format), observe_messages as the
//     declaration's message_items, subagent flags, function tools, tool
//     search, MCP servers with frozen origins; require_existing_native_session
//     or agent_session_id for a Session that never started a Run, both at
//     once, or an agent_session_id Core never received for the Session.
//   - native_history (from the wire and ground truth): a prepare that
//     names no native session and does not require existing history
//     although the Harness created a native turn for a Run of the Session:
//     it would let a new native root replace that history.
//   - refusal_code (from the wire): a preparation_status state or code
//     outside the documented sets, rejected without a code or with an
//     unknown operation, expired with a code; a prepare whose content the
//     table refuses (invalid_configuration, unsupported_*) answered other
//     than with that code, one whose content passes refused with a content
//     code, history_unavailable for a prepare that requires no history; a
//     start naming a handle the connection never granted for the request
//     not refused unknown_preparation (or started); a steering or cancel
//     receipt code outside its set, accepted or applied with a code,
//     not_ready after the Run's started status, run_inactive for a Run
//     that started on the connection and is still live.
//   - harness_contract (world): breaches the simulated Harness saw, among
//     them a preparation with an agent option or feature the device's
//     declaration does not cover, one requiring existing history without
//     naming a native session (a new root), one resuming a native session
//     that is not the Session's, and a turn started on a new native root
//     prepared while the Session already had native history.
//   - capacity_exceeded (from the wire and ground truth, never the
//     daemon's accounting): a daemon granting an admission (revision 1 of
//     a request on a connection, republished statuses excluded) while more
//     than its active limit are active, counting every admission from its
//     grant to a terminal status or the loss of its connection (or a newer
//     connection of the device) and, for one that started a Run, until the
//     Harness settles the native turn, and an executor its Turn's
//     settlement retired until the Harness confirms its close (the seeds
//     count closing and uncertain resources until cleanup succeeds); or
//     the Harness holding more executors on a device than its executor
//     limit, counting the open ones and those being created (a native
//     Prepare called, neither created nor failed: capacity_executors.go;
//     catches a daemon that frees capacity when a close fails or stops
//     counting closing executors). Both counts can only undercount what
//     the daemon must count, so every excess is real.
//   - durable_facts: a turn's state regresses along queued < preparing <
//     running < terminal, a terminal state changes, a run's cursor moves
//     back, or a restart loses a turn, a state or a cursor.
//   - restart_outcome (wire; restart_outcome.go): a Turn Core finishes
//     while it restarts is not failed with cancel_unconfirmed,
//     delivery_unknown or event_stream_incomplete, or is not
//     cancel_unconfirmed exactly when a prompt_cancel of its Run awaited a
//     deciding receipt at the crash (whatever its stream did); mark
//     core_restart_cancel_pending.
//   - done_usage (Harness truth and wire): a daemon's done for a Run whose
//     native done carried usage does not carry exactly that usage (the
//     last running snapshot stands in only when the native done has
//     none).
//   - hostile_refusal for the rogue Core (rogue_core.go): undecodable
//     start and release answered other than invalid_start and
//     invalid_release, a start with an invalid input other than
//     invalid_start, a release under another request ID than the handle's
//     prepare other than unknown_preparation, a cancel or durable steer
//     of a Run whose native start had not returned (Harness truth:
//     StartAnswered) other than not_ready, the 257th input of a Run other
//     than input_limit (run_inactive once done), a prepare naming another
//     native session than its Session's open executor's other than
//     native_session_conflict.
//   - usage_added: Core stores a usage snapshot no daemon sent (the message
//     says when it is the sum of two sent snapshots: usage replaces, it
//     never adds).
//   - capacity_exceeded also from the Harness side alone (DeviceConfigured
//     gives the declared limits, never the daemon's accounting): more
//     native executors not confirmed closed (closing and uncertain ones
//     included) than executors_max, or more unsettled native turns than
//     active_max, on one device.
//   - done_before_receipt (wire): a daemon sends done for a run on a
//     connection where it received a prompt_steer for that run and has
//     not yet sent any prompt_steer_ack for that input.
//   - published_before_settlement (wire and Harness truth): done, or an
//     applied=true cancel receipt, sent before the Harness settled the
//     run's native turn, or before it confirmed the close of the executor
//     that settlement retired (Reusable=false; ExecutorRetired).
//   - heartbeat_snapshot (wire): Core sends execution_prepare on a
//     connection before any valid heartbeat arrived on it (a new
//     connection inherits nothing); Core sends anything on a connection
//     after an invalid heartbeat arrived on it (undecodable, a kind twice
//     or blank, an incomplete capability set), or keeps it open once
//     virtual time moved past that arrival.
//   - shutdown_report: a daemon's shutdown report (ShutdownReported)
//     claims completeness while it lists owned resources, or while the
//     device's Harness still holds an executor not confirmed closed (a
//     close pending or failed) or an unsettled native turn.
//   - receipt_send_budget (wire): a prompt_steer_ack,
//     interaction_decision_ack or preparation_status sent at t reaches
//     Core after t + the device's receipt budget + the connection's
//     one-way latency (measured from its two opens), while the daemon kept
//     that connection open past t + budget: a send that could not finish
//     within its budget must close the transport.
//   - interactions (interaction_truth.go): decision_applied_twice,
//     decision_misrouted, applied_without_native, done_before_decision,
//     interaction_after_done, resolved_without_receipt, from the Harness's
//     ground truth (InteractionAsked, DecisionCalled, DecisionAnswered),
//     the wire and Core's records (CoreInteraction); DecisionModel is the
//     porcupine model of one interaction's decision (attempts open while
//     their receipt is missing, native applies at most once, an applied
//     receipt only after one), checked by LinearizeDecisions.
//   - liveness (Final): a turn not terminal at the deadline.
//   - orphaned_resource (Final): a native turn unsettled or an executor
//     open after shutdown.
//   - linearizability: from LinearizeResult.Violation, for Illegal only.
//   - fencing_reply, fencing_in_flight, fencing_quiesced_work,
//     fencing_double_resume (fencing_wire.go): suspension replies match
//     their request's type, connection and IDs, accepted without a code;
//     at most two fencing requests in flight per connection; no new work
//     accepted by a quiesced daemon; no resume after an accepted one.
//   - transfer_in_flight, transfer_replayed, transfer_result,
//     transfer_installed_without_digest (transfer_wire.go, with the
//     simulated installer's TransferInstalled ground truth): one
//     runtime_prepare frame in flight per connection, no transfer ID on a
//     second connection, each result the expected one for its step, and
//     no completed body transfer the installer did not verify.
//   - fencing_quiesce_busy, fencing_resume_other, fencing_quiesce_closes
//     (fencing_busy.go): no quiesce accepted over open transfers, active
//     admissions or live native turns; no fence lifted by another
//     suspension's resume; nothing sent on a connection after an accepted
//     quiesce there.
//   - transfer_install_outcome, transfer_incomplete_installed,
//     prepare_during_install (transfer_install.go, with the installer's
//     TransferInstallOutcome, InstallBegan and NativePrepareCalled ground
//     truth): a commit's answer says what the installer found (completed,
//     rejected for a mismatch, failed with the command's exit code); no
//     transfer reaches the installer short of its declared bytes; no
//     native Prepare while an installation is unanswered.
//   - valid_request_refused: Core refused to create a Session whose
//     configuration the workload drew within the seeds' rules.
//   - run_event_limit: Core persisted more run events for a Turn than the
//     limit the world configured (CoreEventLimit), or failed a Turn
//     event_persistence_failed before reaching it (its store: every event
//     appended, RunEventPersisted; run_event_limit.go).
//   - accepted_without_receipt: Core recorded an input accepted, or moved
//     its cursor past it, before an accepting prompt_steer_ack naming that
//     Run and input reached it (accepted_receipt.go).
//   - usage_not_latest: a Turn ended with a usage other than the latest
//     snapshot Core received for its Run (usage_latest.go).
//   - executor_reuse: a prepare answered by a reused executor of another
//     Session, prepared with another configuration, or whose native
//     history does not fit the prepare's agent_session_id or
//     require_existing_native_session (executor_reuse.go).
//   - steer_inputs_per_run: Core admitted a steer past the 256 inputs a
//     Run takes, or refused one for that limit before 256 were admitted,
//     counted from the workload's steer calls (steer_admission.go).
//   - steer_after_cancel: Core admitted a steer of a Turn after answering
//     its cancel (steer_admission.go).
//   - engine_error_projection: the engine failure Core records for a Turn
//     (engine_error_code, engine_http_status) is not the §6.3
//     classification, written out again, of the latest error frame of its
//     Run that reached Core, read from the frame's own bytes: an unknown
//     code is unclassified and drops the status; a status is kept only
//     with connection_failed and in 100..599 (engine_errors.go).
//   - preparations_per_connection: Core holds more than 64 preparation
//     streams open on one connection, counted from its execution_prepare
//     frames and closed at the earliest sign (a terminal or rejected
//     status reaching Core, Core's execution_release, the connection
//     closing), so the count never exceeds Core's (preparations_per_conn.go).
//   - prepare_failure_cleanup: a daemon fails a preparation
//     preparation_failed while the Harness still holds the executor it
//     created for it (a failure that left its executor behind is
//     executor_cleanup_unconfirmed) (prepare_cleanup.go).
//   - capacity_gate_probe: after a connection's capacity wait, Core sent a
//     second preparation of a Turn there while its probe was unanswered
//     (capacity_probe.go).
//   - reconnect_window: Core failed a queued Turn capability_unsupported
//     at device selection while a device of the pool was still
//     reconnecting (away, without a heartbeat on its new connection, or
//     not yet declaring a kind it declared available before) within the
//     reconnect window (reconnect_window.go).
//   - suspended_selection: Core sent a Turn's execution_prepare to a device
//     with an unresolved suspension (fencing_selection.go).
//   - fencing_rollback: Core resumed a suspension without rollback although
//     no reply to its previous quiesce or resume reached it
//     (fencing_rollback.go).
//
// Timing oracles, one per timer of the documents (DocumentedTimer has the
// numbers, written out again; TimerConfigured takes a seed's own draws).
// Each knows from the wire (Wire), the Harness's ground truth and Core's
// records when a deadline passed, and asserts what must have happened by
// then and not before; a deadline is judged at the first record after it
// (or at Final), so whatever happened at the instant itself counts:
//
//   - timing_written_wait: an input whose delivery Core started (first
//     prompt_steer) without a written or accepted receipt 30 s later is
//     recorded unknown exactly then; never earlier unless Core observed a
//     reason (a refusal or outcome_unknown receipt, done or a cancel
//     receipt, its connection closing, a restart, the turn ending); never
//     accepted afterwards, in the store or through a steer call.
//   - timing_cancel_confirmation: no deciding cancel receipt 15 s after
//     the FIRST prompt_cancel (not_ready retries do not move it) finishes
//     the turn cancel_unconfirmed exactly then; earlier only after a
//     cancel_failed receipt or a connection loss.
//   - timing_connection_idle: Core closes a connection exactly 60 s after
//     its last inbound frame, and never early without a reason on the wire.
//   - timing_heartbeat_cadence: a daemon sends a heartbeat when its
//     connection opens and then every interval, never early or late.
//   - timing_native_write_budget: a native write that had not returned
//     10 s after the Harness received it gets an outcome_unknown receipt
//     exactly then, never a written one later; no outcome_unknown earlier
//     unless the write itself returned unknown.
//   - timing_receipt_send_budget: every receipt and status send carries
//     the 5 s budget.
//   - timing_admission_expiry: a handle granted at g (its first status) is
//     published expired at g + expiry if still live, never before; never
//     started at or after it; retries do not move it. A device whose
//     expiry timers come late (TimerLate) publishes expired within the
//     lag, and still never starts past the deadline.
//   - timing_settlement_wait: every cancel waiter is answered by the wait's
//     start + 10 s, cancel_failed exactly then, or earlier only after the
//     Harness failed the cancel.
//   - timing_idle_executor_expiry: an idle executor's close is called
//     exactly at its idle bound: not earlier (except shutdown or eviction
//     in the step that parks another or prepares), not later.
//   - timing_prepare_retry, timing_steer_retry, timing_cancel_retry
//     (timing_retry.go): after a retryable refusal reaches Core
//     (preparation_capacity; not_ready or busy before written; a not_ready
//     cancel receipt) the same request leaves again exactly 1 s later,
//     never earlier, and not later unless what it serves is gone or the
//     prepare waits for what Core's documents make a Turn wait for (an
//     Environment preparation still running, a workspace operation, a
//     quiesce, a full preparation stream table, a connection's capacity
//     gate); the refusal never ends the Turn.
//   - capacity_gate (capacity_gate.go): after a preparation_capacity
//     refusal, no Turn preparation leaves on that connection before its
//     wait ends (1 s doubling per consecutive refusal, at most 30 s; a
//     heartbeat of the connection ends it).
//   - timing_executor_close_retry, timing_settlement_retry
//     (timing_close_retry.go): after the n-th failed executor close or
//     unconfirmed settlement answer, the Harness receives the next call
//     for that target exactly 1 s doubling per failure, at most 30 s,
//     later; no done or applied cancel receipt leaves while the Turn's
//     settlement is unconfirmed.
//   - timing_decision_ack_wait (timing_decision_ack.go): a decision or
//     function result without a receipt 15 s after Core sent it is
//     recorded unknown exactly then; earlier only once the Turn finished,
//     the connection closed or Core crashed.
//   - timing_suspension_reply_wait (timing_suspension.go): a quiesce or
//     resume with no reply reaching Core 30 s after Core sent it is
//     recorded unknown (quiesce_unknown, resume_unknown) exactly then, in
//     Core's suspension records; earlier only once its connection closed
//     or Core restarted.
//   - harness_contract also names a daemon that makes a second durable
//     write on a Run while one is still out (one input per Run in flight:
//     a later input meets busy, even after the first passed its budget).
//
// TimersDecided counts, per timer, the outcomes its firing produced as
// observed (an input unknown exactly 30 s after delivery, a handle expired
// at its deadline, ...); campaigns report the seeds each timer decided in.
//
// Hostile peers (hostile.go, hostile_conns.go) are judged from the wire
// (WireEvent, Forged for frames a proxy put there; RogueNode's traffic is
// a rogue daemon's) against HostileProbe records, each naming a forgery,
// the attacked machine and the answer the seeds document for it:
//
//   - decision_conflict_after_apply (wire; decision_conflict.go): a
//     decision with other content for a permission request the daemon
//     applied on the connection, delivered before it sent the Run's done,
//     is answered other than decision_conflict (applied, or not_pending
//     while the Turn runs); mark decision_changed_while_live.
//   - hostile_refusal: the attacked machine answered a forgery with
//     another code or state than documented (§3.3 rejections such as
//     unknown_preparation, invalid_start, unknown_executor,
//     preparation_not_ready, run_conflict, start_conflict,
//     request_conflict, invalid_release, invalid_request,
//     invalid_configuration, unsupported_configuration,
//     history_unavailable; released or expired for its own admission,
//     or the republished failed status when it failed before the release;
//     §3.5 and §3.7 acks run_inactive, invalid_input with the input_id not
//     echoed, input_conflict), or never answered one it received on a
//     connection still open; or a daemon republished a revision of a handle
//     with other content, or sent a lower revision after a higher one.
//   - hostile_effect: a refused forgery changed something: the Harness
//     created a native Turn for a forged Run, Core wrote to its store while
//     stepping a rogue's frame or a forgery it must ignore (reported by the
//     world with HostileDurableWrite), Core sent a frame naming a forged
//     identity or sent anything on a rogue connection, or a machine sent
//     an ID over 128 bytes or echoed part of an over-long one.
//   - hostile_connection: Core kept a connection it must close (an invalid
//     heartbeat, an incompatible version at the upgrade, a silent peer past
//     its idle timeout) or closed one it must keep (after a valid
//     near-limit heartbeat, an undecodable non-heartbeat frame or a
//     foreign frame); and, for every device, once Core stepped a new
//     connection's open at most one connection of the device is open at
//     Core, never an older one kept in place of a newer one unless the
//     newer was refused as incompatible_version. A connection a zombie
//     Core kept at a takeover is the old process's, not Core's
//     (failover.go).
//
// # Failover
//
// A takeover (the world's core_zombie fault) moves the store's lease to
// the next epoch: a new Core restarts from the durable records while the
// old one, a zombie, keeps its connections for a while. The shell commits
// each batch with its Core's epoch before applying the batch's effects,
// the store refuses a stale epoch, and a refused commit stops the process
// with the effects withheld; a batch that wrote nothing commits nothing.
// So a zombie frame after the takeover is one of a batch that decided
// nothing new (its decision was committed before the takeover), and none
// leaves once a commit of the zombie was refused (failover.go):
//
//   - failover_stale_commit: the store made a write durable carrying an
//     epoch other than the lease's current one (the store's ground truth:
//     the epoch each durable write's commit carried).
//   - failover_zombie_frame: Core's end of a connection a zombie kept put
//     a frame on the wire after the store refused that zombie's commit or
//     after the zombie stopped (the network tap).
//
// No Run starts twice across the two Cores: run_started_twice judges
// every execution_start on the wire and every native start, whichever
// Core sent it.
//
// Each probe answered as documented counts as a refusal of its action
// (HostileRefusals, TakeHostileRefusals) and a mark HostileMark(action).
//
// # Linearizability
//
// History turns the API records into porcupine operations for one
// combined Model that dispatches on the operation kind. Partitions are
// per session and turn ("turn s/t" and "inputs s/t", one run per turn in
// practice):
//
//   - Turn state. Reads return a public state. The model keeps the highest
//     rank read and the terminal state read: a read may not return a lower
//     rank, and after a terminal read every read returns the same terminal.
//     Ground truth enters as truth operations: each native settlement of
//     the turn's runs, open from the settlement instant to the horizon, or
//     "none" over the whole history when no run became a native turn. A
//     terminal read needs agreeing truth already linearized: completed
//     needs a completed native turn, cancelled a cancelled one or none;
//     failed is an observation outcome and agrees with anything.
//   - Input delivery. The Harness's applied order, restricted to inputs
//     some steer named, is the log. The model counts claimed log entries:
//     accepted claims the next entry (or names one already claimed, an
//     idempotent retry); unknown is open until the horizon and claims the
//     next entry if it is its input, is a no-op if its input is not ahead
//     in the log, and otherwise must wait; rejected claims nothing. An end
//     operation at the horizon requires the whole log claimed, so an input
//     applied natively whose steers were all rejected is Illegal, as is an
//     accepted input never applied or applied out of the call order.
//
// Linearize checks with a wall-clock timeout (LinearizeTimeoutDefault,
// 1s, for the whole set of partitions) inside porcupine. Unknown is its
// own result: Passed is false and Violation reports nothing, so callers
// list it separately. On Illegal, Illegal names the partitions without a
// full linearization and, given LinearizeOptions.HTML, porcupine's
// visualization is written there with each FaultEvent as an annotation.
// The verdict is deterministic for Ok and Illegal; the HTML bytes may
// differ between runs because porcupine orders equal-length partial
// linearizations arbitrarily.
//
// # Marks
//
// Mark constants name rare states the world must reach sometimes;
// ExpectedMarks lists them. MarkTally aggregates Ledger.Marks over the
// seeds of a campaign (mergeable across shards), prints hit counts and
// fails, through Verdict, a campaign of at least CampaignSeedsMin seeds
// that never hit an expected mark.
//
// Limit marks record that a seed reached a documented limit; the world's
// workload shapes (sim/world, drawn per seed) drive the machines there.
// They are expected marks too (each was hit in every 1,000-seed window
// tried; a campaign's summary prints their hit counts): admission_records_full (a 65th
// admission on one connection), steer_input_limit (Core refuses a steer:
// its Run holds 256 inputs), steer_after_unknown (a workload steer call
// after Core recorded an earlier input of the Turn unknown),
// usage_from_snapshot (a native done without usage after usage snapshots),
// capacity_full_of_executors (preparation_capacity while the Harness holds
// executors_max executors), kind_availability_changed (a heartbeat changes
// a kind's availability), receipt_budget_closed (a daemon closed a
// connection on a send over its budget), idle_eviction_judged (a prepare
// evicted an idle executor and idle_eviction judged the order),
// cancel_outcome_usage_newer (an applied cancel's outcome reached Core
// after the Run's done, with newer usage: usage_not_latest judges that
// Core keeps it). run_event_limit_reached (a Turn failed at its run-event limit) and
// resume_replaced_executor (a resume closed an idle executor without
// native identity) are marks but not expected.
package check
