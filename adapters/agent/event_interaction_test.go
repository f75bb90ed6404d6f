package agent

import (
	"errors"
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

// A permission_cancel names the request it withdraws; no other event
// carries an interaction ID.
func TestEventInteractionID(t *testing.T) {
	cases := []struct {
		name string
		ev   Event
		ok   bool
	}{
		{"cancel with ID", Event{RunID: "r", Payload: wire.PermissionCancel{}, InteractionID: "perm-1"}, true},
		{"cancel without ID", Event{RunID: "r", Payload: wire.PermissionCancel{}}, false},
		{"request with ID", Event{RunID: "r", Payload: wire.PermissionRequest{RequestID: "p", Tool: "t", Title: "x"}, InteractionID: "p"}, false},
		{"request", Event{RunID: "r", Payload: wire.PermissionRequest{RequestID: "p", Tool: "t", Title: "x"}}, true},
	}
	for _, c := range cases {
		err := c.ev.Validate()
		if (err == nil) != c.ok || err != nil && !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("%s: got %v", c.name, err)
		}
	}
}

// Subagent observations are run output of an adapter that declares
// subagent_observations and a named contract violation of one that does
// not.
func TestEventSubagentObservations(t *testing.T) {
	var yes, no wire.AgentKindCapabilities
	yes.SubagentObservations = wire.CapabilitySupported
	no.SubagentObservations = wire.CapabilityUnsupported
	evs := []Event{
		{RunID: "r", Payload: wire.SubagentIdentity{NativeID: "sa-1", ParentNativeID: "root"}},
		{RunID: "r", Payload: wire.SubagentLifecycle{NativeID: "sa-1", Status: "running"}},
		{RunID: "r", Payload: wire.SubagentTurn{NativeID: "sa-1", TurnID: "t-1", Status: "completed"}},
		{RunID: "r", Payload: wire.SubagentItem{NativeID: "sa-1", TurnID: "t-1", ItemID: "i-1", Kind: "message", Payload: []byte(`{}`)}},
	}
	for _, ev := range evs {
		if err := ev.ValidateFor(yes); err != nil {
			t.Errorf("%s declared: got %v", ev.Payload.MessageType(), err)
		}
		if err := ev.ValidateFor(no); !errors.Is(err, ErrUndeclaredObservation) {
			t.Errorf("%s undeclared: got %v, want ErrUndeclaredObservation", ev.Payload.MessageType(), err)
		}
	}
	bad := Event{RunID: "r", Payload: wire.SubagentItem{NativeID: "sa-1", TurnID: "t-1", ItemID: "i-1", Kind: "message"}}
	if err := bad.ValidateFor(yes); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("item without payload: got %v", err)
	}
	if err := (Event{RunID: "r", Payload: wire.Delta{Delta: "x", Sequence: 1}}).ValidateFor(no); err != nil {
		t.Errorf("delta: got %v", err)
	}
}
