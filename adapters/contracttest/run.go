package contracttest

import (
	"context"
	"sync"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// run is one StartTurn with its caller-owned output channel and the
// consumer that drains it, started before the native start.
type run struct {
	runID    string
	turn     agent.Turn
	startErr error
	out      chan agent.Event
	closed   chan struct{} // closed when the consumer saw the channel close

	mu     sync.Mutex
	events []agent.Event
}

func (r *run) consume() {
	for ev := range r.out {
		r.mu.Lock()
		r.events = append(r.events, ev)
		r.mu.Unlock()
	}
	close(r.closed)
}

func (r *run) snapshot() []agent.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]agent.Event(nil), r.events...)
}

// outputClosed waits up to window for the consumer to see the close.
func (r *run) outputClosed(window time.Duration) bool { return waitClosed(r.closed, window) }

// start runs StartTurn and applies the nil-Turn rule: for a nil Turn it
// proves within the window that the adapter neither wrote nor closed the
// output, then closes it as its owner.
func start(rep *report, fx Fixture, ex agent.Executor, runID string, in wire.MessageInput) *run {
	r := &run{runID: runID, out: make(chan agent.Event, wire.OutputFramesMax), closed: make(chan struct{})}
	go r.consume()
	ctx, cancel := context.WithTimeout(context.Background(), fx.Timeout)
	defer cancel()
	r.turn, r.startErr = ex.StartTurn(ctx, agent.TurnRequest{RunID: runID, Input: in, Output: r.out})
	if r.turn != nil {
		return r
	}
	if r.startErr == nil {
		rep.errorf("%s: StartTurn returned a nil Turn without an error", runID)
	}
	if r.outputClosed(fx.Window) {
		rep.errorf("%s: nil Turn but the adapter closed the caller's output channel", runID)
		return r
	}
	if n := len(r.snapshot()); n > 0 {
		rep.errorf("%s: nil Turn but the adapter wrote %d events to the caller's output", runID, n)
	}
	close(r.out)
	<-r.closed
	return r
}

// settle awaits settlement and checks what success promises: the output is
// closed and the settlement is well formed.
func settle(rep *report, fx Fixture, r *run) (agent.TurnSettlement, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), fx.Timeout)
	defer cancel()
	s, err := r.turn.AwaitSettlement(ctx)
	if err != nil {
		rep.errorf("%s: AwaitSettlement: %v", r.runID, err)
		return s, false
	}
	if !r.outputClosed(fx.Window) {
		rep.errorf("%s: settlement reported while the output channel was still open", r.runID)
	}
	if err := s.Validate(); err != nil {
		rep.errorf("%s: %v", r.runID, err)
	}
	return s, true
}

// checkStream checks one Turn's events: its Run ID, run-output payloads,
// increasing delta sequences, nothing but usage after an error, and Done
// as the single last event (required when requireDone).
func checkStream(rep *report, r *run, requireDone bool) (wire.Done, bool) {
	events := r.snapshot()
	var done wire.Done
	var seq uint64
	sawDone, sawError := false, false
	for i, ev := range events {
		if err := ev.Validate(); err != nil {
			rep.errorf("%s: event %d: %v", r.runID, i, err)
			continue
		}
		if ev.RunID != r.runID {
			rep.errorf("%s: event %d carries another Run ID", r.runID, i)
		}
		if sawDone {
			rep.errorf("%s: event %d (%s) after done", r.runID, i, ev.Payload.MessageType())
			continue
		}
		switch p := ev.Payload.(type) {
		case wire.Done:
			sawDone, done = true, p
		case wire.RunError:
			sawError = true
		case wire.UsageUpdate:
		case wire.Delta:
			if p.Sequence != 0 && p.Sequence <= seq {
				rep.errorf("%s: delta sequence %d not increasing", r.runID, p.Sequence)
			}
			seq = max(seq, p.Sequence)
		}
		if sawError && !ev.Terminal() && ev.Payload.MessageType() != wire.TypeUsage &&
			ev.Payload.MessageType() != wire.TypeError {
			rep.errorf("%s: event %d (%s) after error", r.runID, i, ev.Payload.MessageType())
		}
	}
	if requireDone && !sawDone {
		rep.errorf("%s: stream ended without done", r.runID)
	}
	return done, sawDone
}

// newExecutor prepares an Executor or reports why it could not.
func newExecutor(rep *report, f agent.ExecutorFactory, fx Fixture) agent.Executor {
	ctx, cancel := context.WithTimeout(context.Background(), fx.Timeout)
	defer cancel()
	ex, err := f.NewExecutor(ctx, fx.Config)
	if err != nil || ex == nil {
		rep.errorf("NewExecutor: %v", err)
		return nil
	}
	return ex
}

// closeExecutor closes ex and reports a failure.
func closeExecutor(rep *report, fx Fixture, ex agent.Executor) bool {
	ctx, cancel := context.WithTimeout(context.Background(), fx.Timeout)
	defer cancel()
	if err := ex.Close(ctx); err != nil {
		rep.errorf("Close: %v", err)
		return false
	}
	return true
}

func cancelTurn(rep *report, fx Fixture, r *run) {
	ctx, cancel := context.WithTimeout(context.Background(), fx.Timeout)
	defer cancel()
	if err := r.turn.Cancel(ctx); err != nil {
		rep.errorf("%s: Cancel: %v", r.runID, err)
	}
}

func waitClosed(c <-chan struct{}, window time.Duration) bool {
	timer := time.NewTimer(window)
	defer timer.Stop()
	select {
	case <-c:
		return true
	case <-timer.C:
		return false
	}
}
