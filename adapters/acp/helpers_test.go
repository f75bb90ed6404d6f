package acp

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/claude"
	"github.com/turnstile-sim/turnstile/adapters/claude/claudetest"
	"github.com/turnstile-sim/turnstile/wire"
)

// realAgent returns the command line of the pinned claude-agent-acp (node
// and the entry point scripts/fetch-acp.sh installs, make test runs it
// first) and the environment that points it at the pinned Claude Code
// binary ($TURNSTILE_CLAUDE_BIN, else scripts/fetch-claude.sh's cache).
// Under -short the real-agent tests are skipped (make test runs them); a
// missing agent or binary fails the test in CI (CI=true) and skips it
// elsewhere.
func realAgent(t *testing.T) ([]string, []string) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the real ACP agent claude-agent-acp; make test runs it")
	}
	entry, err := CachedAgent()
	if err != nil {
		t.Fatal(err)
	}
	bin := os.Getenv(claude.EnvBinary)
	if bin == "" {
		if bin, err = claude.CachedBinary(); err != nil {
			t.Fatal(err)
		}
	}
	node, nodeErr := exec.LookPath("node")
	for _, missing := range []struct {
		ok   bool
		what string
	}{
		{statOK(entry), "no claude-agent-acp at " + entry + ": fetch it with scripts/fetch-acp.sh (make acp)"},
		{statOK(bin), "no Claude Code binary at " + bin + ": fetch it with scripts/fetch-claude.sh (make claude)"},
		{nodeErr == nil, "no node on PATH to run claude-agent-acp"},
	} {
		if missing.ok {
			continue
		}
		if os.Getenv("CI") == "true" {
			t.Fatal(missing.what)
		}
		t.Skip(missing.what)
	}
	if _, err := claude.CheckBinary(context.Background(), bin); err != nil {
		t.Fatalf("%v\nfetch the pinned binary with scripts/fetch-claude.sh (make claude)", err)
	}
	env := []string{"CLAUDE_CODE_EXECUTABLE=" + bin, "CLAUDE_CODE_MAX_RETRIES=1"}
	if os.Geteuid() == 0 {
		env = append(env, "IS_SANDBOX=1") // the agent refuses root outside a sandbox
	}
	return []string{node, entry}, env
}

func statOK(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// realOptions are the options of the pinned agent against s, with an
// isolated HOME.
func realOptions(t *testing.T, s *claudetest.Server) Options {
	cmd, env := realAgent(t)
	return Options{Profile: ClaudeAgentACP(), Command: cmd, Env: append(env, s.Env()...), Home: t.TempDir(),
		WorkDir: t.TempDir(), Grace: 5 * time.Second, Stall: 60 * time.Second}
}

// realHarness is the pinned agent against a fresh fake Messages API.
func realHarness(t *testing.T) (*Harness, *claudetest.Server) {
	t.Helper()
	s := claudetest.NewServer(t)
	return New(realOptions(t, s)), s
}

func testConfig(kind string) agent.ExecutorConfig {
	return agent.ExecutorConfig{SessionID: "session-1", Configuration: wire.ExecutionConfiguration{
		AgentKind: kind, DisableExecutionEnvironment: true, StrictResume: true, DisableSubagents: true,
		ExecutionControls: &wire.ExecutionControls{WebSearch: "disabled"},
	}}
}

func newExecutor(t *testing.T, h *Harness, cfg agent.ExecutorConfig) *Executor {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ex, err := h.NewExecutor(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ex.Close(context.Background()) })
	return ex.(*Executor)
}

// turnRun is one started Turn with its drained output.
type turnRun struct {
	turn   agent.Turn
	err    error
	events chan agent.Event
	got    []agent.Event
}

func startRun(t *testing.T, ex agent.Executor, runID, text string) *turnRun {
	t.Helper()
	r := &turnRun{events: make(chan agent.Event, wire.OutputFramesMax)}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r.turn, r.err = ex.StartTurn(ctx, agent.TurnRequest{RunID: runID, Input: wire.TextInput(text), Output: r.events})
	if r.err != nil || r.turn == nil {
		t.Fatalf("StartTurn %s: %v, %v", runID, r.turn, r.err)
	}
	return r
}

// next returns the next event, failing at the close.
func (r *turnRun) next(t *testing.T) agent.Event {
	t.Helper()
	select {
	case ev, ok := <-r.events:
		if !ok {
			t.Fatalf("output closed; had %v", r.got)
		}
		r.got = append(r.got, ev)
		return ev
	case <-time.After(60 * time.Second):
		t.Fatalf("no event; had %v", r.got)
	}
	return agent.Event{}
}

// until reads events until one satisfies ok.
func (r *turnRun) until(t *testing.T, ok func(agent.Event) bool) agent.Event {
	t.Helper()
	for {
		if ev := r.next(t); ok(ev) {
			return ev
		}
	}
}

func isDelta(ev agent.Event) bool { _, ok := ev.Payload.(wire.Delta); return ok }

func isPermission(ev agent.Event) bool { _, ok := ev.Payload.(wire.PermissionRequest); return ok }

func (r *turnRun) settle(t *testing.T) agent.TurnSettlement {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	for {
		select {
		case ev, ok := <-r.events:
			if ok {
				r.got = append(r.got, ev)
				continue
			}
		case <-ctx.Done():
			t.Fatalf("output not closed; had %v", r.got)
		}
		break
	}
	s, err := r.turn.AwaitSettlement(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, ev := range r.got {
		if err := ev.Validate(); err != nil || ev.RunID == "" {
			t.Fatalf("event %d %+v: %v", i, ev, err)
		}
	}
	return s
}

func closeExec(t *testing.T, ex agent.Executor) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := ex.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

func doneOf(t *testing.T, evs []agent.Event) wire.Done {
	t.Helper()
	if len(evs) == 0 || !evs[len(evs)-1].Terminal() {
		t.Fatalf("stream does not end with done: %v", evs)
	}
	return evs[len(evs)-1].Payload.(wire.Done)
}

func errorOf(evs []agent.Event) *wire.RunError {
	for _, ev := range evs {
		if e, ok := ev.Payload.(wire.RunError); ok {
			return &e
		}
	}
	return nil
}

func text(evs []agent.Event) string {
	var b strings.Builder
	for _, ev := range evs {
		if d, ok := ev.Payload.(wire.Delta); ok {
			b.WriteString(d.Delta)
		}
	}
	return b.String()
}

func toolCalls(evs []agent.Event) []wire.ToolCall {
	var out []wire.ToolCall
	for _, ev := range evs {
		if c, ok := ev.Payload.(wire.ToolCall); ok {
			out = append(out, c)
		}
	}
	return out
}
