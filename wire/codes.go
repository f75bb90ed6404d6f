package wire

// Preparation error codes carried by preparation_status (wire-reference
// §3.3 and §6.4). They are the Runtime's set; PreparationStatus.Validate
// accepts only these.
const (
	PrepInvalidConfiguration       = "invalid_configuration"
	PrepResourceUnavailable        = "resource_unavailable"
	PrepUnsupportedPreparation     = "unsupported_preparation"
	PrepUnsupportedConfiguration   = "unsupported_configuration"
	PrepUnsupportedReadPreparation = "unsupported_read_preparation"
	PrepRequestConflict            = "request_conflict"
	PrepPreparationCapacity        = "preparation_capacity"
	PrepSessionBindingConflict     = "session_binding_conflict"
	PrepConfigurationConflict      = "configuration_conflict"
	PrepExecutorCleanupUnconfirmed = "executor_cleanup_unconfirmed"
	PrepNativeSessionConflict      = "native_session_conflict"
	PrepHistoryUnavailable         = "history_unavailable"
	PrepExecutorCapacity           = "executor_capacity"
	PrepPreparationFailed          = "preparation_failed"
	PrepCleanupUnconfirmed         = "cleanup_unconfirmed"
	PrepStatusDeliveryFailed       = "status_delivery_failed"
	PrepConnectionClosed           = "connection_closed"
	PrepInvalidRequest             = "invalid_request"
	PrepInvalidStart               = "invalid_start"
	PrepUnknownPreparation         = "unknown_preparation"
	PrepReadOnlyPreparation        = "read_only_preparation"
	PrepUnknownExecutor            = "unknown_executor"
	PrepStartConflict              = "start_conflict"
	PrepPreparationNotReady        = "preparation_not_ready"
	PrepRunConflict                = "run_conflict"
	PrepExecutorUnavailable        = "executor_unavailable"
	PrepStartCancelled             = "start_cancelled"
	PrepInvalidRelease             = "invalid_release"
)

// PreparationErrorCodes lists every preparation error code.
var PreparationErrorCodes = []string{
	PrepInvalidConfiguration, PrepResourceUnavailable, PrepUnsupportedPreparation,
	PrepUnsupportedConfiguration, PrepUnsupportedReadPreparation, PrepRequestConflict,
	PrepPreparationCapacity, PrepSessionBindingConflict, PrepConfigurationConflict,
	PrepExecutorCleanupUnconfirmed, PrepNativeSessionConflict, PrepHistoryUnavailable,
	PrepExecutorCapacity, PrepPreparationFailed, PrepCleanupUnconfirmed,
	PrepStatusDeliveryFailed, PrepConnectionClosed, PrepInvalidRequest,
	PrepInvalidStart, PrepUnknownPreparation, PrepReadOnlyPreparation,
	PrepUnknownExecutor, PrepStartConflict, PrepPreparationNotReady,
	PrepRunConflict, PrepExecutorUnavailable, PrepStartCancelled, PrepInvalidRelease,
}

// PreparationStates lists the states of preparation_status.
var PreparationStates = []string{
	StatePreparing, StateReady, StateStarting, StateStarted,
	StateReleased, StateExpired, StateFailed, StateRejected,
}

// TerminalState reports whether a preparation state closes its stream.
func TerminalState(state string) bool {
	return oneOf(state, StateStarted, StateReleased, StateExpired, StateFailed)
}

// Steering ack codes of prompt_steer_ack (wire-reference §3.7).
const (
	SteerInvalidInput      = "invalid_input"
	SteerRunInactive       = "run_inactive"
	SteerInputConflict     = "input_conflict"
	SteerInputLimit        = "input_limit"
	SteerNotReady          = "not_ready"
	SteerUnsupported       = "unsupported"
	SteerBusy              = "busy"
	SteerInFlight          = "in_flight"
	SteerContractViolation = "contract_violation"
	SteerRejected          = "rejected"
	SteerOutcomeUnknown    = "outcome_unknown"
)

// SteerAckCodes lists every steering ack code.
var SteerAckCodes = []string{
	SteerInvalidInput, SteerRunInactive, SteerInputConflict, SteerInputLimit,
	SteerNotReady, SteerUnsupported, SteerBusy, SteerInFlight,
	SteerContractViolation, SteerRejected, SteerOutcomeUnknown,
}

