package daemon

// Error codes the Runtime puts on the wire (wire-reference §3.3, §3.5,
// §3.7, §6.4). Defined here until the wire package carries them.
const (
	// preparation_status error codes
	CodeInvalidConfiguration       = "invalid_configuration"
	CodeResourceUnavailable        = "resource_unavailable"
	CodeUnsupportedPreparation     = "unsupported_preparation"
	CodeUnsupportedConfiguration   = "unsupported_configuration"
	CodeUnsupportedReadPreparation = "unsupported_read_preparation"
	CodeRequestConflict            = "request_conflict"
	CodePreparationCapacity        = "preparation_capacity"
	CodeConfigurationConflict      = "configuration_conflict"
	CodeExecutorCleanupUnconfirmed = "executor_cleanup_unconfirmed"
	CodeNativeSessionConflict      = "native_session_conflict"
	CodeHistoryUnavailable         = "history_unavailable"
	// CodeExecutorCapacity: a new executor is needed while the table
	// holds ExecutorsMax executors, none of them being cleaned up (the
	// executor limit refuses; a table cleanup occupies answers
	// CodePreparationCapacity, the code Core retries).
	CodeExecutorCapacity    = "executor_capacity"
	CodePreparationFailed   = "preparation_failed"
	CodeConnectionClosed    = "connection_closed"
	CodeInvalidRequest      = "invalid_request"
	CodeInvalidStart        = "invalid_start"
	CodeUnknownPreparation  = "unknown_preparation"
	CodeUnknownExecutor     = "unknown_executor"
	CodeStartConflict       = "start_conflict"
	CodePreparationNotReady = "preparation_not_ready"
	CodeRunConflict         = "run_conflict"
	CodeExecutorUnavailable = "executor_unavailable"
	CodeInvalidRelease      = "invalid_release"

	// interaction_decision_ack codes of prompt_cancel
	CodeRunInactive  = "run_inactive"
	CodeNotReady     = "not_ready"
	CodeCancelFailed = "cancel_failed"

	// prompt_steer_ack codes
	CodeInvalidInput   = "invalid_input"
	CodeInputConflict  = "input_conflict"
	CodeInputLimit     = "input_limit"
	CodeUnsupported    = "unsupported"
	CodeBusy           = "busy"
	CodeInFlight       = "in_flight"
	CodeRejected       = "rejected"
	CodeOutcomeUnknown = "outcome_unknown"
)
