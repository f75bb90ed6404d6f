package acp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/claude/claudetest"
	"github.com/turnstile-sim/turnstile/wire"
)

// Cancel of the exact Turn while the model streams: session/cancel, then
// the prompt's answer (stopReason cancelled) settles it; the content so
// far is kept, no error is reported, the same process runs the next Turn
// with its history, and no event of the cancelled Turn reaches the next.
func TestRealCancelThenHealthyTurn(t *testing.T) {
	h, s := realHarness(t)
	ex := newExecutor(t, h, testConfig(h.Kind()))
	pid := ex.Pid()
	hold := make(chan struct{})
	defer close(hold)
	s.Queue(claudetest.Reply{Text: []string{"partial", " never"}, Hold: hold},
		claudetest.Reply{Text: []string{"fresh"}, Match: "next"})
	r := startRun(t, ex, "run-cancel", "cancel me")
	r.until(t, isDelta)
	if err := r.turn.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := r.settle(t); !st.Reusable {
		t.Fatalf("settlement %+v", st)
	}
	o := r.turn.CancellationOutcome()
	if o.Completed || o.Content != "partial" || doneOf(t, r.got).Content != "partial" || errorOf(r.got) != nil {
		t.Fatalf("outcome %+v events %v", o, r.got)
	}
	if err := r.turn.Cancel(context.Background()); err != nil {
		t.Fatalf("a stale cancel = %v", err)
	}
	next := startRun(t, ex, "run-next", "next")
	if st := next.settle(t); !st.Reusable {
		t.Fatalf("next settlement %+v", st)
	}
	if text(next.got) != "fresh" || ex.Pid() != pid || errorOf(next.got) != nil {
		t.Fatalf("next Turn %v on pid %d (was %d)", next.got, ex.Pid(), pid)
	}
	for _, ev := range next.got {
		if ev.RunID != "run-next" || strings.Contains(text([]agent.Event{ev}), "never") {
			t.Fatalf("an event of the cancelled Turn reached the next one: %+v", ev)
		}
	}
	bodies := s.Requests()
	if !strings.Contains(claudetest.AllText(bodies[len(bodies)-1]), "cancel me") {
		t.Fatal("the next Turn lost the history")
	}
}

// A tool call the agent asks permission for becomes a permission_request;
// allow runs the tool (tool_call before and after, the tool's output in
// the next model request), reject makes the tool call fail without
// running it. An unknown or answered ID is ErrNotPending.
func TestRealPermissionAllowAndReject(t *testing.T) {
	for _, allow := range []bool{true, false} {
		name := map[bool]string{true: "allow", false: "reject"}[allow]
		t.Run(name, func(t *testing.T) {
			h, s := realHarness(t)
			ex := newExecutor(t, h, testConfig(h.Kind()))
			marker := filepath.Join(ex.WorkDir(), "made-by-tool")
			s.Queue(claudetest.Reply{Tool: &claudetest.ToolUse{Name: "Bash",
				Input: map[string]any{"command": "touch " + marker, "description": "make a file"}}},
				claudetest.Reply{Text: []string{"after the tool"}})
			r := startRun(t, ex, "run-"+name, "run the tool")
			ev := r.until(t, isPermission)
			req := ev.Payload.(wire.PermissionRequest)
			if req.Tool != "execute" || !strings.Contains(string(req.Payload), "touch") {
				t.Fatalf("permission request %+v", req)
			}
			pr := r.turn.(agent.PermissionResponder)
			if err := pr.RespondPermission(context.Background(), "acp-unknown", wire.PermissionDecision{Approved: true}); !errors.Is(err, agent.ErrNotPending) {
				t.Fatalf("unknown ID = %v", err)
			}
			if err := pr.RespondPermission(context.Background(), req.RequestID, wire.PermissionDecision{Approved: allow}); err != nil {
				t.Fatal(err)
			}
			if err := pr.RespondPermission(context.Background(), req.RequestID, wire.PermissionDecision{Approved: allow}); !errors.Is(err, agent.ErrNotPending) {
				t.Fatalf("answered ID = %v", err)
			}
			if st := r.settle(t); !st.Reusable {
				t.Fatalf("settlement %+v", st)
			}
			if _, err := os.Stat(marker); (err == nil) != allow {
				t.Fatalf("%s: the tool's file exists = %v", name, err == nil)
			}
			calls := toolCalls(r.got)
			if len(calls) != 2 || calls[0].Stage != wire.ToolStageBefore || calls[1].Stage != wire.ToolStageAfter || calls[0].ID != calls[1].ID {
				t.Fatalf("tool calls %+v", calls)
			}
			if text(r.got) != "after the tool" || errorOf(r.got) != nil {
				t.Fatalf("events %v", r.got)
			}
		})
	}
}

