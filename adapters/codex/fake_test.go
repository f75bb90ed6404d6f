package codex

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// fakeHarness is a Harness over the fake app-server of this test binary.
type fakeHarness struct {
	*Harness
	dir string
}

func newFakeHarness(t *testing.T) *fakeHarness {
	t.Helper()
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	h := New(Options{Binary: self, Args: []string{"-test.run=^$"}, Env: []string{fakeEnv + "=" + dir},
		WorkDir: t.TempDir(), Grace: time.Second, RetryBudget: 200 * time.Millisecond})
	return &fakeHarness{Harness: h, dir: dir}
}

// arm sets the behaviour of the next turn.
func (f *fakeHarness) arm(t *testing.T, mode string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(f.dir, "mode"), []byte(mode), 0o600); err != nil {
		t.Fatal(err)
	}
}

// effects is the list of inputs the fake applied.
func (f *fakeHarness) effects() string {
	b, _ := os.ReadFile(filepath.Join(f.dir, "effects"))
	return string(b)
}

// applied reports whether the fake applied text (a turn's input or an
// echoed steer).
func (f *fakeHarness) applied(text string) bool {
	return slices.Contains(strings.Split(f.effects(), "\n"), text)
}

func fakeConfig() agent.ExecutorConfig {
	return agent.ExecutorConfig{SessionID: "session-1", Configuration: wire.ExecutionConfiguration{
		AgentKind: Kind, DisableExecutionEnvironment: true, StrictResume: true,
		ExecutionControls: &wire.ExecutionControls{WebSearch: "disabled", TextVerbosity: "medium"},
	}}
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
	return r
}

// next returns the next event, failing at the close.
func (r *turnRun) next(t *testing.T) agent.Event {
	t.Helper()
	ev, ok := <-r.events
	if !ok {
		t.Fatalf("output closed; had %v", r.got)
	}
	r.got = append(r.got, ev)
	return ev
}

// drain reads the rest and returns every event of the Turn.
func (r *turnRun) drain() []agent.Event {
	for ev := range r.events {
		r.got = append(r.got, ev)
	}
	return r.got
}

func (r *turnRun) settle(t *testing.T) agent.TurnSettlement {
	t.Helper()
	r.drain()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := r.turn.AwaitSettlement(ctx)
	if err != nil {
		t.Fatal(err)
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
	var s string
	for _, ev := range evs {
		if d, ok := ev.Payload.(wire.Delta); ok {
			s += d.Delta
		}
	}
	return s
}
