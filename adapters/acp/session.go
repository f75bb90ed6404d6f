package acp

import (
	"context"

	"github.com/turnstile-sim/turnstile/adapters/agent"
)

// StartSession is the direct-call path: a fresh Executor runs one Turn and
// is closed once the Turn settled (agent.StartDirect).
func (h *Harness) StartSession(ctx context.Context, cfg agent.ExecutorConfig, req agent.TurnRequest) (agent.Session, error) {
	s, err := agent.StartDirect(ctx, h, cfg, req)
	if s == nil {
		return nil, err
	}
	return s, err
}

// Session is a direct-call execution: one Turn on its own Executor.
type Session = agent.DirectSession
