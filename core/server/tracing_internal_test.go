package server

import (
	"testing"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

// TestTracingOffAllocatesNothing: without Options.Tracer the loop's
// tracing hooks on the frame path (send, receive, step, settle) are no-ops
// that allocate nothing and leave the frame's trace empty.
func TestTracingOffAllocatesNothing(t *testing.T) {
	s := &Server{tracing: newTracing(nil)}
	if s.tracing != nil {
		t.Fatal("a nil tracer gives tracing state")
	}
	out := wire.Frame{ID: "t-1", Payload: wire.PromptCancel{DeliveryID: "d"}}
	in := wire.Frame{ID: "t-1", Trace: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", Payload: wire.Delta{Delta: "x", Sequence: 1}}
	ev := core.SubmitTurn{Call: "c", Session: "s"}
	effs := []core.Effect{core.APIResult{Call: "c", Value: core.TurnSubmitted{Turn: "t-1"}}}
	allocs := testing.AllocsPerRun(1000, func() {
		f, span := s.tracing.sending(1, "d", out)
		if span != nil || f.Trace != "" {
			t.Fatal("a span or a trace without a tracer")
		}
		if s.tracing.received(1, "d", in) != nil {
			t.Fatal("a receive span without a tracer")
		}
		s.tracing.stepped(ev, effs)
		s.tracing.settle(nil)
		s.tracing.closed(1, "gone")
	})
	if allocs != 0 {
		t.Fatalf("tracing off allocates %v per frame, want 0", allocs)
	}
}
