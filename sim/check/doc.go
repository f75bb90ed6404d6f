// Package check observes a simulated run and judges it. It never steers:
// the world calls plain record methods on a Ledger and reads back
// violations, marks and linearizability results. It imports only wire,
// the standard library and porcupine.
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
//     CancelAckObserved, UsagePersisted, CapabilityChecked, DispatchedTo,
//     CoreRestarted (with the facts reloaded from the store).
//   - Daemons (effects): HandleGranted (with the admission deadline),
//     HandleStarted, HandleReleased, HandleExpired, RevisionApplied (Core
//     applying a preparation_status revision of a handle), CapacitySample,
//     ReceiptSent, CancelAckSent, DoneSent, ErrorSent, UsageSent.
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
//   - stale_revision_applied: Core applies a revision of a handle not
//     greater than the last one applied.
//   - capability: a turn dispatched to a device without a selection check,
//     without a final check, or whose declaration lacks a required
//     capability at the latest check. The world supplies the required
//     names from the turn's configuration.
//   - capacity_exceeded: a sample over a per-kind limit, or owning more
//     than the sum of limits counting closing and uncertain resources; or
//     the Harness holding more live executors on a device than that sum
//     (catches a daemon that frees capacity when a close fails).
//   - durable_facts: a turn's state regresses along queued < preparing <
//     running < terminal, a terminal state changes, a run's cursor moves
//     back, or a restart loses a turn, a state or a cursor.
//   - usage_added: Core stores a usage snapshot no daemon sent (the message
//     says when it is the sum of two sent snapshots: usage replaces, it
//     never adds).
//   - liveness (Final): a turn not terminal at the deadline.
//   - orphaned_resource (Final): a native turn unsettled or an executor
//     open after shutdown.
//   - linearizability: from LinearizeResult.Violation, for Illegal only.
//
// Hostile peers (hostile.go, hostile_conns.go) are judged from the wire
// (WireEvent, Forged for frames a proxy put there; RogueNode's traffic is
// a rogue daemon's) against HostileProbe records, each naming a forgery,
// the attacked machine and the answer the seeds document for it:
//
//   - hostile_refusal: the attacked machine answered a forgery with
//     another code or state than documented (§3.3 rejections such as
//     unknown_preparation, invalid_start, unknown_executor,
//     preparation_not_ready, run_conflict, start_conflict,
//     request_conflict, invalid_release, invalid_request,
//     invalid_configuration, unsupported_configuration,
//     history_unavailable; released or expired for its own admission;
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
//     newer was refused as incompatible_version.
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
package check
