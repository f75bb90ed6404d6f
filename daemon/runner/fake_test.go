package runner_test

import (
	"context"
	"sync"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// fake is a deliberately broken adapter for the runner's own rules: it
// panics where told and emits its whole output inside StartTurn.
type fake struct {
	mu           sync.Mutex
	panicPrepare bool
	hangPrepare  string // NewExecutor for this Session blocks until cancelled
	panicStart   bool
	panicSteer   bool
	panicCloses  int  // the next n Close calls panic
	emit         int  // deltas StartTurn writes before it returns
	hold         bool // the Turn runs until cancelled
	outCap       int  // capacity of the output channel StartTurn was given
	closes       int  // Close calls that returned
	closeCalls   int
}

func (f *fake) Executors(string) (agent.ExecutorFactory, bool) { return f, true }

func (f *fake) NewExecutor(ctx context.Context, cfg agent.ExecutorConfig) (agent.Executor, error) {
	if f.panicPrepare {
		panic("fake: prepare exploded")
	}
	if cfg.SessionID == f.hangPrepare {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return &fakeExecutor{f: f}, nil
}

type fakeExecutor struct{ f *fake }

func (x *fakeExecutor) StartTurn(_ context.Context, req agent.TurnRequest) (agent.Turn, error) {
	f := x.f
	f.mu.Lock()
	f.outCap = cap(req.Output)
	f.mu.Unlock()
	if f.panicStart {
		panic("fake: start exploded")
	}
	// Every send blocks once the channel is full: this returns only if a
	// consumer drains the channel while StartTurn runs.
	content := ""
	for i := 1; i <= f.emit; i++ {
		req.Output <- agent.Event{RunID: req.RunID, Payload: wire.Delta{Delta: "x", Sequence: uint64(i)}}
		content += "x"
	}
	t := &fakeTurn{f: f, content: content, out: req.Output, run: req.RunID, settled: make(chan struct{})}
	if !f.hold {
		t.end()
	}
	return t, nil
}

func (x *fakeExecutor) Close(context.Context) error {
	f := x.f
	f.mu.Lock()
	f.closeCalls++
	boom := f.panicCloses > 0
	if boom {
		f.panicCloses--
	}
	f.mu.Unlock()
	if boom {
		panic("fake: close exploded")
	}
	f.mu.Lock()
	f.closes++
	f.mu.Unlock()
	return nil
}

func (f *fake) counts() (outCap, closeCalls, closes int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.outCap, f.closeCalls, f.closes
}

type fakeTurn struct {
	f       *fake
	content string
	run     string
	out     chan<- agent.Event
	once    sync.Once
	settled chan struct{}
}

// end writes done, closes the output and settles, once.
func (t *fakeTurn) end() {
	t.once.Do(func() {
		t.out <- agent.Event{RunID: t.run, Payload: wire.Done{Content: t.content}}
		close(t.out)
		close(t.settled)
	})
}

func (t *fakeTurn) Cancel(context.Context) error {
	go t.end()
	return nil
}
func (t *fakeTurn) CancellationOutcome() agent.CancellationOutcome {
	return agent.CancellationOutcome{Content: t.content, Completed: true}
}
func (t *fakeTurn) SteerDurable(context.Context, agent.SteerInput) (agent.AppliedReceipt, error) {
	if t.f.panicSteer {
		panic("fake: steer exploded")
	}
	return nil, agent.ErrTurnInactive
}
func (t *fakeTurn) AwaitSettlement(ctx context.Context) (agent.TurnSettlement, error) {
	select {
	case <-t.settled:
		return agent.Reuse(), nil
	case <-ctx.Done():
		return agent.TurnSettlement{}, agent.ErrNotSettled
	}
}
