package runner

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/internal/wiretrace"
	"github.com/turnstile-sim/turnstile/wire"
)

// TestTraceFieldMalformedStartsARootSpan: a frame from Core whose `trace`
// is not a usable traceparent decodes (it is never a reason to refuse
// it) and its receive span, and the Turn span under it, start a new
// trace; a valid one is continued.
func TestTraceFieldMalformedStartsARootSpan(t *testing.T) {
	const valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())
	tr := newTracing(tp.Tracer("test"))
	enc, err := wire.Encode(wire.Frame{ID: "p-1", Payload: wire.ExecutionStart{ExecutorID: "e", Handle: "h", RunID: "t-1", Input: wire.TextInput("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	start := string(enc[:len(enc)-1]) + `,"trace":`
	for _, bad := range []string{`"garbage"`, `7`, `null`, `"00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01"`,
		`"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01"`} {
		exp.Reset()
		ev := decode(1, []byte(start+bad+`}`))
		f, ok := ev.(daemon.FrameReceived)
		if !ok {
			t.Fatalf("trace %s: decoded as %T %+v, want a frame", bad, ev, ev)
		}
		tr.received(uint64(f.Conn), f.Frame).End()
		tr.sent(wire.Frame{ID: "t-1", Payload: wire.Done{}}, tr.sendingSpan(uint64(f.Conn), wire.Frame{ID: "t-1", Payload: wire.Done{}}))
		spans := exp.GetSpans()
		if len(spans) != 3 {
			t.Fatalf("trace %s: %d spans, want receive, Turn and send", bad, len(spans))
		}
		for _, sp := range spans {
			if sp.Status.Code == codes.Error {
				t.Errorf("trace %s: span %q has an error status", bad, sp.Name)
			}
			if sp.SpanContext.TraceID() != spans[0].SpanContext.TraceID() {
				t.Errorf("trace %s: span %q in another trace", bad, sp.Name)
			}
		}
		if recv := spans[0]; recv.Name != wiretrace.SpanRecvPrefix+wire.TypeExecutionStart || recv.Parent.IsValid() {
			t.Fatalf("trace %s: first span %q parent %v, want a root receive span", bad, recv.Name, recv.Parent)
		}
	}
	exp.Reset()
	f := decode(2, []byte(start+`"`+valid+`"}`)).(daemon.FrameReceived)
	tr.received(uint64(f.Conn), f.Frame).End()
	if sp := exp.GetSpans(); len(sp) != 1 || !sp[0].Parent.IsRemote() || sp[0].Parent.TraceID().String() != valid[3:35] {
		t.Fatalf("a valid traceparent is not continued: %+v", sp)
	}
	tr.stopped()
}

// sendingSpan is sending without the stamped frame.
func (t *tracing) sendingSpan(gen uint64, f wire.Frame) trace.Span {
	_, span := t.sending(gen, f)
	return span
}

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
