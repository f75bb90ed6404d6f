package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
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
	tr, stop, err := tracingFlags{}.start(context.Background(), "turnstile-core")
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
		tr, stop, err := f.start(context.Background(), "turnstile-daemon")
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
