package claude

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/claude/claudetest"
	"github.com/turnstile-sim/turnstile/wire"
)

// permissionOf reads events until the Turn's permission request.
func permissionOf(t *testing.T, r *turnRun) wire.PermissionRequest {
	t.Helper()
	ev := r.until(t, func(ev agent.Event) bool { _, ok := ev.Payload.(wire.PermissionRequest); return ok })
	return ev.Payload.(wire.PermissionRequest)
}

// A tool that needs permission in the native default mode asks through
// can_use_tool: allow runs it (the file exists, the model sees the
// result), deny refuses it (no file, the model sees the refusal). An
// answered ID is no longer pending.
func TestRealPermissionAllowAndDeny(t *testing.T) {
	h, s := realHarness(t)
	ex := newExecutor(t, h, testConfig())
	for _, approved := range []bool{true, false} {
		name := "denied.txt"
		if approved {
			name = "allowed.txt"
		}
		s.Queue(claudetest.Reply{Tool: &claudetest.ToolUse{Name: "Bash", Input: map[string]any{"command": "touch " + name, "description": "create a file"}}},
			claudetest.Reply{Text: []string{"finished"}})
		r := startRun(t, ex, "run-"+name, "make "+name)
		p := permissionOf(t, r)
		var input map[string]any
		if p.Tool != "Bash" || json.Unmarshal(p.Payload, &input) != nil || input["command"] != "touch "+name {
			t.Fatalf("permission request %+v", p)
		}
		if err := r.turn.(agent.PermissionResponder).RespondPermission(context.Background(), p.RequestID,
			wire.PermissionDecision{Approved: approved, Message: "not this file"}); err != nil {
			t.Fatal(err)
		}
		if err := r.turn.(agent.PermissionResponder).RespondPermission(context.Background(), p.RequestID, wire.PermissionDecision{Approved: true}); !errors.Is(err, agent.ErrNotPending) {
			t.Fatalf("second answer = %v", err)
		}
		if st := r.settle(t); !st.Reusable || text(r.got) != "finished" {
			t.Fatalf("settlement %+v events %v", st, r.got)
		}
		_, err := os.Stat(filepath.Join(ex.WorkDir(), name))
		if approved != (err == nil) {
			t.Fatalf("approved=%v: file %s: %v", approved, name, err)
		}
		bodies := s.Requests()
		result := claudetest.LastUserText(bodies[len(bodies)-1])
		if !approved && !strings.Contains(result, "not this file") {
			t.Fatalf("the model did not see the refusal: %q", result)
		}
	}
	if err := (&Turn{asks: map[string]json.RawMessage{}}).RespondPermission(context.Background(), "unknown", wire.PermissionDecision{}); !errors.Is(err, agent.ErrNotPending) {
		t.Fatalf("unknown ID = %v", err)
	}
}

// A Turn cancelled while a permission request waits withdraws it with a
// permission_cancel before done.
func TestRealPermissionWithdrawnOnCancel(t *testing.T) {
	h, s := realHarness(t)
	ex := newExecutor(t, h, testConfig())
	s.Queue(claudetest.Reply{Tool: &claudetest.ToolUse{Name: "Bash", Input: map[string]any{"command": "touch x.txt", "description": "create"}}})
	r := startRun(t, ex, "run-ask", "make x")
	p := permissionOf(t, r)
	if err := r.turn.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.settle(t)
	var withdrawn bool
	for _, ev := range r.got {
		if _, ok := ev.Payload.(wire.PermissionCancel); ok && ev.InteractionID == p.RequestID {
			withdrawn = true
		}
	}
	if !withdrawn {
		t.Fatalf("no permission_cancel for %s: %v", p.RequestID, r.got)
	}
	if err := r.turn.(agent.PermissionResponder).RespondPermission(context.Background(), p.RequestID, wire.PermissionDecision{Approved: true}); !errors.Is(err, agent.ErrNotPending) {
		t.Fatalf("answer after the withdrawal = %v", err)
	}
}