// Interaction and function-result ack codes (wire-reference §3.6, §3.8).
const (
	AckNotPending        = "not_pending"
	AckNotReady          = "not_ready"
	AckUnsupported       = "unsupported"
	AckContractViolation = "contract_violation"
	AckRuntimeError      = "runtime_error"
	AckDecisionConflict  = "decision_conflict"
	AckInvalidResult     = "invalid_result"
)

// InteractionAckCodes lists the decision and function-result ack codes.
var InteractionAckCodes = []string{
	AckNotPending, AckNotReady, AckUnsupported, AckContractViolation,
	AckRuntimeError, AckDecisionConflict, AckInvalidResult,
}

// Cancel ack codes (prompt_cancel answered by interaction_decision_ack).
const (
	CancelRunInactive = "run_inactive"
	CancelNotReady    = "not_ready"
	CancelFailed      = "cancel_failed"
)

// CancelAckCodes lists the cancel ack codes.
var CancelAckCodes = []string{CancelRunInactive, CancelNotReady, CancelFailed}

// Outcomes of transfer, workspace and export results.
const (
	OutcomeReady     = "ready"
	OutcomeReceived  = "received"
	OutcomeCompleted = "completed"
	OutcomeRejected  = "rejected"
	OutcomeFailed    = "failed"
	OutcomeUnknown   = "unknown"
	OutcomeChunk     = "chunk"
)

// Transfer steps.
const (
	StepBegin  = "begin"
	StepChunk  = "chunk"
	StepCommit = "commit"
	StepNext   = "next"
	StepCancel = "cancel"
)

// runtime_prepare result codes (wire-reference §3.2).
const (
	TransferInvalidRequest  = "invalid_request"
	TransferResourceUnavail = "resource_unavailable"
	TransferCapacity        = "runtime_preparation_capacity"
	TransferUnsupported     = "runtime_preparation_unsupported"
	TransferRejected        = "runtime_preparation_rejected"
	TransferFailed          = "runtime_preparation_failed"
	TransferUnconfirmed     = "runtime_preparation_unconfirmed"
)

// TransferRejectedCodes lists the codes of a rejected runtime_prepare step.
var TransferRejectedCodes = []string{
	TransferInvalidRequest, TransferResourceUnavail, TransferCapacity,
	TransferUnsupported, TransferRejected,
}

// Workspace read codes (wire-reference §3.9).
const (
	ReadInvalidRequest   = "invalid_request"
	ReadResourceUnavail  = "resource_unavailable"
	ReadCapacity         = "read_capacity"
	ReadUnsupported      = "read_unsupported"
	ReadNotFound         = "not_found"
	ReadPermissionDenied = "permission_denied"
	ReadNotDirectory     = "not_directory"
	ReadUnconfirmed      = "read_unconfirmed"
)

// ReadRejectedCodes lists the codes of a rejected byte read (directory
// reads add ReadNotDirectory).
var ReadRejectedCodes = []string{
	ReadInvalidRequest, ReadResourceUnavail, ReadCapacity,
	ReadUnsupported, ReadNotFound, ReadPermissionDenied,
}

// Workspace write codes and rejection reasons (wire-reference §3.10).
const (
	WriteInvalidRequest  = "invalid_request"
	WriteResourceUnavail = "resource_unavailable"
	WriteCapacity        = "write_capacity"
	WriteUnsupported     = "write_unsupported"
	WriteRejected        = "write_rejected"
	WriteUnconfirmed     = "write_unconfirmed"

	WriteReasonDestinationDirectory = "destination_directory"
	WriteReasonUnsafeDestination    = "unsafe_destination"
)

// WriteRejectedCodes lists the codes of a rejected workspace write step.
var WriteRejectedCodes = []string{
	WriteInvalidRequest, WriteResourceUnavail, WriteCapacity, WriteUnsupported, WriteRejected,
}

// Workspace read operations and directory entry kinds.
const (
	ReadOperationBytes     = ""
	ReadOperationDirectory = "directory"

	EntryFile      = "file"
	EntryDirectory = "directory"
	EntrySymlink   = "symlink"
	EntryOther     = "other"
)
