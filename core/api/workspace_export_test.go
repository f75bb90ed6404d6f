package api_test

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/coder/websocket"

	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/gateway"
	"github.com/turnstile-sim/turnstile/core/gateway/scripted"
	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/wire"
)

// exportPeer is a Runtime over a real WebSocket serving one archive to
// read-only profiles: the pull protocol in 64 KiB chunks. With fail, the
// chunk at failAt (and any later) is a failed result (export_failed);
// closeFails makes the release answer failed cleanup_unconfirmed.
type exportPeer struct {
	archive    []byte
	fail       bool
	failAt     int64
	closeFails bool

	mu    sync.Mutex
	steps []string // export steps received, in order
}

func exportCaps() wire.AgentKindCapabilities {
	c := scripted.Caps()
	for _, f := range c.Fields() {
		switch f.Name {
		case "local_environment", "workspace_read_preparation", "workspace_output_export":
			*f.Value = wire.CapabilitySupported
		}
	}
	return c
}

func mustEncode(t testing.TB, f wire.Frame) []byte {
	b, err := wire.Encode(f)
	if err != nil {
		t.Errorf("encode %T: %v", f.Payload, err)
	}
	return b
}

func (p *exportPeer) status(t testing.TB, id string, rev uint64, state, code string) []byte {
	return mustEncode(t, wire.Frame{ID: id, Payload: wire.PreparationStatus{ExecutorID: "exec-" + id, Handle: "handle-" + id,
		Revision: rev, State: state, ErrorCode: code, ExpiresAt: 1800000000000}})
}

func (p *exportPeer) respond(t testing.TB, b []byte) [][]byte {
	f, err := wire.Decode(b)
	if err != nil {
		t.Errorf("peer: undecodable frame from Core: %v", err)
		return nil
	}
	switch x := f.Payload.(type) {
	case wire.ExecutionPrepare:
		return [][]byte{p.status(t, f.ID, 1, wire.StatePreparing, ""), p.status(t, f.ID, 2, wire.StateReady, "")}
	case wire.ExecutionRelease:
		if p.closeFails {
			return [][]byte{p.status(t, f.ID, 3, wire.StateFailed, "cleanup_unconfirmed")}
		}
		return [][]byte{p.status(t, f.ID, 3, wire.StateReleased, "")}
	case wire.WorkspaceExport:
		p.mu.Lock()
		p.steps = append(p.steps, fmt.Sprintf("%s@%d", x.Step, x.Offset))
		p.mu.Unlock()
		if x.Step == wire.StepCancel {
			return nil
		}
		return [][]byte{mustEncode(t, wire.Frame{ID: f.ID, Payload: p.chunk(x.Offset)})}
	}
	return nil
}

func (p *exportPeer) chunk(at int64) wire.WorkspaceExportResult {
	switch {
	case p.fail && at >= p.failAt:
		return wire.WorkspaceExportResult{Outcome: wire.OutcomeFailed, Offset: at, ErrorCode: "export_failed"}
	case at >= int64(len(p.archive)):
		return wire.WorkspaceExportResult{Outcome: wire.OutcomeCompleted, Offset: at}
	}
	end := min(at+wire.ChunkBytesMax, int64(len(p.archive)))
	return wire.WorkspaceExportResult{Outcome: wire.OutcomeChunk, Offset: at, Data: p.archive[at:end]}
}

// connectExportPeer dials e's gateway as device d1 and serves p until
// the returned stop is called.
func (e *env) connectExportPeer(p *exportPeer) func() {
	e.t.Helper()
	return dialExportPeer(e.t, e.ts, p)
}

func dialExportPeer(t testing.TB, ts *httptest.Server, p *exportPeer) func() {
	ctx := context.Background()
	u := "ws" + strings.TrimPrefix(ts.URL, "http") + gateway.WSPath + "?" +
		url.Values{"device_id": {"d1"}, "version": {wire.Version}}.Encode()
	ws, _, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPClient: ts.Client(),
		HTTPHeader: http.Header{"Authorization": {"Bearer cred-d1"}}})
	if err != nil {
		t.Fatal(err)
	}
	ws.SetReadLimit(wire.FrameBytesMax)
	hb := mustEncode(t, wire.Frame{Payload: wire.Heartbeat{TS: 1, DaemonVersion: "export-peer",
		SupportedAgentKinds: []wire.SupportedAgentKind{{Kind: scripted.Kind, Available: true, Capabilities: exportCaps()}}}})
	if err := ws.Write(ctx, websocket.MessageText, hb); err != nil {
		t.Fatal(err)
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		for {
			_, b, err := ws.Read(ctx)
			if err != nil {
				return
			}
			for _, out := range p.respond(t, b) {
				if ws.Write(ctx, websocket.MessageText, out) != nil {
					return
				}
			}
		}
	}()
	return func() { ws.Close(websocket.StatusNormalClosure, ""); <-served }
}

