package agent

import (
	"fmt"

	"github.com/turnstile-sim/turnstile/wire"
)

// Event is one native observation of a Turn, in the Turn's output order.
// Payload is a run-output payload value of package wire (not a pointer):
// Delta, Thinking, OutputMessage, ToolCall, UsageUpdate, RunError, Done,
// PermissionRequest, PermissionCancel, UserChoicePrompt or FunctionCall,
// or, from an adapter that declares subagent_observations, one of the
// subagent observations SubagentIdentity, SubagentLifecycle, SubagentTurn
// and SubagentItem (ValidateFor).
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
		wire.PermissionCancel, wire.UserChoicePrompt, wire.FunctionCall,
		wire.SubagentIdentity, wire.SubagentLifecycle, wire.SubagentTurn, wire.SubagentItem:
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

// SubagentObservation reports whether p is one of the subagent
// observations (subagent_identity, subagent_lifecycle, subagent_turn,
// subagent_item).
func SubagentObservation(p wire.Payload) bool {
	switch p.(type) {
	case wire.SubagentIdentity, wire.SubagentLifecycle, wire.SubagentTurn, wire.SubagentItem:
		return true
	}
	return false
}

// ValidateFor is Validate for an adapter with declaration caps: a
// subagent observation from an adapter that does not declare
// subagent_observations is refused with ErrUndeclaredObservation (the
// declaration says what the Harness can report; an undeclared report is
// a contract violation, never forwarded).
func (e Event) ValidateFor(caps wire.AgentKindCapabilities) error {
	if err := e.Validate(); err != nil {
		return err
	}
	if SubagentObservation(e.Payload) && !caps.SubagentObservations.IsSupported() {
		return fmt.Errorf("%w: %s", ErrUndeclaredObservation, e.Payload.MessageType())
	}
	return nil
}
