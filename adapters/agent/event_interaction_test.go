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
