package claude

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/claude/claudetest"
	"github.com/turnstile-sim/turnstile/wire"
)

// realBinary returns the pinned Claude Code binary: $TURNSTILE_CLAUDE_BIN,
// else the cache scripts/fetch-claude.sh fills (make test runs it first).
// Under -short the real-binary tests are skipped (make test runs them);
// a missing binary fails the test in CI (CI=true) and skips it elsewhere.
func realBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the real Claude Code CLI; make test runs it")
	}
	path := os.Getenv(EnvBinary)
	if path == "" {
		var err error
		if path, err = CachedBinary(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(path); err != nil && os.Getenv("CI") != "true" {
		t.Skipf("no Claude Code binary at %s: fetch it with scripts/fetch-claude.sh (make claude) or set %s", path, EnvBinary)
	}
	if _, err := CheckBinary(context.Background(), path); err != nil {
		t.Fatalf("%v\nfetch the pinned binary with scripts/fetch-claude.sh (make claude) or set %s", err, EnvBinary)
	}
	return path
}

// realOptions are the options of the pinned binary against s, with an
// isolated HOME.
func realOptions(t *testing.T, s *claudetest.Server) Options {
	return Options{Binary: realBinary(t), Home: t.TempDir(), Env: s.Env(), WorkDir: t.TempDir(),
		Grace: 3 * time.Second, MaxRetries: 1, Stall: 60 * time.Second}
}

// realHarness is the pinned binary against a fresh fake Messages API.
func realHarness(t *testing.T) (*Harness, *claudetest.Server) {
	t.Helper()
	s := claudetest.NewServer(t)
	return New(realOptions(t, s)), s
}

func testConfig() agent.ExecutorConfig {
	return agent.ExecutorConfig{SessionID: "session-1", Configuration: wire.ExecutionConfiguration{
		AgentKind: Kind, DisableExecutionEnvironment: true, StrictResume: true, DisableSubagents: true,
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

func awaitApplied(t *testing.T, rc agent.AppliedReceipt) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return rc.AwaitApplied(ctx)
}
