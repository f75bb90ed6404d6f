package example

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// Fixed, safe reasons of designed refusals.
const (
	reasonTextOnly     agent.UnsupportedReason = "wordecho accepts text input only"
	reasonNotQualified agent.UnsupportedReason = "wordecho does not qualify this operation"
)

// ErrLostStart is the error of a start that submitted input, then failed.
var ErrLostStart = errors.New("wordecho: start failed after input was submitted")

// Executor is one native session: one Turn at a time, one native identity
// for all of them.
type Executor struct {
	engine *Engine
	native string

	mu      sync.Mutex
	active  *Turn
	retired bool
	closed  bool
}

// StartTurn submits one input as a new Turn (see agent.Executor for the
// nil-Turn rule: nil only when nothing was submitted).
func (x *Executor) StartTurn(ctx context.Context, req agent.TurnRequest) (agent.Turn, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	text, err := req.Input.TextOnly()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", agent.Unsupported(reasonTextOnly), err)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	switch {
	case x.closed || x.retired:
		return nil, fmt.Errorf("%w: native session ended", agent.ErrExecutorUnavailable)
	case x.active != nil:
		return nil, agent.ErrExecutorBusy
	}
	b := x.engine.behaviour()
	if b.RefuseStart {
		return nil, fmt.Errorf("%w: native session refused the input", agent.ErrExecutorUnavailable)
	}
	t := newTurn(x, req, b)
	x.active = t
	x.engine.apply(text)
	if b.LoseStart {
		go t.finish(agent.Retire("start outcome unknown"), false)
		return t, ErrLostStart
	}
	go t.run(strings.Fields(text))
	return t, nil
}

func (x *Executor) settled(t *Turn, s agent.TurnSettlement) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.active == t {
		x.active = nil
	}
	x.retired = x.retired || !s.Reusable
}

// Close cancels and settles an unsettled Turn, then closes the native
// session; idempotent after success, retryable after a failure.
func (x *Executor) Close(ctx context.Context) error {
	x.mu.Lock()
	if x.closed {
		x.mu.Unlock()
		return nil
	}
	active := x.active
	x.mu.Unlock()
	if active != nil {
		_ = active.Cancel(ctx)
		if _, err := active.AwaitSettlement(ctx); err != nil {
			return fmt.Errorf("%w: %w", agent.ErrCloseFailed, err)
		}
	}
	if x.engine.takeCloseFailure() {
		return fmt.Errorf("%w: native session did not stop", agent.ErrCloseFailed)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.closed {
		x.closed = true
		x.engine.mu.Lock()
		x.engine.closed++
		x.engine.mu.Unlock()
	}
	return nil
}

// ReadWorkspaceFile is refused: wordecho has no workspace.
func (x *Executor) ReadWorkspaceFile(context.Context, wire.WorkspaceRead) (wire.WorkspaceReadResult, error) {
	return wire.WorkspaceReadResult{}, agent.Unsupported(reasonNotQualified)
}

// ListWorkspaceDirectory is refused: wordecho has no workspace.
func (x *Executor) ListWorkspaceDirectory(context.Context, wire.WorkspaceRead) (wire.WorkspaceReadResult, error) {
	return wire.WorkspaceReadResult{}, agent.Unsupported(reasonNotQualified)
}

// WriteWorkspaceFile is refused: wordecho has no workspace.
func (x *Executor) WriteWorkspaceFile(context.Context, agent.WorkspaceFile) error {
	return agent.Unsupported(reasonNotQualified)
}
