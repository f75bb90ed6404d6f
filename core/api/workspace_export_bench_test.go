package api_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
	"github.com/turnstile-sim/turnstile/core/gateway"
	"github.com/turnstile-sim/turnstile/core/server"
)

// benchExportServer is newEnv for a benchmark: Core, its API and its
// gateway on one real HTTP server.
func benchExportServer(b *testing.B) (*httptest.Server, string) {
	back := server.NewMemory()
	if err := back.AddDevice("d1", sha256.Sum256([]byte("cred-d1")), time.Now()); err != nil {
		b.Fatal(err)
	}
	s, err := server.New(back, server.Options{Config: core.Config{Policy: enginetest.OpenPolicy("contract")}})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- s.Run(ctx) }()
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	a, err := api.New(s, api.Options{OperatorToken: token, Keys: testKeys{}})
	if err != nil {
		b.Fatal(err)
	}
	a.Register(mux)
	gw, err := gateway.New(s, gateway.Options{PublicURL: ts.URL})
	if err != nil {
		b.Fatal(err)
	}
	gw.Register(mux)
	b.Cleanup(func() { cancel(); <-ran; ts.Close() })
	req, _ := http.NewRequest("POST", ts.URL+"/v1/agents/sessions", strings.NewReader(workspaceSessionBody))
	req.Header.Set("Authorization", "Bearer "+apiKey)
	resp, err := ts.Client().Do(req)
	if err != nil {
		b.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	sid := strings.SplitN(strings.SplitN(string(body), `"id":"`, 2)[1], `"`, 2)[0]
	return ts, sid
}

func heapNow() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkWorkspaceExportStream exports archives of 4 and 32 MiB over
// the real HTTP server and reports retained-MiB: the heap held, beyond
// what was live before the request (the peer's own archive included),
// once the client has read half the stream. A streamed export holds a
// chunk or two whatever the archive's size, so the figure stays flat
// across sizes (compare the two in one run); a buffered one grows with
// the archive.
func BenchmarkWorkspaceExportStream(b *testing.B) {
	for _, mib := range []int{4, 32} {
		b.Run(fmt.Sprintf("%dMiB", mib), func(b *testing.B) {
			ts, sid := benchExportServer(b)
			p := &exportPeer{archive: tarOf(b, mib, 1<<20)}
			defer dialExportPeer(b, ts, p)()
			b.SetBytes(int64(len(p.archive)))
			b.ReportAllocs()
			var retained uint64
			for b.Loop() {
				retained = max(retained, exportOnce(b, ts, sid, len(p.archive)))
			}
			b.ReportMetric(float64(retained)/(1<<20), "retained-MiB")
		})
	}
}

// exportOnce reads one export, measuring the heap half way through.
func exportOnce(b *testing.B, ts *httptest.Server, sid string, size int) uint64 {
	for {
		base := heapNow()
		req, _ := http.NewRequest("GET", ts.URL+"/core/v1/sessions/"+sid+"/workspace/export", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := ts.Client().Do(req)
		if err != nil {
			b.Fatal(err)
		}
		if resp.Header.Get("Content-Type") == "application/json" { // the peer is not admitted yet
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			continue
		}
		if _, err := io.CopyN(io.Discard, resp.Body, int64(size/2)); err != nil {
			b.Fatal(err)
		}
		mid := heapNow()
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil || int(n) != size-size/2 || resp.Trailer.Get(api.ExportOutcomeTrailer) != "completed" {
			b.Fatalf("export: %v after %d bytes, trailer %q", err, n, resp.Trailer.Get(api.ExportOutcomeTrailer))
		}
		if mid < base {
			return 0
		}
		return mid - base
	}
}
