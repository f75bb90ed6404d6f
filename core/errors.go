package core

import (
	"errors"

	"github.com/turnstile-sim/turnstile/wire"
)

// Named API errors. A call answered with one of them changed no durable
// state.
var (
	ErrInvalidConfig         = errors.New("core: invalid agent configuration")
	ErrInvalidInput          = errors.New("core: invalid message input")
	ErrUnknownSession        = errors.New("core: unknown session")
	ErrUnknownTurn           = errors.New("core: unknown turn")
	ErrTurnTerminal          = errors.New("core: turn already terminal")
	ErrCancelPending         = errors.New("core: turn cancellation pending")
	ErrSessionLimit          = errors.New("core: session limit reached")
	ErrQueueFull             = errors.New("core: session turn queue full")
	ErrInputLimit            = errors.New("core: active input limit reached")
	ErrCapabilityUnsupported = errors.New("core: capability not declared by the admitted device")
	// ErrSessionUnrecoverable: the Session started Turns without a
	// recorded native session ID (a Core restart cut them short), so its
	// next Turn needs native_session_recovery, and no device of the pool
	// that may serve it declares that capability for its kind.
	ErrSessionUnrecoverable = errors.New("core: session cannot continue: its native session cannot be recovered")
	ErrSubscriberLimit      = errors.New("core: subscriber limit reached")
	ErrDuplicateSubscriber  = errors.New("core: subscriber ID already in use")
	ErrBadLimit             = errors.New("core: list limit out of range")
	ErrBadCursor            = errors.New("core: list cursor is not a turn of the session")
)

// Observation errors close a SubscribeDurable subscription when observation
// was lost. They say nothing about the native outcome.
var (
	ErrDisconnected       = errors.New("core: observation lost: connection closed")
	ErrSubscriberOverflow = errors.New("core: observation lost: subscriber overflow")
	ErrEventLimit         = errors.New("core: observation stopped: run event limit reached")
)

// Core Turn failure codes (the public projection; not wire codes).
const (
	// CodeDeliveryUnknown: execution_start was sent but its transfer was
	// never confirmed; the native effect is unknown.
	CodeDeliveryUnknown = "delivery_unknown"
	// CodeEventStreamIncomplete: the Run subscription broke before done;
	// the native effect is unknown.
	CodeEventStreamIncomplete = "event_stream_incomplete"
	// CodeEventPersistenceFailed: Core could not persist the Run's events
	// (the per-Turn event limit); the native effect is unknown.
	CodeEventPersistenceFailed = "event_persistence_failed"
	// CodeEngineFailed: the stream carried `error` and then `done`.
	CodeEngineFailed = "engine_failed"
	// CodeCancelUnconfirmed: no deciding cancel receipt by the cancel
	// deadline, the first attempt plus CancelConfirmTimeout (or before
	// observation was lost).
	CodeCancelUnconfirmed = "cancel_unconfirmed"
	// CodeCancelOutcomeUnavailable: an applied cancel receipt without its
	// continuity snapshot.
	CodeCancelOutcomeUnavailable = "cancel_outcome_unavailable"
	// CodeInputOutcomeUnknown: an active input got no `written` in time.
	CodeInputOutcomeUnknown = "input_outcome_unknown"
	// CodePreparationStartFailed: the Runtime explicitly refused or failed
	// the preparation or the start (ErrorDetail holds its code).
	CodePreparationStartFailed = "preparation_start_failed"
	// CodeCapabilityUnsupported: the selected device (at selection or at
	// the final check) lacks a required capability (ErrorDetail names it).
	CodeCapabilityUnsupported = "capability_unsupported"
	// codeInputPrefix prefixes a steering receipt code that fails the Turn.
	codeInputPrefix = "input_"
)

// Wire codes Core reads.
const (
	codePreparationCapacity = wire.PrepPreparationCapacity
	codeExecutorUnavailable = wire.PrepExecutorUnavailable
	steerNotReady           = wire.SteerNotReady
	steerBusy               = wire.SteerBusy
	steerInFlight           = wire.SteerInFlight
	webSearchDisabled       = "disabled"
	cancelDeliveryPrefix    = "cancel:"
)

// classifyEngineError normalises an error frame's code and status (the
// wire classification: unknown codes become unclassified, the status is
// kept only with connection_failed in 100..599).
func classifyEngineError(e wire.RunError) (string, int) {
	return wire.ClassifyEngineError(e.Code, e.HTTPStatus)
}
