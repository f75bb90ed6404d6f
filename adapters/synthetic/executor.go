package synthetic

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// Executor is one synthetic native session: it runs one Turn at a time and
// keeps its native session identity across Turns.
type Executor struct {
	h             *Harness
	cfg           agent.ExecutorConfig
	nativeSession string

	mu      sync.Mutex
	active  *Turn  // the unsettled Turn, if any
	retired string // set by a non-reusable settlement
	closing bool   // a Close is in progress: no new Turn
	closed  bool
	// started: a Turn started, consuming the preparation; abandoned: the
	// unused preparation was cancelled or released (no Turn starts).
	started, abandoned bool
}

// StartTurn starts one Turn; see agent.Executor for the nil-Turn rule.
func (e *Executor) StartTurn(ctx context.Context, req agent.TurnRequest) (agent.Turn, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	text, err := req.Input.TextOnly()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", agent.Unsupported(reasonImages), err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case e.closed, e.closing:
		return nil, fmt.Errorf("%w: executor closed", agent.ErrExecutorUnavailable)
	case e.retired != "":
		return nil, fmt.Errorf("%w: executor retired", agent.ErrExecutorUnavailable)
	case e.abandoned:
		return nil, fmt.Errorf("%w: preparation abandoned", agent.ErrExecutorUnavailable)
	case e.active != nil:
		return nil, agent.ErrExecutorBusy
	}
	script := e.h.nextScript()
	if script.StartFailure == StartFailsBeforeInput {
		return nil, fmt.Errorf("%w: synthetic start refused", agent.ErrExecutorUnavailable)
	}
	t := newTurn(e, req, script)
	e.active, e.started = t, true
	e.h.record(func(tr *Truth) {
		tr.TurnsStarted++
		tr.InputsApplied = append(tr.InputsApplied, text)
	})
	if script.StartFailure == StartFailsAfterInput {
		go t.abandon()
		return t, ErrStartFailedAfterInput
	}
	go t.run(text)
	return t, nil
}

// ErrStartFailedAfterInput is the scripted StartFailsAfterInput error.
var ErrStartFailedAfterInput = errors.New("synthetic: start failed after input was submitted")

// settled is called by a Turn once its output is closed.
func (e *Executor) settled(t *Turn, s agent.TurnSettlement) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.active == t {
		e.active = nil
	}
	if !s.Reusable && e.retired == "" {
		e.retired = s.Reason
	}
}

// Close cancels an unsettled Turn, waits for its settlement within ctx and
// then releases the native session. It is idempotent after success; a
// failure keeps the Executor owned for a serial retry.
func (e *Executor) Close(ctx context.Context) error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closing = true
	active := e.active
	e.mu.Unlock()
	err := e.release(ctx, active)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closing = false
	if err != nil {
		return err
	}
	if !e.closed {
		e.closed = true
		e.h.record(func(tr *Truth) { tr.ExecutorsClosed++ })
	}
	return nil
}

// errPreparationStarted refuses CancelPrepared and Release of an
// Executor a Turn started on: its preparation is consumed (the Runtime
// retires it with Close).
var errPreparationStarted = fmt.Errorf("%w: the preparation was started", agent.ErrInvalidRequest)

// CancelPrepared abandons the unused preparation: no Turn starts on the
// Executor afterwards. A synthetic preparation runs no native work and
// writes no output before its first Turn, so its local cleanup is done
// when the flag is set. Idempotent.
func (e *Executor) CancelPrepared(context.Context) error {
	return e.abandon(func(tr *Truth) { tr.PreparationsCancelled++ })
}

// Release abandons the unused preparation and confirms its cleanup (it
// holds nothing Close does not release). Idempotent.
func (e *Executor) Release(context.Context) error {
	return e.abandon(func(tr *Truth) { tr.PreparationsReleased++ })
}

func (e *Executor) abandon(count func(*Truth)) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.started {
		return errPreparationStarted
	}
	e.abandoned = true
	e.h.record(count)
	return nil
}

// CancellationOutcome of an unused preparation is empty: it observed
// nothing and produced no output.
func (e *Executor) CancellationOutcome() agent.CancellationOutcome {
	return agent.CancellationOutcome{}
}

// release settles the active Turn and releases the native session.
func (e *Executor) release(ctx context.Context, active *Turn) error {
	if active != nil {
		_ = active.Cancel(ctx)
		if _, err := active.AwaitSettlement(ctx); err != nil {
			return fmt.Errorf("%w: turn not settled: %w", agent.ErrCloseFailed, err)
		}
	}
	if e.h.takeCloseFailure() {
		return fmt.Errorf("%w: synthetic close refused", agent.ErrCloseFailed)
	}
	return nil
}

// ReadWorkspaceFile is not qualified for the synthetic Harness.
func (e *Executor) ReadWorkspaceFile(context.Context, wire.WorkspaceRead) (wire.WorkspaceReadResult, error) {
	return wire.WorkspaceReadResult{}, agent.Unsupported(reasonWorkspace)
}

// ListWorkspaceDirectory is not qualified for the synthetic Harness.
func (e *Executor) ListWorkspaceDirectory(context.Context, wire.WorkspaceRead) (wire.WorkspaceReadResult, error) {
	return wire.WorkspaceReadResult{}, agent.Unsupported(reasonWorkspace)
}

// WriteWorkspaceFile is not qualified for the synthetic Harness.
func (e *Executor) WriteWorkspaceFile(context.Context, agent.WorkspaceFile) error {
	return agent.Unsupported(reasonWorkspace)
}

// Fixed, safe reasons of designed refusals.
const (
	reasonImages       agent.UnsupportedReason = "synthetic harness accepts text input only"
	reasonWorkspace    agent.UnsupportedReason = "synthetic harness has no workspace"
	reasonFunctions    agent.UnsupportedReason = "synthetic harness has no public function tools"
	reasonMCP          agent.UnsupportedReason = "synthetic harness connects to no MCP server"
	reasonInteractions agent.UnsupportedReason = "synthetic harness emits no interactions"
)

// Installed is the installed-capability snapshot the factory received
// (a copy): the synthetic Harness reads no skill or plugin, but reports
// what it was given.
func (e *Executor) Installed() []agent.InstalledCapability {
	return append([]agent.InstalledCapability(nil), e.cfg.Installed...)
}
