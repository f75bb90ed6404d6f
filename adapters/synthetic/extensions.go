package synthetic

import (
	"context"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// Designed refusals. Each method is written out so that a future contract
// interface never looks implemented by accident; none has a native effect.

// ReadWorkspaceFile is not qualified for the synthetic Harness.
func (t *Turn) ReadWorkspaceFile(context.Context, wire.WorkspaceRead) (wire.WorkspaceReadResult, error) {
	return wire.WorkspaceReadResult{}, agent.Unsupported(reasonWorkspace)
}

// ListWorkspaceDirectory is not qualified for the synthetic Harness.
func (t *Turn) ListWorkspaceDirectory(context.Context, wire.WorkspaceRead) (wire.WorkspaceReadResult, error) {
	return wire.WorkspaceReadResult{}, agent.Unsupported(reasonWorkspace)
}

// WriteWorkspaceFile is not qualified for the synthetic Harness.
func (t *Turn) WriteWorkspaceFile(context.Context, agent.WorkspaceFile) error {
	return agent.Unsupported(reasonWorkspace)
}
