// Package check observes a simulated run and judges it. It never steers:
// the world calls plain record methods on a Ledger and reads back
// violations, marks and linearizability results.
//
// # Time
//
// Every record carries virtual time as int64 nanoseconds on one monotonic
// scale the caller chooses (the virtual clock's UnixNano works). The
// package never reads a clock. Violation renders times as durations.
//
// # Ledger
//
// The world translates machine effects and Harness ground truth into
// records, grouped by who knows the fact:
//
//   - Core (effects and store): TurnSubmitted, RunStartSent,
//     InputDelivered, InputOutcome, CursorAdvanced, TurnState,
//     DoneObserved, ErrorObserved, CancelAckObserved, UsagePersisted,
//     CapabilityChecked, DispatchedTo, CoreRestarted.
//   - Daemons (effects): HandleGranted, HandleStarted, HandleReleased,
//     HandleExpired, RevisionApplied (Core applying a preparation_status
//     revision), CapacitySample, ReceiptSent, CancelAckSent, DoneSent,
//     ErrorSent, UsageSent.
//   - Simulated Harness (ground truth): ExecutorCreated, ExecutorClosed,
//     TurnCreated, InputApplied (in native order), TurnSettled.
//   - Workload API calls, for linearizability: ReadTurn and SteerInput,
//     each with call and return instants.
//
// Safety checks run inside the record methods; AfterStep(step) hands the
// new violations to the world stamped with its step counter. Final runs
// the end-of-run checks and Pending names what liveness still waits for.
// Same records in the same order give the same violations, byte for byte:
// output built from maps goes through sorted keys.
package check