// tarOf builds a tar archive of files named f0.. with size bytes each.
func tarOf(t testing.TB, files, size int) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for i := range files {
		body := bytes.Repeat([]byte{byte('a' + i%26)}, size)
		if err := tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("f%d", i), Mode: 0o644, Size: int64(size)}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// getExport requests the export and returns the response (body unread).
func (e *env) getExport(sid string) *http.Response {
	e.t.Helper()
	req, _ := http.NewRequest("GET", e.ts.URL+"/core/v1/sessions/"+sid+"/workspace/export", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := e.ts.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp
}

// exportWhenConnected requests the export until Core admitted the
// peer's heartbeat (an export answered no_device is asked again).
func (e *env) exportWhenConnected(sid string) *http.Response {
	e.t.Helper()
	for range 200 {
		resp := e.getExport(sid)
		if resp.Header.Get("Content-Type") != "application/json" {
			return resp
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(b), "no_device") {
			e.t.Fatalf("export: %d %s", resp.StatusCode, b)
		}
		if err := e.s.Query(context.Background(), func(server.View) {}); err != nil {
			e.t.Fatal(err)
		}
	}
	e.t.Fatal("the export peer was never admitted")
	return nil
}

// TestWorkspaceExportStreamsLargeArchive: a 6 MiB archive (about a
// hundred chunks) reaches the client as one tar stream, pulled chunk by
// chunk, and ends with the completed trailer after the release.
func TestWorkspaceExportStreamsLargeArchive(t *testing.T) {
	e := newEnv(t)
	sid := e.workspaceSession()
	p := &exportPeer{archive: tarOf(t, 6, 1<<20)}
	defer e.connectExportPeer(p)()
	resp := e.exportWhenConnected(sid)
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/x-tar" {
		t.Fatalf("export: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the stream: %v", err)
	}
	if !bytes.Equal(got, p.archive) {
		t.Fatalf("archive of %d bytes, want the %d the Runtime sent", len(got), len(p.archive))
	}
	if o := resp.Trailer.Get(api.ExportOutcomeTrailer); o != "completed" {
		t.Fatalf("trailer %q, want completed", o)
	}
	tr := tar.NewReader(bytes.NewReader(got))
	n := 0
	for ; ; n++ {
		if _, err := tr.Next(); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	chunks := (len(p.archive) + wire.ChunkBytesMax - 1) / wire.ChunkBytesMax
	p.mu.Lock()
	steps := len(p.steps)
	p.mu.Unlock()
	if n != 6 || steps != chunks+1 {
		t.Fatalf("%d files, %d export steps; want 6 files, begin + %d next", n, steps, chunks)
	}
}

// TestWorkspaceExportCutMidStream: an export that fails after chunks
// were streamed (a Runtime failure, or an unconfirmed close after the
// whole archive) cuts the response: the client's read fails and no
// completed trailer arrives.
func TestWorkspaceExportCutMidStream(t *testing.T) {
	archive := tarOf(t, 2, 512<<10)
	for _, p := range []*exportPeer{
		{archive: archive, fail: true, failAt: 5 * wire.ChunkBytesMax},
		{archive: archive, closeFails: true},
	} {
		e := newEnv(t)
		sid := e.workspaceSession()
		stop := e.connectExportPeer(p)
		resp := e.exportWhenConnected(sid)
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		stop()
		if resp.StatusCode != 200 || err == nil {
			t.Fatalf("failAt=%d closeFails=%t: %d, read error %v after %d bytes; want a cut stream",
				p.failAt, p.closeFails, resp.StatusCode, err, len(got))
		}
		if o := resp.Trailer.Get(api.ExportOutcomeTrailer); o != "" {
			t.Fatalf("a cut stream carries the trailer %q", o)
		}
		if p.fail && int64(len(got)) > p.failAt {
			t.Fatalf("%d bytes streamed past the failure at %d", len(got), p.failAt)
		}
	}
}

// TestWorkspaceExportFailureBeforeDataIsJSON: an export that fails
// before its first chunk is a WorkspaceAnswer, never an empty archive.
func TestWorkspaceExportFailureBeforeDataIsJSON(t *testing.T) {
	e := newEnv(t)
	sid := e.workspaceSession()
	defer e.connectExportPeer(&exportPeer{archive: []byte("x"), fail: true})()
	var resp *http.Response
	for range 200 {
		resp = e.getExport(sid)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(b), "no_device") {
			if resp.StatusCode != 503 || resp.Header.Get("Content-Type") != "application/json" ||
				field(t, string(b), "outcome") != "unavailable" {
				t.Fatalf("export failing before data: %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
			}
			return
		}
		_ = e.s.Query(context.Background(), func(server.View) {})
	}
	t.Fatal("the export peer was never admitted")
}