// session/load in a fresh process continues the recorded session: the
// next model request carries the first process's history. Loading an
// unknown session ID is ErrResume (the agent's -32002), never a fresh
// session; so is a required session that was never recorded.
func TestRealLoadInFreshProcess(t *testing.T) {
	h, s := realHarness(t)
	ex := newExecutor(t, h, testConfig(h.Kind()))
	s.Queue(claudetest.Reply{Text: []string{"remembered"}}, claudetest.Reply{Text: []string{"continued"}})
	r := startRun(t, ex, "run-1", "remember the word walnut")
	r.settle(t)
	session := doneOf(t, r.got).Metadata.AgentSessionID
	closeExec(t, ex)

	cfg := testConfig(h.Kind())
	cfg.Configuration.AgentSessionID = session
	ex2 := newExecutor(t, h, cfg)
	if ex2.SessionID() != session {
		t.Fatalf("loaded session %s, want %s", ex2.SessionID(), session)
	}
	r2 := startRun(t, ex2, "run-2", "which word?")
	r2.settle(t)
	if text(r2.got) != "continued" || errorOf(r2.got) != nil {
		t.Fatalf("events %v", r2.got)
	}
	for _, ev := range r2.got {
		if strings.Contains(text([]agent.Event{ev}), "remembered") {
			t.Fatal("the load's replay reached the Turn")
		}
	}
	bodies := s.Requests()
	if all := claudetest.AllText(bodies[len(bodies)-1]); !strings.Contains(all, "walnut") || !strings.Contains(all, "remembered") {
		t.Fatalf("the loaded session lacks its history:\n%s", all)
	}

	cfg.Configuration.AgentSessionID = "00000000-0000-4000-8000-000000000000"
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if ex, err := h.NewExecutor(ctx, cfg); ex != nil || !errors.Is(err, ErrResume) {
		t.Fatalf("unknown session: %v, %v", ex, err)
	}
	var rpcErr *rpcError
	if _, err := h.NewExecutor(ctx, cfg); !errors.As(err, &rpcErr) || rpcErr.Code != rpcResourceNotFound {
		t.Fatalf("unknown session error = %v, want JSON-RPC %d", err, rpcResourceNotFound)
	}
}

