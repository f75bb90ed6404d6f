package server_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/internal/wiretrace"
	"github.com/turnstile-sim/turnstile/wire"
)

// TestTraceFieldMalformedIsIgnored: a frame whose `trace` member is not a
// usable W3C traceparent (not a string, wrong length, upper-case hex, a
// zero trace ID, an unknown version) is stepped like any other — no
// refusal, no log line — and its receive span starts a new trace; a valid
// traceparent makes the receive span its remote child.
func TestTraceFieldMalformedIsIgnored(t *testing.T) {
	const valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	synctest.Test(t, func(t *testing.T) {
		exp := tracetest.NewInMemoryExporter()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
		defer tp.Shutdown(context.Background())
		var logs bytes.Buffer
		s, err := server.New(server.NewMemory(), server.Options{Tracer: tp.Tracer("test"), Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		ran := make(chan error, 1)
		go func() { ran <- s.Run(ctx) }()
		defer func() { cancel(); <-ran }()
		id, err := s.Open(ctx, "d1", nopConn{})
		if err != nil {
			t.Fatal(err)
		}
		bad := []string{`"garbage"`, `17`, `null`, `{"traceparent":"` + valid + `"}`, `""`,
			`"00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01"`,
			`"00-00000000000000000000000000000000-00f067aa0ba902b7-01"`,
			`"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"`,
			`"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra"`}
		for i, tr := range bad {
			// A heartbeat with it is taken (its version is noted) ...
			hb := strings.TrimSuffix(string(heartbeatFrom("v"+tr)), "}") + `,"trace":` + tr + `}`
			if err := s.Received(ctx, id, []byte(hb)); err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
			var version string
			_ = s.Query(ctx, func(v server.View) {
				if h := v.Heartbeat(id); h != nil {
					version = h.DaemonVersion
				}
			})
			if version != "v"+tr {
				t.Fatalf("trace %s: the heartbeat was not taken (version %q)", tr, version)
			}
			// ... and a Run frame with it gets a root receive span.
			exp.Reset()
			delta := `{"type":"delta","id":"r-1","payload":{"delta":"x","sequence":` + string(rune('1'+i)) + `},"trace":` + tr + `}`
			if err := s.Received(ctx, id, []byte(delta)); err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
			spans := exp.GetSpans()
			if len(spans) != 1 || spans[0].Name != wiretrace.SpanRecvPrefix+wire.TypeDelta {
				t.Fatalf("trace %s: spans %+v, want one receive span", tr, spans)
			}
			if sp := spans[0]; sp.Parent.IsValid() || !sp.SpanContext.IsValid() || sp.Status.Code != codes.Unset {
				t.Fatalf("trace %s: receive span parent %v valid %v status %v, want a new root without error",
					tr, sp.Parent, sp.SpanContext.IsValid(), sp.Status)
			}
		}
		if strings.Contains(logs.String(), "refused") {
			t.Fatalf("a frame with an unusable trace was refused:\n%s", logs.String())
		}

		exp.Reset()
		delta := `{"type":"delta","id":"r-1","payload":{"delta":"x","sequence":20},"trace":"` + valid + `"}`
		if err := s.Received(ctx, id, []byte(delta)); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		spans := exp.GetSpans()
		if len(spans) != 1 {
			t.Fatalf("spans %+v", spans)
		}
		if p := spans[0].Parent; !p.IsRemote() || p.TraceID().String() != valid[3:35] || p.SpanID().String() != valid[36:52] ||
			spans[0].SpanContext.TraceID() != p.TraceID() {
			t.Fatalf("receive span of a valid traceparent: parent %v, span %v", p, spans[0].SpanContext)
		}
	})
}
