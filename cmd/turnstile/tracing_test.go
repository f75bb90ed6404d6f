package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/turnstile-sim/turnstile/core/api"
)

// TestOTLPEndpointFlagRefusesABadURL: -otlp-endpoint that is not an
// http(s) URL with a host stops `turnstile core` and `turnstile daemon`
// before they start, with the named error.
func TestOTLPEndpointFlagRefusesABadURL(t *testing.T) {
	cred := filepath.Join(t.TempDir(), "missing.credential")
	for _, bad := range []string{"localhost:4318", "ftp://collector:4318", "http://", "://x"} {
		for _, args := range [][]string{
			{"core", "-otlp-endpoint", bad},
			{"daemon", "-core", "http://127.0.0.1:1", "-device", "d1", "-credential-file", cred, "-otlp-endpoint", bad},
		} {
			code, out, errOut := cli{t: t}.run(args...)
			if code != exitUsage || !strings.Contains(errOut, ErrOTLPEndpoint.Error()) || !strings.Contains(errOut, bad) || out != "" {
				t.Errorf("%v: exit %d, stderr:\n%s\nwant exit 2 and %q", args, code, errOut, ErrOTLPEndpoint)
			}
		}
	}
}

// collector records the OTLP/HTTP requests it receives.
type collector struct {
	mu    sync.Mutex
	paths []string
	types []string
	n     int // body bytes
}

func newCollector(t *testing.T) (*collector, *httptest.Server) {
	c := &collector{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		c.mu.Lock()
		c.paths = append(c.paths, r.Method+" "+r.URL.Path)
		c.types = append(c.types, r.Header.Get("Content-Type"))
		c.n += len(b)
		c.mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	t.Cleanup(srv.Close)
	return c, srv
}

// TestTraceExportOnlyWhenConfigured: with neither -otlp-endpoint nor the
// OTLP endpoint variables there is no tracer (the shells record nothing);
// -otlp-endpoint, or OTEL_EXPORTER_OTLP_ENDPOINT alone, exports the spans
// over OTLP/HTTP to <endpoint>/v1/traces, flushed when export stops.
func TestTraceExportOnlyWhenConfigured(t *testing.T) {
	t.Setenv(envOTLPEndpoint, "")
	t.Setenv(envOTLPTracesEndpoint, "")
	tr, stop, err := tracingFlags{}.start(context.Background(), "turnstile-core", slog.New(slog.DiscardHandler))
	if err != nil || tr != nil {
		t.Fatalf("unconfigured: tracer %v err %v, want none", tr, err)
	}
	stop()

	for _, viaEnv := range []bool{false, true} {
		c, srv := newCollector(t)
		f := tracingFlags{endpoint: srv.URL}
		if viaEnv {
			t.Setenv(envOTLPEndpoint, srv.URL)
			f = tracingFlags{}
		}
		if err := f.check(); err != nil {
			t.Fatal(err)
		}
		tr, stop, err := f.start(context.Background(), "turnstile-daemon", slog.New(slog.DiscardHandler))
		if err != nil || tr == nil {
			t.Fatalf("env %v: tracer %v err %v", viaEnv, tr, err)
		}
		_, span := tr.Start(context.Background(), "turnstile.turn")
		span.End()
		stop()
		c.mu.Lock()
		if len(c.paths) != 1 || c.paths[0] != "POST /v1/traces" || c.types[0] != "application/x-protobuf" || c.n == 0 {
			t.Errorf("env %v: collector got %v %v (%d bytes), want one POST /v1/traces", viaEnv, c.paths, c.types, c.n)
		}
		c.mu.Unlock()
	}
}

// otlpSpan is one span a collector received, with its service.
type otlpSpan struct {
	service, name       string
	trace, span, parent string
	attrs               map[string]string
}

// decodeOTLP reads the spans of an OTLP/HTTP protobuf export request.
func decodeOTLP(t *testing.T, body []byte) []otlpSpan {
	var req coltrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &req); err != nil {
		t.Errorf("collector: %v", err)
		return nil
	}
	var out []otlpSpan
	for _, rs := range req.ResourceSpans {
		service := ""
		for _, a := range rs.GetResource().GetAttributes() {
			if a.Key == "service.name" {
				service = a.GetValue().GetStringValue()
			}
		}
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				sp := otlpSpan{service: service, name: s.Name, trace: hex.EncodeToString(s.TraceId),
					span: hex.EncodeToString(s.SpanId), parent: hex.EncodeToString(s.ParentSpanId), attrs: map[string]string{}}
				for _, a := range s.Attributes {
					sp.attrs[a.Key] = a.GetValue().GetStringValue()
				}
				out = append(out, sp)
			}
		}
	}
	return out
}

