package daemon

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/wire"
)

// TestAnswersWithNothingPendingAreRefused: a decision or function result
// naming nothing the machine has pending gets not_pending on the request's
// identity, the refusal is a valid frame, and nothing else changes.
func TestAnswersWithNothingPendingAreRefused(t *testing.T) {
	text := []wire.InputContent{wire.TextPart("r")}
	cases := []struct {
		name  string
		id    string
		req   wire.Payload
		reply wire.Payload
	}{
		{"permission decision", "perm-1", wire.PermissionDecision{DeliveryID: "d1", Approved: true},
			wire.InteractionDecisionAck{DeliveryID: "d1", ErrorCode: wire.AckNotPending}},
		{"user choice decision", "ask-1", wire.UserChoiceDecision{DeliveryID: "d2", Cancelled: true},
			wire.InteractionDecisionAck{DeliveryID: "d2", ErrorCode: wire.AckNotPending}},
		{"function result", "t-1", wire.FunctionResult{DeliveryID: "d3", CallID: "call", Success: true, Content: text},
			wire.InteractionDecisionAck{DeliveryID: "d3", ErrorCode: wire.AckNotPending}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t)
			before := r.m.Snapshot()
			out := r.recv(c.id, c.req)
			require.Lenf(t, out, 1, "want one effect, got %d: %v", len(out), out)
			s, ok := out[0].(Send)
			if !ok || s.Frame.ID != c.id || !reflect.DeepEqual(s.Frame.Payload, c.reply) {
				require.Fail(t, fmt.Sprintf("got %#v, want Send id=%s %#v", out[0], c.id, c.reply))
			}
			if _, err := wire.Encode(s.Frame); err != nil {
				require.Fail(t, fmt.Sprintf("refusal is not a valid frame: %v", err))
			}
			if after := r.m.Snapshot(); !reflect.DeepEqual(before, after) {
				require.Fail(t, fmt.Sprintf("refusal changed state:\nbefore %+v\nafter  %+v", before, after))
			}
		})
	}
}

// TestRequestWithoutIDIsDropped: with no identity to answer on, nothing
// is sent.
func TestRequestWithoutIDIsDropped(t *testing.T) {
	r := newRig(t)
	if out := r.recv("", wire.WorkspaceRead{RunID: "t-1", EnvironmentID: "env", MaxBytes: 1}); len(out) != 0 {
		require.Fail(t, fmt.Sprintf("want no effect, got %v", out))
	}
}