// A steer through claude-agent-acp's _session/steering during a running
// Turn is accepted (injected) and reaches the model inside the same Turn.
// Acceptance alone is no proof: the receipt stays open until Claude Code
// replays the steered message and starts it (the raw messages the
// profile asks for), then it is applied; a retry keeps the receipt, other
// text conflicts. A steer after the Turn is refused with ErrTurnInactive.
func TestRealSteerThroughExtension(t *testing.T) {
	h, s := realHarness(t)
	ex := newExecutor(t, h, testConfig(h.Kind()))
	hold := make(chan struct{})
	s.Queue(claudetest.Reply{Text: []string{"working"}, Hold: hold},
		claudetest.Reply{Text: []string{"steered answer"}, Match: "turn left"})
	r := startRun(t, ex, "run-steer", "start working")
	r.until(t, isDelta)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rc, err := r.turn.SteerDurable(ctx, agent.SteerInput{InputID: "steer-1", Input: wire.TextInput("turn left")})
	if err != nil {
		t.Fatalf("steer: %v", err)
	}
	again, err := r.turn.SteerDurable(ctx, agent.SteerInput{InputID: "steer-1", Input: wire.TextInput("turn left")})
	if err != nil || again != rc {
		t.Fatalf("retry of the same input: %v, %v", again, err)
	}
	if _, err := r.turn.SteerDurable(ctx, agent.SteerInput{InputID: "steer-1", Input: wire.TextInput("turn right")}); !errors.Is(err, agent.ErrInputConflict) {
		t.Fatalf("conflicting retry = %v", err)
	}
	close(hold)
	if st := r.settle(t); !st.Reusable {
		t.Fatalf("settlement %+v", st)
	}
	if !strings.Contains(text(r.got), "steered answer") {
		t.Fatalf("the steered input's answer is not in the Turn: %v", r.got)
	}
	if err := rc.AwaitApplied(ctx); err != nil {
		t.Fatalf("receipt = %v, want applied", err)
	}
	found := false
	for _, b := range s.Requests() {
		found = found || strings.Contains(claudetest.LastUserText(b), "turn left")
	}
	if !found {
		t.Fatal("the steer never reached the model")
	}
	if _, err := r.turn.SteerDurable(ctx, agent.SteerInput{InputID: "steer-2", Input: wire.TextInput("late")}); !errors.Is(err, agent.ErrTurnInactive) {
		t.Fatalf("steer after the Turn = %v", err)
	}
}

// The direct-call path runs one Turn on a fresh Executor and closes it
// once the Turn settled.
func TestRealDirectSession(t *testing.T) {
	h, s := realHarness(t)
	s.Queue(claudetest.Reply{Text: []string{"direct"}})
	out := make(chan agent.Event, wire.OutputFramesMax)
	sess, err := h.StartSession(t.Context(), testConfig(h.Kind()), agent.TurnRequest{RunID: "run-direct", Input: wire.TextInput("hi"), Output: out})
	if err != nil {
		t.Fatal(err)
	}
	var got []agent.Event
	for ev := range out {
		got = append(got, ev)
	}
	if text(got) != "direct" || !got[len(got)-1].Terminal() {
		t.Fatalf("events %v", got)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := sess.(*Session).Wait(ctx); err != nil {
		t.Fatalf("close after the Turn: %v", err)
	}
}

// Close stops the agent's whole process group (node and the Claude Code
// process it runs) and removes the private working directory; a second
// Close is a no-op.
func TestRealCloseReapsProcessGroup(t *testing.T) {
	h, s := realHarness(t)
	ex := newExecutor(t, h, testConfig(h.Kind()))
	s.Queue(claudetest.Reply{Text: []string{"one"}})
	r := startRun(t, ex, "run-1", "hello")
	r.settle(t)
	pgid, dir := ex.Pid(), ex.WorkDir()
	closeExec(t, ex)
	if live := liveMembers(t, pgid); len(live) > 0 {
		t.Fatalf("process group %d has live members %v", pgid, live)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("working directory %s not removed: %v", dir, err)
	}
	closeExec(t, ex)
	if _, err := ex.StartTurn(context.Background(), agent.TurnRequest{RunID: "r", Input: wire.TextInput("x"), Output: make(chan agent.Event, 1)}); !errors.Is(err, agent.ErrExecutorUnavailable) {
		t.Fatalf("StartTurn after Close = %v", err)
	}
}

// liveMembers lists the processes of group pgid that are not zombies
// (an orphaned zombie waits for the container's init to reap it).
func liveMembers(t *testing.T, pgid int) []string {
	t.Helper()
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var live []string
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
			live = append(live, d.Name()+" "+s[:i+1])
		}
	}
	return live
}