// Resume in a fresh process continues the same native session with its
// history; an unknown session ID fails with ErrResume and starts no fresh
// conversation; a required session that was never recorded fails too.
func TestRealResume(t *testing.T) {
	h, s := realHarness(t)
	ex := newExecutor(t, h, testConfig())
	s.Queue(claudetest.Reply{Text: []string{"remember 42"}})
	r := startRun(t, ex, "run-1", "the number is 42")
	r.settle(t)
	session := doneOf(t, r.got).Metadata.AgentSessionID
	if session != ex.SessionID() {
		t.Fatalf("done session %q, executor %q", session, ex.SessionID())
	}
	closeExec(t, ex)
	cfg := testConfig()
	cfg.Configuration.AgentSessionID = session
	ex2 := newExecutor(t, h, cfg)
	if ex2.SessionID() != session {
		t.Fatalf("resumed session %s, want %s", ex2.SessionID(), session)
	}
	r2 := startRun(t, ex2, "run-2", "what was it")
	r2.settle(t)
	bodies := s.Requests()
	if !strings.Contains(claudetest.AllText(bodies[len(bodies)-1]), "the number is 42") {
		t.Fatal("the resumed session lost its history")
	}
	if md := doneOf(t, r2.got).Metadata; md == nil || md.AgentSessionID != session {
		t.Fatalf("resumed done metadata %+v", md)
	}
	before := len(s.Requests())
	cfg.Configuration.AgentSessionID = "9d1c6c2e-1111-4222-8333-444444444444"
	if ex3, err := h.NewExecutor(context.Background(), cfg); !errors.Is(err, ErrResume) || ex3 != nil {
		t.Fatalf("resume of an unknown session = %v, %v", ex3, err)
	}
	cfg.Configuration.AgentSessionID = ""
	cfg.Configuration.RequireExistingNativeSession = true
	if ex4, err := h.NewExecutor(context.Background(), cfg); !errors.Is(err, ErrResume) || ex4 != nil {
		t.Fatalf("a required unrecorded session = %v, %v", ex4, err)
	}
	if len(s.Requests()) != before {
		t.Fatal("a failed resume reached the model")
	}
}

// Model errors map to engine codes from structured fields: 401
// authentication_error, 429 rate_limit_exceeded, a persistent 500
// server_error after the bounded retries; the Executor stays reusable.
func TestRealErrorMapping(t *testing.T) {
	h, s := realHarness(t)
	ex := newExecutor(t, h, testConfig())
	for _, c := range []struct {
		status int
		code   string
	}{
		{401, wire.EngineAuthenticationError},
		{429, wire.EngineRateLimitExceeded},
		{500, wire.EngineServerError},
	} {
		s.Clear()
		s.Queue(claudetest.Reply{Status: c.status, Sticky: true})
		before := len(s.Requests())
		start := time.Now()
		r := startRun(t, ex, "run-"+c.code, "hi")
		if st := r.settle(t); !st.Reusable {
			t.Fatalf("%d: settlement %+v", c.status, st)
		}
		e := errorOf(r.got)
		if e == nil || e.Code != c.code {
			t.Fatalf("%d: error %+v, want %s", c.status, e, c.code)
		}
		if tries := len(s.Requests()) - before; tries < 1 || tries > 1+h.opts.MaxRetries {
			t.Fatalf("%d: %d model requests, want at most %d", c.status, tries, 1+h.opts.MaxRetries)
		}
		if r.turn.CancellationOutcome().Completed {
			t.Fatalf("%d: a failed Turn is reported completed", c.status)
		}
		t.Logf("%d: %s after %v", c.status, e.Code, time.Since(start))
	}
	s.Clear()
	ok := startRun(t, ex, "run-ok", "hi")
	ok.settle(t)
	if text(ok.got) != "ok" || errorOf(ok.got) != nil {
		t.Fatalf("the Turn after the errors: %v", ok.got)
	}
}

// A model stream that hangs past the adapter's deadline is interrupted
// and fails with request_timeout; the Executor stays reusable.
func TestRealHangPastDeadline(t *testing.T) {
	s := claudetest.NewServer(t)
	opts := realOptions(t, s)
	opts.Stall = 2 * time.Second
	h := New(opts)
	ex := newExecutor(t, h, testConfig())
	s.Queue(claudetest.Reply{Hang: true})
	r := startRun(t, ex, "run-hang", "hang")
	st := r.settle(t)
	e := errorOf(r.got)
	if !st.Reusable || e == nil || e.Code != wire.EngineRequestTimeout {
		t.Fatalf("settlement %+v error %+v", st, e)
	}
	ok := startRun(t, ex, "run-ok", "hi")
	ok.settle(t)
	if text(ok.got) != "ok" {
		t.Fatalf("the Turn after the hang: %v", ok.got)
	}
}

// A refused connection is retried by the CLI at most MaxRetries times and
// fails with connection_failed; the Executor stays reusable.
func TestRealRefusedConnection(t *testing.T) {
	s := claudetest.NewServer(t)
	opts := realOptions(t, s)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	_ = ln.Close()
	opts.Env = []string{"ANTHROPIC_BASE_URL=" + closed, "ANTHROPIC_API_KEY=sk-ant-claudetest-dummy"}
	h := New(opts)
	ex := newExecutor(t, h, testConfig())
	r := startRun(t, ex, "run-refused", "hi")
	st := r.settle(t)
	e := errorOf(r.got)
	if !st.Reusable || e == nil || e.Code != wire.EngineConnectionFailed {
		t.Fatalf("settlement %+v error %+v", st, e)
	}
}
