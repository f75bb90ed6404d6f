package localworkspace

import (
	"context"

	"github.com/turnstile-sim/turnstile/adapters/agent"
)

// Preparations opens read-only workspace profiles on the directory the
// Runtime bound for the Session (agent.ExecutorConfig.WorkspaceRoot). It
// starts no Harness process. Register it with
// agent.Registry.RegisterPreparation(kind, true, Preparations{}).
type Preparations struct{}

var _ agent.PreparationFactory = Preparations{}

// Prepare opens the bound directory.
func (Preparations) Prepare(ctx context.Context, cfg agent.ExecutorConfig) (agent.Prepared, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	o, err := Open(cfg.WorkspaceRoot)
	if err != nil {
		return nil, err
	}
	return &Prepared{Owner: o}, nil
}

// Prepared is one open read-only profile: the workspace owner until its
// Release confirmed the close.
type Prepared struct {
	*Owner
}

var (
	_ agent.Prepared                 = (*Prepared)(nil)
	_ agent.WorkspaceReader          = (*Prepared)(nil)
	_ agent.WorkspaceDirectoryLister = (*Prepared)(nil)
	_ agent.WorkspaceWriter          = (*Prepared)(nil)
	_ agent.WorkspaceExporter        = (*Prepared)(nil)
	_ agent.PreparedCancellation     = (*Prepared)(nil)
)

// Release closes the directory handle; a failure keeps it owned (and
// Release may be retried).
func (p *Prepared) Release(context.Context) error { return p.Close() }

// CancelPrepared closes the directory handle: a read-only profile runs no
// native work, so local cleanup is the close itself.
func (p *Prepared) CancelPrepared(context.Context) error { return p.Close() }

// CancellationOutcome is empty: a read-only profile never holds native
// continuity or partial output.
func (p *Prepared) CancellationOutcome() agent.CancellationOutcome {
	return agent.CancellationOutcome{}
}
