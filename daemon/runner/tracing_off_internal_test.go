package runner

import (
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

// TestTracingOffAllocatesNothing: without Config.Tracer the loop's
// tracing hooks on the frame path are no-ops that allocate nothing and
// leave the frame's trace empty.
func TestTracingOffAllocatesNothing(t *testing.T) {
	tr := newTracing(nil)
	if tr != nil {
		t.Fatal("a nil tracer gives tracing state")
	}
	out := wire.Frame{ID: "t-1", Payload: wire.Delta{Delta: "x", Sequence: 1}}
	in := wire.Frame{ID: "p-1", Trace: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
		Payload: wire.ExecutionStart{ExecutorID: "e", Handle: "h", RunID: "t-1"}}
	allocs := testing.AllocsPerRun(1000, func() {
		f, span := tr.sending(1, out)
		if span != nil || f.Trace != "" {
			t.Fatal("a span or a trace without a tracer")
		}
		tr.sent(f, span)
		if tr.received(1, in) != nil {
			t.Fatal("a receive span without a tracer")
		}
		tr.disconnected(1)
	})
	if allocs != 0 {
		t.Fatalf("tracing off allocates %v per frame, want 0", allocs)
	}
}
