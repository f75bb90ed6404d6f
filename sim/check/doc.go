// Package check observes a simulated run and judges it. It never steers:
// the world calls plain record methods on a Ledger and reads back
// violations, marks and linearizability results. It imports only wire,
// linearize, the standard library and porcupine.
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
// The world translates what it knows into records, each method's doc
// saying what it records: Core's effects and store, the API client's
// calls and answers (with call and return instants for linearizability),
// every network event decoded once (Wire), daemon effects, setup
// (DeviceConfigured, capped by the seeds' 4 active and 20 executors), the
// simulated Harness's ground truth, hostile peers and rare states (Mark).
//
// Safety checks run inside the record methods; AfterStep(step) hands the
// violations found since the last call to the world, stamped with its step
// counter. Final(at) runs the end-of-run checks; Pending names what
// liveness still waits for. Same records in the same order give the same
// violations byte for byte: anything built from a map goes through sorted
// keys.
//
// Facts several rules read are learned once. The connection index
// (conn_index.go), learned by the first wire observer, keeps per
// connection what its frames showed (grants, first prepares, done and
// starting sent, the daemon on it); the executor index (executor_index.go)
// keeps each executor's life as executor_reuse, idle_eviction and the idle
// timer see it.
//
// # Checkers
//
// Each violation carries the name of a rule it breaks. Rules is the
// registry, in report order, and the only statement of each rule; by
// checker file:
//
//   - failover.go: failover_stale_commit failover_zombie_frame
//   - core_records.go: run_started_twice input_delivered_twice
//     accepted_without_ground_truth fabricated_terminal
//     cancel_receipt_overridden durable_facts usage_added
//   - accepted_receipt.go: accepted_without_receipt
//   - daemon_records.go: handle_reuse
//   - stale_status.go: stale_revision_applied
//   - frames_core.go: capability
//   - capability_refusal.go: capability_unsupported_justified
//   - engine_admission.go: engine_admission engine_dispatch
//     engine_catalog_declaration
//   - engine_result_images.go: engine_result_images
//   - capacity_wire.go: capacity_exceeded
//   - restart_outcome.go: restart_outcome
//   - usage_latest.go: usage_not_latest
//   - decision_conflict.go: decision_conflict_after_apply
//   - hostile.go: hostile_refusal hostile_effect
//   - hostile_conns.go: hostile_connection
//   - sim/world/world.go: wire_encode harness_contract
//   - prepare_rules.go: prepare_configuration native_history
//   - refusal_codes.go: refusal_code
//   - teardown_order.go: done_before_receipt published_before_settlement
//   - heartbeat_snapshot.go: heartbeat_snapshot
//   - shutdown_report.go: shutdown_report
//   - wire_send_budget.go: receipt_send_budget timing_receipt_send_budget
//   - idle_eviction.go: idle_eviction
//   - executor_reuse.go: executor_reuse
//   - executor_connection.go: executor_connection_bound
//   - api_records.go: valid_request_refused
//   - run_event_limit.go: run_event_limit
//   - subscribers.go: subscriber_stream
//   - steer_admission.go: steer_inputs_per_run steer_after_cancel
//   - done_usage.go: done_usage
//   - wire_cancel_codes.go: wire_code_sets
//   - prepare_cleanup.go: prepare_failure_cleanup
//   - capacity_gate.go: capacity_gate_probe capacity_gate
//   - reconnect_window.go: reconnect_window
//   - fencing_selection.go: suspended_selection
//   - fencing_rollback.go: fencing_rollback
//   - timing_admission.go: timing_admission_expiry
//   - timing_cancel.go: timing_cancel_confirmation
//   - timing_retry.go: timing_cancel_retry timing_prepare_retry
//     timing_steer_retry
//   - timing_conn.go: timing_connection_idle timing_heartbeat_cadence
//   - timing_decision_ack.go: timing_decision_ack_wait
//   - timing_suspension.go: timing_suspension_reply_wait
//   - timing_close_retry.go: timing_executor_close_retry
//     timing_settlement_retry
//   - timing_idle.go: timing_idle_executor_expiry shutdown_closes_idle
//   - timing_write.go: timing_native_write_budget
//   - timing_workspace_daemon.go: timing_reader_close_retry
//     timing_workspace_transfer_expiry
//   - timing_settlement.go: timing_settlement_wait
//   - timing_workspace.go: timing_workspace_export_wait
//     timing_workspace_read_wait timing_workspace_write_wait
//   - timing_written.go: timing_written_wait
//   - interaction_truth.go: decision_applied_twice decision_misrouted
//     resolved_without_receipt
//   - interaction_wire.go: applied_without_native done_before_decision
//     interaction_after_done
//   - decision_answers.go: decision_repeat_answer
//     decision_refused_before_native decision_sent_lawful
//     decision_unknown_kept
//   - workspace_records.go: workspace_truth timing_workspace
//   - workspace_wire.go: workspace_mutation_order workspace_one_per_conn
//     read_only_started
//   - workspace_export.go: workspace_export workspace_export_stopped
//     workspace_export_cancel_budget
//   - workspace_runtime.go: workspace_read_environment
//     workspace_read_after_unknown workspace_read_unsupported
//     workspace_write_exclusion workspace_declaration
//   - workspace_settlement.go: workspace_write_settlement
//   - workspace_receipts.go: workspace_write_receipt
//   - workspace_payloads.go: workspace_result_fields
//     workspace_transfer_dropped workspace_export_order
//   - fencing_wire.go: fencing_reply fencing_in_flight fencing_quiesced_work
//     fencing_double_resume
//   - fencing_busy.go: fencing_quiesce_busy fencing_resume_other
//     fencing_quiesce_closes
//   - fencing_once.go: fencing_one_suspension
//   - transfer_wire.go: transfer_in_flight transfer_connection_held
//     transfer_replayed transfer_result transfer_installed_without_digest
//   - transfer_install.go: transfer_incomplete_installed
//     transfer_install_outcome prepare_during_install
//   - transfer_outcome.go: transfer_staged_in_order preparation_outcome
//   - prepare_during_environment_preparation.go:
//     prepare_during_environment_preparation
//   - executor_capacity.go: executor_capacity
//   - timing_transfer.go: timing_transfer_exchange
//   - timing_prepare_expiry.go: timing_prepare_transfer_expiry
//   - engine_errors.go: engine_error_projection
//   - subagents.go: subagent_record
//   - preparations_per_conn.go: preparations_per_connection
//   - sim/world/machine_panic.go: panic
//   - harness_records.go: liveness orphaned_resource
//   - sim/linearize/check.go: linearizability
//
// Timing oracles, one per timer of the documents (DocumentedTimer has the
// numbers; TimerConfigured takes a seed's own draws), judge a deadline at
// the first record after it (or at Final), so whatever happened at the
// instant itself counts. TimersDecided counts the outcomes each timer's
// firing produced (an input unknown exactly 30 s after delivery, ...).
//
// # Linearizability
//
// The porcupine engine is package linearize (sim/linearize): its models,
// its partitioned check with a wall-clock timeout (Unknown is neither
// passed nor a violation) and the HTML of an illegal partition. This
// package turns its records into linearize's operations: History (the
// API's Turn reads and steers with the Harness's settlements and applied
// inputs, and the workspace files, workspace_register.go) for
// linearize.Check, DecisionHistory for linearize's decision model.
// LinearizeViolation and LinearizeDecisions report an Illegal verdict as
// a violation of rule linearizability, naming the partitions without a
// linearization. The turn states, native settlements and input outcomes
// the records carry (TurnQueued, NativeCompleted, InputAccepted, ...) are
// linearize's constants, so its models judge the very names recorded.
//
// # Marks
//
// Mark constants name rare states the world must reach sometimes
// (ExpectedMarks); sim/campaign's MarkTally aggregates them over a
// campaign's seeds and fails a campaign of 1,000 seeds that never hits
// one. Limit marks (limit_marks.go) record a documented limit reached,
// such as a 65th admission on one connection or a steer refused because
// its Run holds 256 inputs; they judge nothing.
package check