// TestTracesExportedByTheRealProcesses runs `turnstile core` and
// `turnstile daemon` with -otlp-endpoint at one collector: after a Turn
// and a SIGTERM to each, the collector holds both services' spans, and
// the daemon's Turn span is in the trace of Core's Turn span.
func TestTracesExportedByTheRealProcesses(t *testing.T) {
	var mu sync.Mutex
	var spans []otlpSpan
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got := decodeOTLP(t, b)
		mu.Lock()
		spans = append(spans, got...)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer srv.Close()
	dir, tokenFile, token, cred := setup(t)
	credFile := filepath.Join(filepath.Dir(tokenFile), "device.cred")
	if err := os.WriteFile(credFile, []byte(cred+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	core := startCore(t, dir, tokenFile, "-otlp-endpoint", srv.URL)
	d := startDaemonProc(t, "-core", core.base, "-device", "d1", "-credential-file", credFile, "-otlp-endpoint", srv.URL)
	c := newAPIClient(t, core.base, dir, token)
	tid := c.submit(c.session("synthetic", "synthetic-1"), "traced")
	if evs, err := c.events(tid, ""); err != nil || len(evs) == 0 || evs[len(evs)-1].Event != api.EvTurnCompleted {
		t.Fatalf("turn events %+v, %v", evs, err)
	}
	if code := d.terminate(t); code != exitOK {
		t.Fatalf("daemon exit %d", code)
	}
	if code := core.terminate(); code != exitOK {
		t.Fatalf("core exit %d", code)
	}
	mu.Lock()
	defer mu.Unlock()
	var coreTurn, daemonTurn *otlpSpan
	for i, s := range spans {
		if s.name == "turnstile.turn" && s.attrs["turnstile.turn.id"] == tid {
			switch s.service {
			case "turnstile-core":
				coreTurn = &spans[i]
			case "turnstile-daemon":
				daemonTurn = &spans[i]
			}
		}
	}
	if coreTurn == nil || daemonTurn == nil {
		t.Fatalf("Turn spans core %v daemon %v among %d spans: %+v", coreTurn, daemonTurn, len(spans), spans)
	}
	if coreTurn.trace != daemonTurn.trace || coreTurn.attrs["turnstile.state"] != "completed" {
		t.Fatalf("Core's Turn span %+v, the daemon's %+v: want one trace, completed", *coreTurn, *daemonTurn)
	}
}

// TestTraceExportFailureIsALogLine: a collector that refuses the export
// is reported through the process's logger (Core's JSON log, with its
// redaction), not by the OpenTelemetry SDK's default handler, which
// writes a plain-text line of the standard log package to stderr.
func TestTraceExportFailureIsALogLine(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		http.Error(w, "refused", http.StatusBadRequest)
	}))
	defer srv.Close()
	var std bytes.Buffer
	log.SetOutput(&std)
	defer log.SetOutput(os.Stderr)
	var logged bytes.Buffer
	tr, stop, err := tracingFlags{endpoint: srv.URL}.start(context.Background(), "turnstile-core",
		slog.New(slog.NewJSONHandler(&logged, nil)))
	if err != nil {
		t.Fatal(err)
	}
	_, span := tr.Start(context.Background(), "turnstile.turn")
	span.End()
	stop()
	if std.Len() != 0 || !strings.Contains(logged.String(), `"msg":"trace export failed"`) {
		t.Fatalf("standard log:\n%s\nprocess log:\n%s", std.String(), logged.String())
	}
}
