package agent

import (
	"context"
	"sync"
)

// StartDirect is the direct-call path an adapter's StartSession can
// delegate to: a fresh Executor from f runs one Turn and is closed once the
// Turn settled. It follows the nil-Turn rule: when StartTurn returns no
// Turn, the Executor is closed at once and its close error, if any, wins
// over the start error.
func StartDirect(ctx context.Context, f ExecutorFactory, cfg ExecutorConfig, req TurnRequest) (*DirectSession, error) {
	ex, err := f.NewExecutor(ctx, cfg)
	if err != nil {
		return nil, err
	}
	turn, err := ex.StartTurn(ctx, req)
	if turn == nil {
		if cerr := ex.Close(context.WithoutCancel(ctx)); cerr != nil {
			return nil, cerr
		}
		return nil, err
	}
	s := &DirectSession{turn: turn, closed: make(chan struct{})}
	go s.teardown(ex)
	return s, err
}

// DirectSession is a direct-call execution: one Turn on its own Executor.
type DirectSession struct {
	turn     Turn
	closed   chan struct{}
	closeErr error // written before closed closes
	once     sync.Once
}

func (s *DirectSession) teardown(ex Executor) {
	_, err := s.turn.AwaitSettlement(context.Background())
	if err == nil {
		err = ex.Close(context.Background())
	}
	s.once.Do(func() {
		s.closeErr = err
		close(s.closed)
	})
}

// Cancel requests cancellation of the Session's Turn.
func (s *DirectSession) Cancel(ctx context.Context) error { return s.turn.Cancel(ctx) }

// CancellationOutcome returns the Turn's snapshot without waiting.
func (s *DirectSession) CancellationOutcome() CancellationOutcome {
	return s.turn.CancellationOutcome()
}

// Wait blocks until the Turn settled and its Executor's close was
// attempted, and reports the close result.
func (s *DirectSession) Wait(ctx context.Context) error {
	select {
	case <-s.closed:
		return s.closeErr
	case <-ctx.Done():
		return ctx.Err()
	}
}
