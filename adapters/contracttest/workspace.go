package contracttest

import (
	"os"

	"github.com/turnstile-sim/turnstile/adapters/agent"
)

// withWorkspace returns cfg with a workspace directory bound, as the
// daemon binds an Environment's directory before it prepares anything: a
// fresh scratch directory when the fixture names none, removed by done.
// A read-only preparation profile needs one to open at all.
func withWorkspace(cfg agent.ExecutorConfig) (agent.ExecutorConfig, func()) {
	if cfg.WorkspaceRoot != "" {
		return cfg, func() {}
	}
	dir, err := os.MkdirTemp("", "contracttest-workspace-")
	if err != nil {
		return cfg, func() {}
	}
	cfg.WorkspaceRoot = dir
	return cfg, func() { _ = os.RemoveAll(dir) }
}
