package acp

import (
	"context"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// Designed refusals, each written out; none has a native effect.

// SubmitFunctionResult is not qualified: no public function tools.
func (t *Turn) SubmitFunctionResult(context.Context, wire.FunctionResult) error {
	return agent.Unsupported(reasonFunctions)
}

// ReadWorkspaceFile is not qualified.
func (t *Turn) ReadWorkspaceFile(context.Context, wire.WorkspaceRead) (wire.WorkspaceReadResult, error) {
	return wire.WorkspaceReadResult{}, agent.Unsupported(reasonWorkspace)
}

// ListWorkspaceDirectory is not qualified.
func (t *Turn) ListWorkspaceDirectory(context.Context, wire.WorkspaceRead) (wire.WorkspaceReadResult, error) {
	return wire.WorkspaceReadResult{}, agent.Unsupported(reasonWorkspace)
}

// WriteWorkspaceFile is not qualified.
func (t *Turn) WriteWorkspaceFile(context.Context, agent.WorkspaceFile) error {
	return agent.Unsupported(reasonWorkspace)
}

// ReadWorkspaceFile is not qualified.
func (e *Executor) ReadWorkspaceFile(context.Context, wire.WorkspaceRead) (wire.WorkspaceReadResult, error) {
	return wire.WorkspaceReadResult{}, agent.Unsupported(reasonWorkspace)
}

// ListWorkspaceDirectory is not qualified.
func (e *Executor) ListWorkspaceDirectory(context.Context, wire.WorkspaceRead) (wire.WorkspaceReadResult, error) {
	return wire.WorkspaceReadResult{}, agent.Unsupported(reasonWorkspace)
}

// WriteWorkspaceFile is not qualified.
func (e *Executor) WriteWorkspaceFile(context.Context, agent.WorkspaceFile) error {
	return agent.Unsupported(reasonWorkspace)
}
