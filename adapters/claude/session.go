package claude

import (
	"context"
	"sync"

	"github.com/turnstile-sim/turnstile/adapters/agent"
)

// StartSession is the direct-call path: a fresh Executor runs one Turn and
// is closed once the Turn settled. It follows the nil-Turn rule.
func (h *Harness) StartSession(ctx context.Context, cfg agent.ExecutorConfig, req agent.TurnRequest) (agent.Session, error) {
	ex, err := h.NewExecutor(ctx, cfg)
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
	s := &Session{turn: turn, closed: make(chan struct{})}
	go s.teardown(ex)
	return s, err
}

// Session is a direct-call execution: one Turn on its own Executor.
type Session struct {
	turn     agent.Turn
	closed   chan struct{}
	closeErr error // written before closed closes
	once     sync.Once
}

func (s *Session) teardown(ex agent.Executor) {
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
func (s *Session) Cancel(ctx context.Context) error { return s.turn.Cancel(ctx) }

// CancellationOutcome returns the Turn's snapshot without waiting.
func (s *Session) CancellationOutcome() agent.CancellationOutcome {
	return s.turn.CancellationOutcome()
}

// Wait blocks until the Turn settled and its Executor's close was
// attempted, and reports the close result.
func (s *Session) Wait(ctx context.Context) error {
	select {
	case <-s.closed:
		return s.closeErr
	case <-ctx.Done():
		return ctx.Err()
	}
}
