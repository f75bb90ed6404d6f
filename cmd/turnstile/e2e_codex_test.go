package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/codex"
	"github.com/turnstile-sim/turnstile/wire"
)

// codexBinary is the pinned codex binary ($TURNSTILE_CODEX_BIN or the
// cache `make codex` fills); missing, the test fails rather than skips.
func codexBinary(t *testing.T) string {
	t.Helper()
	path := os.Getenv(codex.EnvBinary)
	if path == "" {
		var err error
		if path, err = codex.CachedBinary(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := codex.CheckBinary(context.Background(), path); err != nil {
		t.Fatalf("%v (run make codex)", err)
	}
	return path
}

// responsesFake is a fake Responses API: each request streams the next
// queued text (default "ok"); a reply with hold pauses after its first
// delta until hold closes or the client leaves.
type responsesFake struct {
	srv     *httptest.Server
	mu      sync.Mutex
	replies []codexReply
	bodies  []string
}

type codexReply struct {
	deltas []string
	hold   chan struct{}
}

func newResponsesFake(t *testing.T) *responsesFake {
	f := &responsesFake{}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *responsesFake) queue(rs ...codexReply) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.replies = append(f.replies, rs...)
}

func (f *responsesFake) serve(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.bodies = append(f.bodies, string(b))
	n := len(f.bodies)
	rp := codexReply{deltas: []string{"ok"}}
	if len(f.replies) > 0 {
		rp, f.replies = f.replies[0], f.replies[1:]
	}
	f.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	ev := func(v map[string]any) {
		j, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", v["type"], j)
		w.(http.Flusher).Flush()
	}
	msg := fmt.Sprintf("msg_%d", n)
	ev(map[string]any{"type": "response.created", "response": map[string]any{"id": fmt.Sprintf("resp_%d", n)}})
	ev(map[string]any{"type": "response.output_item.added", "output_index": 0, "item": map[string]any{"type": "message", "id": msg, "role": "assistant", "content": []any{}}})
	text := ""
	for i, d := range rp.deltas {
		text += d
		ev(map[string]any{"type": "response.output_text.delta", "item_id": msg, "output_index": 0, "content_index": 0, "delta": d})
		if i == 0 && rp.hold != nil {
			select {
			case <-rp.hold:
			case <-r.Context().Done():
				return
			}
		}
	}
	ev(map[string]any{"type": "response.output_item.done", "output_index": 0, "item": map[string]any{"type": "message", "id": msg,
		"role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": text}}}})
	ev(map[string]any{"type": "response.completed", "response": map[string]any{"id": fmt.Sprintf("resp_%d", n),
		"usage": map[string]any{"input_tokens": 7, "output_tokens": 2, "total_tokens": 9}}})
}

func (f *responsesFake) lastBody() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.bodies) == 0 {
		return ""
	}
	return f.bodies[len(f.bodies)-1]
}

// newCodexStack is real Core and a real daemon whose only kind is codex,
// running the pinned binary against the fake model server.
func newCodexStack(t *testing.T) (*stack, *responsesFake) {
	t.Helper()
	m := newResponsesFake(t)
	home := t.TempDir()
	cfg := fmt.Sprintf("model = \"gpt-5.5\"\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nname = \"fake\"\nbase_url = \"%s/v1\"\n"+
		"wire_api = \"responses\"\nrequest_max_retries = 0\nstream_max_retries = 0\n", m.srv.URL)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	decl := codex.Declaration(codex.Options{Binary: codexBinary(t), Home: home, WorkDir: t.TempDir()})
	return newStack(t, stackOptions{decls: []agent.Declaration{decl}}), m
}

func (s *stack) codexSession() string {
	s.t.Helper()
	var out struct {
		SessionID string `json:"session_id"`
	}
	body := map[string]any{"agent": map[string]any{"kind": codex.Kind, "model": "gpt-5.5"}, "environment": map[string]any{"type": "none"}}
	if code := s.call("POST", "/api/v1/sessions", body, &out); code != http.StatusCreated {
		s.t.Fatalf("create session: %d", code)
	}
	return out.SessionID
}

// waitInput polls the Turn until its first input reaches state.
func (s *stack) waitInput(tid, state string) {
	s.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if in := s.turn(tid).Inputs; len(in) > 0 && in[0].State == state {
			return
		}
		timer := time.NewTimer(50 * time.Millisecond)
		<-timer.C
	}
	s.t.Fatalf("input never reached %s: %+v", state, s.turn(tid).Inputs)
}

// A Turn through the API runs on the real Codex binary and streams to SSE;
// a steer is written then accepted (its echo seen) and reaches the model;
// a cancel interrupts the Turn, which ends cancelled with its partial text.
func TestEndToEndCodexTurnSteerCancel(t *testing.T) {
	s, m := newCodexStack(t)
	sid := s.codexSession()

	m.queue(codexReply{deltas: []string{"Hello", ", world"}})
	tid := s.submit(sid, "hi")
	names, text, _ := collect(t, s.events(tid))
	if text != "Hello, world" || names[len(names)-1] != "end" || !strings.Contains(strings.Join(names, ","), "done") {
		t.Fatalf("events %v text %q\n%s", names, text, s.logs.String())
	}
	if tr := s.turn(tid); tr.State != "completed" || tr.Content != "Hello, world" {
		t.Fatalf("turn %+v", tr)
	}

	hold := make(chan struct{})
	m.queue(codexReply{deltas: []string{"working", " on it"}, hold: hold}, codexReply{deltas: []string{"steered"}})
	tid2 := s.submit(sid, "start")
	ch := s.events(tid2)
	if ev := e2eNext(t, ch); ev.Event != wire.TypeDelta {
		t.Fatalf("first event %+v", ev)
	}
	if code := s.call("POST", "/api/v1/turns/"+tid2+"/inputs", map[string]any{"text": "also this"}, nil); code != http.StatusCreated {
		t.Fatalf("steer: %d", code)
	}
	s.waitInput(tid2, "written")
	close(hold)
	_, text2, _ := collect(t, ch)
	s.waitInput(tid2, "accepted")
	if !strings.Contains(text2, "steered") || !strings.Contains(m.lastBody(), "also this") {
		t.Fatalf("steered turn streamed %q; last model request lacks the input", text2)
	}

	hold3 := make(chan struct{})
	defer close(hold3)
	m.queue(codexReply{deltas: []string{"partial", " never"}, hold: hold3})
	tid3 := s.submit(sid, "long")
	ch3 := s.events(tid3)
	e2eNext(t, ch3)
	if code := s.call("POST", "/api/v1/turns/"+tid3+"/cancel", nil, nil); code != http.StatusAccepted {
		t.Fatalf("cancel: %d", code)
	}
	names3, _, _ := collect(t, ch3)
	if names3[len(names3)-1] != "end" {
		t.Fatalf("events after cancel %v", names3)
	}
	if tr := s.turn(tid3); tr.State != "cancelled" || tr.Content != "partial" {
		t.Fatalf("cancelled turn %+v", tr)
	}
}
