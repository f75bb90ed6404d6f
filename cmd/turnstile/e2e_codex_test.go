package main

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/codex"
	"github.com/turnstile-sim/turnstile/adapters/codex/codextest"
	"github.com/turnstile-sim/turnstile/core/api"
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

// newCodexStack is real Core and a real daemon whose only kind is codex,
// running the pinned binary against the fake model server.
func newCodexStack(t *testing.T) (*stack, *codextest.ModelServer) {
	t.Helper()
	m := codextest.NewModelServer(t)
	decl := codex.Declaration(codex.Options{Binary: codexBinary(t), Home: codextest.Home(t, m), WorkDir: t.TempDir()})
	return newStack(t, stackOptions{decls: []agent.Declaration{decl}}), m
}

func (s *stack) codexSession() string {
	s.t.Helper()
	return s.createSession(map[string]any{"agent": map[string]any{"model": "gpt-5.5", "x_agents_core": map[string]any{"harness": codex.Kind}},
		"environment": map[string]any{"type": "none"}})
}

// waitInput polls the Turn until its first input reaches one of states.
func (s *stack) waitInput(tid string, states ...string) {
	s.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if in := s.turn(tid).Inputs; len(in) > 0 && slices.Contains(states, in[0].State) {
			return
		}
		timer := time.NewTimer(50 * time.Millisecond)
		<-timer.C
	}
	s.t.Fatalf("input never reached %v: %+v", states, s.turn(tid).Inputs)
}

// A Turn through the API runs on the real Codex binary and streams to SSE;
// a steer is written then accepted (its echo seen) and reaches the model;
// a cancel interrupts the Turn, which ends cancelled with its partial text.
func TestEndToEndCodexTurnSteerCancel(t *testing.T) {
	s, m := newCodexStack(t)
	sid := s.codexSession()

	m.Queue(codextest.Reply{Deltas: []string{"Hello", ", world"}})
	tid := s.submit(sid, "hi")
	names, text, _ := collect(t, s.events(tid))
	if text != "Hello, world" || names[len(names)-1] != api.EvTurnCompleted {
		t.Fatalf("events %v text %q\n%s", names, text, s.logs.String())
	}
	if tr := s.turn(tid); tr.State != "completed" || tr.Content != "Hello, world" {
		t.Fatalf("turn %+v", tr)
	}

	hold := make(chan struct{})
	m.Queue(codextest.Reply{Deltas: []string{"working", " on it"}, Hold: hold}, codextest.Reply{Deltas: []string{"steered"}})
	tid2 := s.submit(sid, "start")
	ch := s.events(tid2)
	if ev := e2eNext(t, ch); ev.Event != api.EvOutputTextDelta {
		t.Fatalf("first event %+v", ev)
	}
	s.steer(sid, "also this")
	// Codex may apply the input at once (its echo comes while the model
	// still streams), so written can already have become accepted.
	s.waitInput(tid2, "written", "accepted")
	close(hold)
	_, text2, _ := collect(t, ch)
	s.waitInput(tid2, "accepted")
	if !strings.Contains(text2, "steered") || m.Count("also this") == 0 {
		t.Fatalf("steered turn streamed %q; no model request carried the input", text2)
	}

	hold3 := make(chan struct{})
	defer close(hold3)
	m.Queue(codextest.Reply{Deltas: []string{"partial", " never"}, Hold: hold3})
	tid3 := s.submit(sid, "long")
	ch3 := s.events(tid3)
	e2eNext(t, ch3)
	s.cancel(sid)
	names3, _, _ := collect(t, ch3)
	if names3[len(names3)-1] != api.EvTurnCancelled {
		t.Fatalf("events after cancel %v", names3)
	}
	if tr := s.turn(tid3); tr.State != "cancelled" || tr.Content != "partial" {
		t.Fatalf("cancelled turn %+v", tr)
	}
}
