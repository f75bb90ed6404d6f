package claude

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/claude/claudetest"
	"github.com/turnstile-sim/turnstile/wire"
)

func steer(t *testing.T, turn agent.Turn, id, s string) agent.AppliedReceipt {
	t.Helper()
	rc, err := turn.SteerDurable(context.Background(), agent.SteerInput{InputID: id, Input: wire.TextInput(s)})
	if err != nil {
		t.Fatalf("SteerDurable %s: %v", id, err)
	}
	return rc
}

// A steer written while the model streams is folded at the next tool
// boundary: the receipt is applied inside the Turn, the next model
// request carries it after the tool result, and one done ends the Turn.
// A repeat of the input ID returns the same receipt; other content is a
// conflict.
func TestRealSteerFoldedAtToolBoundary(t *testing.T) {
	h, s := realHarness(t)
	ex := newExecutor(t, h, testConfig())
	hold := make(chan struct{})
	s.Queue(claudetest.Reply{Text: []string{"working", " on it"}, Hold: hold,
		Tool: &claudetest.ToolUse{Name: "Bash", Input: map[string]any{"command": "echo boundary", "description": "print"}}},
		claudetest.Reply{Text: []string{"steered answer"}, Match: "also this"})
	r := startRun(t, ex, "run-steer", "start")
	r.until(t, isDelta)
	rc := steer(t, r.turn, "input-7f", "also this")
	if again := steer(t, r.turn, "input-7f", "also this"); again != rc {
		t.Fatal("a repeat of the same input returned another receipt")
	}
	if _, err := r.turn.SteerDurable(context.Background(), agent.SteerInput{InputID: "input-7f", Input: wire.TextInput("other")}); !errors.Is(err, agent.ErrInputConflict) {
		t.Fatalf("conflicting repeat = %v", err)
	}
	close(hold)
	if err := awaitApplied(t, rc); err != nil {
		t.Fatalf("AwaitApplied = %v", err)
	}
	if st := r.settle(t); !st.Reusable {
		t.Fatalf("settlement %+v", st)
	}
	if got := text(r.got); got != "working on itsteered answer" {
		t.Fatalf("streamed %q", got)
	}
	calls := toolCalls(r.got)
	if len(calls) != 2 || calls[0].Name != "Bash" || calls[0].Stage != wire.ToolStageBefore || calls[1].Stage != wire.ToolStageAfter || calls[0].ID != calls[1].ID {
		t.Fatalf("tool calls %+v", calls)
	}
	bodies := s.Requests()
	if len(bodies) != 2 || !strings.Contains(claudetest.LastUserText(bodies[1]), "also this") || !strings.Contains(claudetest.LastUserText(bodies[1]), "boundary") {
		t.Fatalf("the folded request lacks the tool result and the steer: %q", claudetest.LastUserText(bodies[len(bodies)-1]))
	}
}

// A steer written when no tool boundary is left runs as the next native
// turn, which still belongs to this Turn: its output streams to the same
// Run, the receipt is applied, and the Turn settles after it (one done).
func TestRealSteerWithoutBoundaryContinuesTheTurn(t *testing.T) {
	h, s := realHarness(t)
	ex := newExecutor(t, h, testConfig())
	hold := make(chan struct{})
	s.Queue(claudetest.Reply{Text: []string{"first", " answer"}, Hold: hold},
		claudetest.Reply{Text: []string{" and the steer"}, Match: "late steer"},
		claudetest.Reply{Text: []string{"next turn"}, Match: "next"})
	r := startRun(t, ex, "run-late", "start")
	r.until(t, isDelta)
	rc := steer(t, r.turn, "input-late", "late steer")
	close(hold)
	if err := awaitApplied(t, rc); err != nil {
		t.Fatalf("AwaitApplied = %v", err)
	}
	if st := r.settle(t); !st.Reusable {
		t.Fatalf("settlement %+v", st)
	}
	if got := text(r.got); got != "first answer and the steer" {
		t.Fatalf("streamed %q", got)
	}
	dones := 0
	for _, ev := range r.got {
		if ev.Terminal() {
			dones++
		}
	}
	if dones != 1 || doneOf(t, r.got).Content != "first answer and the steer" {
		t.Fatalf("%d dones, events %v", dones, r.got)
	}
	next := startRun(t, ex, "run-next", "next")
	next.settle(t)
	if text(next.got) != "next turn" {
		t.Fatalf("next Turn streamed %q", text(next.got))
	}
}

// A steer whose Turn ends without proof that the CLI consumed it (the
// CLI dies while the model streams) is unknown, never applied or
// refused; the Executor retires.
func TestRealSteerWithoutProofIsUnknown(t *testing.T) {
	h, s := realHarness(t)
	ex := newExecutor(t, h, testConfig())
	hold := make(chan struct{})
	defer close(hold)
	s.Queue(claudetest.Reply{Text: []string{"streaming", " never"}, Hold: hold})
	r := startRun(t, ex, "run-unknown", "start")
	r.until(t, isDelta)
	rc := steer(t, r.turn, "input-lost", "maybe applied")
	_ = syscall.Kill(-ex.Pid(), syscall.SIGKILL)
	st := r.settle(t)
	if st.Reusable || st.Reason == "" {
		t.Fatalf("settlement %+v", st)
	}
	if err := awaitApplied(t, rc); !errors.Is(err, ErrApplyUnknown) {
		t.Fatalf("AwaitApplied = %v, want ErrApplyUnknown", err)
	}
	if e := errorOf(r.got); e == nil {
		t.Fatalf("no run error after the CLI died: %v", r.got)
	}
	if _, err := ex.StartTurn(context.Background(), agent.TurnRequest{RunID: "after", Input: wire.TextInput("x"), Output: make(chan agent.Event, 1)}); !errors.Is(err, agent.ErrExecutorUnavailable) {
		t.Fatalf("StartTurn on a retired Executor = %v", err)
	}
	closeExec(t, ex)
}
