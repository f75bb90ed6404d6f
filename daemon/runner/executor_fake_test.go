package runner_test

import (
	"context"
	"sync"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// recordingExecutor is an Executor whose Turns complete at once; it
// records the calls the Runtime made on it, in order.
type recordingExecutor struct {
	mu    sync.Mutex
	calls []string
	// failRelease fails the next Release once; refuseStart makes every
	// StartTurn a nil-Turn refusal.
	failRelease, refuseStart bool
}

func (x *recordingExecutor) record(call string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.calls = append(x.calls, call)
}

// Calls returns the recorded calls.
func (x *recordingExecutor) Calls() []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	return append([]string(nil), x.calls...)
}

func (x *recordingExecutor) StartTurn(_ context.Context, req agent.TurnRequest) (agent.Turn, error) {
	x.record("StartTurn")
	x.mu.Lock()
	refuse := x.refuseStart
	x.mu.Unlock()
	if refuse {
		return nil, agent.ErrExecutorUnavailable
	}
	req.Output <- agent.Event{RunID: req.RunID, Payload: wire.Done{Content: "ok"}}
	close(req.Output)
	return doneTurn{}, nil
}

func (x *recordingExecutor) Close(context.Context) error {
	x.record("Close")
	return nil
}

// doneTurn is a Turn that already settled, reusable.
type doneTurn struct{}

func (doneTurn) Cancel(context.Context) error                   { return nil }
func (doneTurn) CancellationOutcome() agent.CancellationOutcome { return agent.CancellationOutcome{} }
func (doneTurn) AwaitSettlement(context.Context) (agent.TurnSettlement, error) {
	return agent.TurnSettlement{Reusable: true}, nil
}
func (doneTurn) SteerDurable(context.Context, agent.SteerInput) (agent.AppliedReceipt, error) {
	return nil, agent.ErrTurnInactive
}

// preparedExecutor is a recordingExecutor that is an executable
// preparation: it implements Prepared and PreparedCancellation.
type preparedExecutor struct{ *recordingExecutor }

func (p *preparedExecutor) Release(context.Context) error {
	p.record("Release")
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.failRelease {
		p.failRelease = false
		return agent.ErrCloseFailed
	}
	return nil
}

func (p *preparedExecutor) CancelPrepared(context.Context) error {
	p.record("CancelPrepared")
	return nil
}

func (p *preparedExecutor) CancellationOutcome() agent.CancellationOutcome {
	return agent.CancellationOutcome{}
}

var (
	_ agent.Prepared             = (*preparedExecutor)(nil)
	_ agent.PreparedCancellation = (*preparedExecutor)(nil)
)
