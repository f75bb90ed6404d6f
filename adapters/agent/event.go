package agent

import (
	"fmt"

	"github.com/turnstile-sim/turnstile/wire"
)

// Event is one native observation of a Turn, in the Turn's output order.
// Payload is a run-output payload value of package wire (not a pointer):
// Delta, Thinking, OutputMessage, ToolCall, UsageUpdate, RunError, Done,
// PermissionRequest, PermissionCancel, UserChoicePrompt or FunctionCall.
//
// Usage payloads are complete cumulative snapshots that replace earlier
// ones; a RunError is followed by a Done; Done is the Turn's single
// terminal event and nothing follows it.
//
// A PermissionCancel withdraws the permission request named by
// InteractionID (its payload has no members); no other payload uses
// InteractionID.
type Event struct {
	RunID         string
	Payload       wire.Payload
	InteractionID string
}

// Terminal reports whether the event is the Turn's Done.
func (e Event) Terminal() bool {
	_, ok := e.Payload.(wire.Done)
	return ok
}

// Validate checks the Run ID, that Payload is a run-output payload and
// that the payload satisfies its wire validator.
func (e Event) Validate() error {
	if e.RunID == "" {
		return fmt.Errorf("%w: event without run ID", ErrInvalidRequest)
	}
	if _, ok := e.Payload.(wire.PermissionCancel); ok != (e.InteractionID != "") {
		return fmt.Errorf("%w: an interaction ID goes with a permission_cancel only", ErrInvalidRequest)
	}
	switch e.Payload.(type) {
	case wire.Delta, wire.Thinking, wire.OutputMessage, wire.ToolCall,
		wire.UsageUpdate, wire.RunError, wire.Done, wire.PermissionRequest,
		wire.PermissionCancel, wire.UserChoicePrompt, wire.FunctionCall:
		if err := wire.Validate(e.Payload); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrInvalidRequest, e.Payload.MessageType(), err)
		}
		return nil
	case nil:
		return fmt.Errorf("%w: event without payload", ErrInvalidRequest)
	default:
		return fmt.Errorf("%w: %q is not a run output", ErrInvalidRequest, e.Payload.MessageType())
	}
}
