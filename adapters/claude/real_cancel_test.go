package claude

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/claude/claudetest"
	"github.com/turnstile-sim/turnstile/wire"
)

// Cancel of the exact Turn while the model streams: interrupt, then the
// result aborted_streaming settles it; the content so far is kept, no
// error is reported, the same process runs the next Turn with its
// history, and no event of the cancelled Turn reaches the next one.
func TestRealCancelExactTurnThenNextHealthy(t *testing.T) {
	h, s := realHarness(t)
	ex := newExecutor(t, h, testConfig())
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
	next.settle(t)
	if text(next.got) != "fresh" || ex.Pid() != pid {
		t.Fatalf("next Turn streamed %q on pid %d (was %d)", text(next.got), ex.Pid(), pid)
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

// Cancel right after StartTurn, before the CLI started the input: the
// Turn settles without error, and the next Turn is healthy.
func TestRealCancelBeforeStart(t *testing.T) {
	h, s := realHarness(t)
	ex := newExecutor(t, h, testConfig())
	// The "next" reply is queued first: when the interrupt lands after
	// the CLI took "early" in, the next request's last user message is
	// "early [Request interrupted by user] next", which the hanging
	// reply would match too.
	s.Queue(claudetest.Reply{Text: []string{"after"}, Match: "next"}, claudetest.Reply{Hang: true, Match: "early"})
	r := startRun(t, ex, "run-early", "early")
	if err := r.turn.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := r.settle(t); !st.Reusable {
		t.Fatalf("settlement %+v", st)
	}
	if r.turn.CancellationOutcome().Completed || errorOf(r.got) != nil {
		t.Fatalf("events %v", r.got)
	}
	next := startRun(t, ex, "run-after", "next")
	next.settle(t)
	if text(next.got) != "after" {
		t.Fatalf("next Turn streamed %q", text(next.got))
	}
}

// A steer written before a cancel is cancelled with the queued inputs:
// its receipt is not applied (ErrTurnInactive) and it never runs; a steer
// after the cancel is refused.
func TestRealCancelWithdrawsQueuedSteer(t *testing.T) {
	h, s := realHarness(t)
	ex := newExecutor(t, h, testConfig())
	hold := make(chan struct{})
	defer close(hold)
	s.Queue(claudetest.Reply{Text: []string{"held"}, Hold: hold}, claudetest.Reply{Text: []string{"next"}, Match: "next"})
	r := startRun(t, ex, "run-withdraw", "start")
	r.until(t, isDelta)
	rc := steer(t, r.turn, "input-queued", "never runs")
	if err := r.turn.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := r.turn.SteerDurable(context.Background(), agent.SteerInput{InputID: "input-late", Input: wire.TextInput("x")}); !errors.Is(err, agent.ErrTurnInactive) {
		t.Fatalf("steer after cancel = %v", err)
	}
	if st := r.settle(t); !st.Reusable {
		t.Fatalf("settlement %+v", st)
	}
	if err := awaitApplied(t, rc); !errors.Is(err, agent.ErrTurnInactive) {
		t.Fatalf("AwaitApplied = %v", err)
	}
	next := startRun(t, ex, "run-next", "next")
	next.settle(t)
	for _, b := range s.Requests() {
		if strings.Contains(claudetest.AllText(b), "never runs") {
			t.Fatal("a cancelled steer reached the model")
		}
	}
}

// Close stops the CLI's whole process group and removes the private
// working directory; a second Close is a no-op.
func TestRealCloseReapsProcessGroup(t *testing.T) {
	h, s := realHarness(t)
	ex := newExecutor(t, h, testConfig())
	hold := make(chan struct{})
	defer close(hold)
	s.Queue(claudetest.Reply{Text: []string{"held"}, Hold: hold})
	r := startRun(t, ex, "run-close", "start")
	r.until(t, isDelta)
	pid, dir := ex.Pid(), ex.WorkDir()
	closeExec(t, ex)
	r.settle(t)
	if errorOf(r.got) != nil || doneOf(t, r.got).Content != "held" {
		t.Fatalf("the Turn Close cancelled: events %v", r.got)
	}
	if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("process group %d still exists: %v", pid, err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("working directory %s not removed: %v", dir, err)
	}
	closeExec(t, ex)
	if _, err := ex.StartTurn(context.Background(), agent.TurnRequest{RunID: "x", Input: wire.TextInput("x"), Output: make(chan agent.Event, 1)}); !errors.Is(err, agent.ErrExecutorUnavailable) {
		t.Fatalf("StartTurn after Close = %v", err)
	}
}

// The CLI dying in the middle of a Turn settles it non-reusable with an
// error; Close then confirms the release.
func TestRealNativeExitRetires(t *testing.T) {
	h, s := realHarness(t)
	ex := newExecutor(t, h, testConfig())
	hold := make(chan struct{})
	defer close(hold)
	s.Queue(claudetest.Reply{Text: []string{"held"}, Hold: hold})
	r := startRun(t, ex, "run-exit", "start")
	r.until(t, isDelta)
	_ = syscall.Kill(-ex.Pid(), syscall.SIGKILL)
	if st := r.settle(t); st.Reusable || st.Reason == "" || errorOf(r.got) == nil {
		t.Fatalf("settlement %+v events %v", st, r.got)
	}
	closeExec(t, ex)
}

// The private working directory is the CLI's cwd; with a local
// environment the CLI runs in the bound workspace.
func TestRealWorkingDirectory(t *testing.T) {
	h, s := realHarness(t)
	ws := t.TempDir()
	cfg := testConfig()
	cfg.Configuration.DisableExecutionEnvironment = false
	cfg.Configuration.LocalEnvironment = &wire.LocalEnvironment{ID: "env-1"}
	cfg.WorkspaceRoot = ws
	ex := newExecutor(t, h, cfg)
	s.Queue(claudetest.Reply{Tool: &claudetest.ToolUse{Name: "Bash", Input: map[string]any{"command": "pwd", "description": "where"}}}, claudetest.Reply{Text: []string{"ok"}})
	r := startRun(t, ex, "run-pwd", "where are you")
	r.settle(t)
	bodies := s.Requests()
	if ex.WorkDir() != ws || len(bodies) != 2 || !strings.Contains(claudetest.LastUserText(bodies[1]), filepath.Clean(ws)) {
		t.Fatalf("cwd %s, tool result %q, want %s", ex.WorkDir(), claudetest.LastUserText(bodies[len(bodies)-1]), ws)
	}
	closeExec(t, ex)
	if _, err := os.Stat(ws); err != nil {
		t.Fatalf("Close removed the bound workspace: %v", err)
	}
	cfg.WorkspaceRoot = ""
	if _, err := h.NewExecutor(context.Background(), cfg); !errors.Is(err, agent.ErrInvalidConfiguration) {
		t.Fatalf("local environment without a workspace = %v", err)
	}
}
