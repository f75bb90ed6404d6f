package check

import (
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

// Each family's receipt codes: a decision refused with a decision code
// (runtime_error for one that fails validation) passes; invalid_result on
// a decision, a cancel code on a function result and an applied receipt
// with a code are refusal_code violations.
func TestInteractionAckCodesByFamily(t *testing.T) {
	result := wire.FunctionResult{DeliveryID: "dl-f", CallID: "call-1", Content: []wire.InputContent{}}
	refused := func(delivery, code string) wire.InteractionDecisionAck {
		return wire.InteractionDecisionAck{DeliveryID: delivery, ErrorCode: code}
	}
	cases := []struct {
		name string
		sent wire.Frame
		ack  wire.Frame
		bad  bool
	}{
		{"decision runtime_error", wire.Frame{ID: "perm-1", Payload: decision("dl-1")},
			wire.Frame{ID: "perm-1", Payload: refused("dl-1", wire.AckRuntimeError)}, false},
		{"decision conflict", wire.Frame{ID: "perm-1", Payload: decision("dl-1")},
			wire.Frame{ID: "perm-1", Payload: refused("dl-1", wire.AckDecisionConflict)}, false},
		{"decision invalid_result", wire.Frame{ID: "perm-1", Payload: decision("dl-1")},
			wire.Frame{ID: "perm-1", Payload: refused("dl-1", wire.AckInvalidResult)}, true},
		{"user choice cancel code", wire.Frame{ID: "ask-1", Payload: wire.UserChoiceDecision{DeliveryID: "dl-1", Cancelled: true}},
			wire.Frame{ID: "ask-1", Payload: refused("dl-1", wire.CancelFailed)}, true},
		{"function result invalid_result", wire.Frame{ID: "run-1", Payload: result},
			wire.Frame{ID: "run-1", Payload: refused("dl-f", wire.AckInvalidResult)}, false},
		{"function result cancel code", wire.Frame{ID: "run-1", Payload: result},
			wire.Frame{ID: "run-1", Payload: refused("dl-f", wire.CancelRunInactive)}, true},
		{"applied with a code", wire.Frame{ID: "perm-1", Payload: decision("dl-1")},
			wire.Frame{ID: "perm-1", Payload: wire.InteractionDecisionAck{DeliveryID: "dl-1", Applied: true, ErrorCode: wire.AckNotPending}}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, w := ixFeed()
			w.coreSends(1, "d1", c.sent)
			w.deviceSends(1, "d1", c.ack)
			if got := violated(l, CheckRefusalCode); got != c.bad {
				t.Fatalf("refusal_code violated %t, want %t: %v", got, c.bad, l.Violations())
			}
		})
	}
}
