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
//   - liveness (Final): a turn not terminal at the deadline.
//   - orphaned_resource (Final): a native turn unsettled or an executor
//     open after shutdown.
//   - linearizability: from LinearizeResult.Violation, for Illegal only.
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
// tried; the README gives their rates): admission_records_full (a 65th
// admission on one connection), steer_input_limit (Core refuses a steer:
// its Run holds 256 inputs), steer_after_unknown (a workload steer call
// after Core recorded an earlier input of the Turn unknown),
// usage_from_snapshot (a native done without usage after usage snapshots),
// capacity_full_of_executors (preparation_capacity while the Harness holds
// executors_max executors), kind_availability_changed (a heartbeat changes
// a kind's availability), receipt_budget_closed (a daemon closed a
// connection on a send over its budget), idle_eviction_judged (a prepare
// evicted an idle executor and idle_eviction judged the order).
package check
