package adaptertest

import (
	"context"
	"io"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// The observed wrappers show the recorder what the adapter itself shows
// the daemon — Executors created and confirmed closed, Turns returned,
// settlements, receipts reporting application — and change nothing: every
// call goes to the author's adapter unchanged. They implement every
// contract interface of their owner (the package's tests check it against
// contracttest.Contracts), forwarding an extension the adapter does not
// implement as a refusal, which the contract kits report separately.

const reasonNotImplemented agent.UnsupportedReason = "the adapter does not implement this extension"

type observedFactory struct {
	inner agent.ExecutorFactory
	rec   *recorder
}

func (f observedFactory) NewExecutor(ctx context.Context, cfg agent.ExecutorConfig) (agent.Executor, error) {
	ex, err := f.inner.NewExecutor(ctx, cfg)
	if ex == nil {
		return nil, err
	}
	return &observedExecutor{inner: ex, id: f.rec.executorCreated(), rec: f.rec}, err
}

type observedExecutor struct {
	inner agent.Executor
	id    string
	rec   *recorder
}

func (e *observedExecutor) StartTurn(ctx context.Context, req agent.TurnRequest) (agent.Turn, error) {
	t, err := e.inner.StartTurn(ctx, req)
	if t == nil {
		return nil, err
	}
	e.rec.turnCreated(req.RunID, e.id)
	return &observedTurn{inner: t, run: req.RunID, executor: e.id, rec: e.rec}, err
}

func (e *observedExecutor) Close(ctx context.Context) error {
	err := e.inner.Close(ctx)
	if err == nil {
		e.rec.executorClosed(e.id)
	}
	return err
}

func (e *observedExecutor) ReadWorkspaceFile(ctx context.Context, req wire.WorkspaceRead) (wire.WorkspaceReadResult, error) {
	return readFile(ctx, e.inner, req)
}

func (e *observedExecutor) ListWorkspaceDirectory(ctx context.Context, req wire.WorkspaceRead) (wire.WorkspaceReadResult, error) {
	return listDirectory(ctx, e.inner, req)
}

func (e *observedExecutor) WriteWorkspaceFile(ctx context.Context, f agent.WorkspaceFile) error {
	return writeFile(ctx, e.inner, f)
}

type observedTurn struct {
	inner    agent.Turn
	run      string
	executor string
	rec      *recorder
}

func (t *observedTurn) Cancel(ctx context.Context) error { return t.inner.Cancel(ctx) }

func (t *observedTurn) CancellationOutcome() agent.CancellationOutcome {
	return t.inner.CancellationOutcome()
}

func (t *observedTurn) AwaitSettlement(ctx context.Context) (agent.TurnSettlement, error) {
	s, err := t.inner.AwaitSettlement(ctx)
	if err == nil {
		t.rec.turnSettled(t.run, t.executor, s, t.inner.CancellationOutcome().Completed)
	}
	return s, err
}

func (t *observedTurn) SteerDurable(ctx context.Context, in agent.SteerInput) (agent.AppliedReceipt, error) {
	r, err := t.inner.SteerDurable(ctx, in)
	if r == nil {
		return nil, err
	}
	return &observedReceipt{inner: r, run: t.run, input: in.InputID, rec: t.rec}, err
}

func (t *observedTurn) Steer(ctx context.Context, in agent.SteerInput) error {
	if s, ok := t.inner.(agent.Steerer); ok {
		return s.Steer(ctx, in)
	}
	return agent.Unsupported(reasonNotImplemented)
}

func (t *observedTurn) SubmitFunctionResult(ctx context.Context, r wire.FunctionResult) error {
	if s, ok := t.inner.(agent.FunctionResultSubmitter); ok {
		return s.SubmitFunctionResult(ctx, r)
	}
	return agent.Unsupported(reasonNotImplemented)
}

func (t *observedTurn) RespondPermission(ctx context.Context, id string, d wire.PermissionDecision) error {
	if s, ok := t.inner.(agent.PermissionResponder); ok {
		return s.RespondPermission(ctx, id, d)
	}
	return agent.Unsupported(reasonNotImplemented)
}

func (t *observedTurn) RespondUserChoice(ctx context.Context, id string, d wire.UserChoiceDecision) error {
	if s, ok := t.inner.(agent.UserChoiceResponder); ok {
		return s.RespondUserChoice(ctx, id, d)
	}
	return agent.Unsupported(reasonNotImplemented)
}

func (t *observedTurn) ReadWorkspaceFile(ctx context.Context, req wire.WorkspaceRead) (wire.WorkspaceReadResult, error) {
	return readFile(ctx, t.inner, req)
}

func (t *observedTurn) ListWorkspaceDirectory(ctx context.Context, req wire.WorkspaceRead) (wire.WorkspaceReadResult, error) {
	return listDirectory(ctx, t.inner, req)
}

func (t *observedTurn) WriteWorkspaceFile(ctx context.Context, f agent.WorkspaceFile) error {
	return writeFile(ctx, t.inner, f)
}

func readFile(ctx context.Context, v any, req wire.WorkspaceRead) (wire.WorkspaceReadResult, error) {
	if s, ok := v.(agent.WorkspaceReader); ok {
		return s.ReadWorkspaceFile(ctx, req)
	}
	return wire.WorkspaceReadResult{}, agent.Unsupported(reasonNotImplemented)
}

func listDirectory(ctx context.Context, v any, req wire.WorkspaceRead) (wire.WorkspaceReadResult, error) {
	if s, ok := v.(agent.WorkspaceDirectoryLister); ok {
		return s.ListWorkspaceDirectory(ctx, req)
	}
	return wire.WorkspaceReadResult{}, agent.Unsupported(reasonNotImplemented)
}

func writeFile(ctx context.Context, v any, f agent.WorkspaceFile) error {
	if s, ok := v.(agent.WorkspaceWriter); ok {
		return s.WriteWorkspaceFile(ctx, f)
	}
	return agent.Unsupported(reasonNotImplemented)
}

type observedReceipt struct {
	inner agent.AppliedReceipt
	run   string
	input string
	rec   *recorder
}

func (r *observedReceipt) AwaitApplied(ctx context.Context) error {
	err := r.inner.AwaitApplied(ctx)
	if err == nil {
		r.rec.inputApplied(r.run, r.input)
	}
	return err
}

// observedDeclaration returns d with discovery's Executor factory wrapped.
func observedDeclaration(d agent.Declaration, rec *recorder) agent.Declaration {
	discover := d.Discover
	d.Discover = func(ctx context.Context, profile map[string]string, diag io.Writer) (*agent.Runtime, error) {
		rt, err := discover(ctx, profile, diag)
		if rt != nil && rt.Executors != nil {
			cp := *rt
			cp.Executors = observedFactory{inner: rt.Executors, rec: rec}
			rt = &cp
		}
		return rt, err
	}
	return d
}
