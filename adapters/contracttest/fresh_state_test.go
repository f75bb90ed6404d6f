package contracttest_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/contracttest"
	"github.com/turnstile-sim/turnstile/adapters/example"
	"github.com/turnstile-sim/turnstile/wire"
)

// promptFactory starts Turns of the wordecho engine and returns from
// StartTurn only once the native side streamed what it could (as an
// adapter whose start waits on a process does); carry makes every Turn's
// snapshot begin with the previous Turn's output.
type promptFactory struct {
	e     *example.Engine
	carry bool
}

func (f promptFactory) NewExecutor(ctx context.Context, cfg agent.ExecutorConfig) (agent.Executor, error) {
	ex, err := f.e.NewExecutor(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &promptExecutor{Executor: ex.(*example.Executor), carry: f.carry}, nil
}

type promptExecutor struct {
	*example.Executor
	carry bool
	prev  string
}

func (x *promptExecutor) StartTurn(ctx context.Context, req agent.TurnRequest) (agent.Turn, error) {
	t, err := x.Executor.StartTurn(ctx, req)
	if t == nil {
		return nil, err
	}
	synctest.Wait()
	pt := &promptTurn{Turn: t.(*example.Turn)}
	if x.carry {
		pt.prefix = x.prev
		x.prev = pt.Turn.CancellationOutcome().Content
	}
	return pt, err
}

type promptTurn struct {
	*example.Turn
	prefix string
}

func (t *promptTurn) CancellationOutcome() agent.CancellationOutcome {
	o := t.Turn.CancellationOutcome()
	o.Content = t.prefix + o.Content
	return o
}

func promptFixture(e *example.Engine) contracttest.Fixture {
	return contracttest.Fixture{
		Config: agent.ExecutorConfig{SessionID: "session-1",
			Configuration: wire.ExecutionConfiguration{AgentKind: example.Kind}},
		Capabilities: example.Capabilities(),
		Hold:         func() { e.Next(example.Behaviour{Hold: true}) },
		Applied:      e.Applied,
		Effects:      e.Truth,
	}
}

// An echo adapter whose held Turn streams its input before StartTurn
// returns reports the same words as the Turn before it: that is its own
// output, not the previous Turn's, and the clause passes.
func TestFreshStateAcceptsAPromptEchoOfTheSameInput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := example.NewEngine()
		rep := contracttest.CheckLifecycle(promptFactory{e: e}, promptFixture(e))
		r := rep.Result(contracttest.ClauseFreshTurnState)
		if r.Exercised == 0 || len(r.Failures) > 0 {
			t.Fatalf("fresh per-Turn state of an honest echo: %+v\n%s", r, rep)
		}
	})
}

// A Turn whose snapshot begins with the previous Turn's output fails the
// clause.
func TestFreshStateCatchesACarriedSnapshot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := example.NewEngine()
		rep := contracttest.CheckLifecycle(promptFactory{e: e, carry: true}, promptFixture(e))
		r := rep.Result(contracttest.ClauseFreshTurnState)
		if len(r.Failures) == 0 {
			t.Fatalf("a carried snapshot passed fresh per-Turn state: %+v\n%s", r, rep)
		}
	})
}
