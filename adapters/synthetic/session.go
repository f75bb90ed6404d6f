package synthetic

import (
	"context"
	"io"
	"sync"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
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
		_ = ex.Close(context.WithoutCancel(ctx))
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

// Wait blocks until the Turn settled and its Executor's close was attempted,
// and reports the close result.
func (s *Session) Wait(ctx context.Context) error {
	select {
	case <-s.closed:
		return s.closeErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Prepare creates a preparation. The synthetic Harness holds no native
// resource for it and qualifies no workspace operation.
func (h *Harness) Prepare(ctx context.Context, cfg agent.ExecutorConfig) (agent.Prepared, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := validateConfig(cfg); err != nil {
		return nil, err
	}
	return &Prepared{}, nil
}

// Prepared is a synthetic preparation.
type Prepared struct {
	mu        sync.Mutex
	released  bool
	cancelled bool
}

// Release abandons the preparation; idempotent.
func (p *Prepared) Release(context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.released = true
	return nil
}

// CancelPrepared stops the preparation's local work; nothing writes output
// once it returns.
func (p *Prepared) CancelPrepared(context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cancelled = true
	return nil
}

// CancellationOutcome is empty: a preparation observes nothing natively.
func (p *Prepared) CancellationOutcome() agent.CancellationOutcome {
	return agent.CancellationOutcome{}
}

// ReadWorkspaceFile is not qualified for the synthetic Harness.
func (p *Prepared) ReadWorkspaceFile(context.Context, wire.WorkspaceRead) (wire.WorkspaceReadResult, error) {
	return wire.WorkspaceReadResult{}, agent.Unsupported(reasonWorkspace)
}

// ListWorkspaceDirectory is not qualified for the synthetic Harness.
func (p *Prepared) ListWorkspaceDirectory(context.Context, wire.WorkspaceRead) (wire.WorkspaceReadResult, error) {
	return wire.WorkspaceReadResult{}, agent.Unsupported(reasonWorkspace)
}

// WriteWorkspaceFile is not qualified for the synthetic Harness.
func (p *Prepared) WriteWorkspaceFile(context.Context, agent.WorkspaceFile) error {
	return agent.Unsupported(reasonWorkspace)
}

// ExportWorkspace is not qualified for the synthetic Harness: the
// daemon's local owner exports the bound directory instead.
func (p *Prepared) ExportWorkspace(context.Context, io.Writer) (int64, error) {
	return 0, agent.Unsupported(reasonWorkspace)
}
