package runner

import (
	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/daemon"
)

// Executable preparations (adapters/agent: ExecutorFactory). The Executor
// a factory's NewExecutor returns is an executable preparation until a
// Turn starts on it; the runner keeps it marked unused until then. An
// Executor that implements agent.Prepared and agent.PreparedCancellation
// owns its preparation's resources and output through them, and the
// runner drives them:
//
//   - start: the first StartTurn that returns a Turn (with or without an
//     error) consumes the preparation; the Turn owns its output from then
//     on, and the runner never calls CancelPrepared or Release on it.
//   - cancel and unused cleanup: an unused Executor that is retired (the
//     machine's CloseExecutor: idle expiry, eviction, replacement,
//     shutdown) or that a failing NewExecutor returned with its error is
//     abandoned: CancelPrepared (its local work finished, its output
//     writes stopped), then Release (its resources confirmed released),
//     then Close. Any failure keeps it owned: the close is reported
//     failed (or the failed preparation Retained) and the machine retries
//     the same sequence serially.
//
// An Executor that implements neither is retired by Close alone.

// markUnused records a freshly prepared executor.
func (n *Native) markUnused(id string, ex agent.Executor) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.executors[id] = ex
	if n.unused == nil {
		n.unused = map[string]bool{}
	}
	n.unused[id] = true
}

// consumed records that a Turn started on executor id: its preparation
// is no longer unused.
func (n *Native) consumed(id string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	delete(n.unused, id)
}

func (n *Native) isUnused(id string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.unused[id]
}

// abandon cancels and releases an unused executable preparation; an
// Executor that is none has nothing to cancel or release. Both calls are
// idempotent after success, so a retry repeats the sequence.
func (n *Native) abandon(ex agent.Executor) error {
	if c, ok := ex.(agent.PreparedCancellation); ok {
		if err := c.CancelPrepared(n.ctx); err != nil {
			return err
		}
	}
	if p, ok := ex.(agent.Prepared); ok {
		if err := p.Release(n.ctx); err != nil {
			return err
		}
	}
	return nil
}

// retireUnused abandons an unused Executor and closes it.
func (n *Native) retireUnused(ex agent.Executor) error {
	if err := n.abandon(ex); err != nil {
		return err
	}
	return ex.Close(n.ctx)
}

// failedPreparation answers a NewExecutor that returned its Executor with
// err: the runner owns that cleanup. Confirmed, the preparation failed
// without a resource; otherwise the executor stays owned (unused) and the
// failure reports it Retained, so that the machine closes it.
func (n *Native) failedPreparation(op daemon.Prepare, ex agent.Executor, err error) daemon.Result {
	cerr := n.retireUnused(ex)
	if cerr == nil {
		return daemon.PrepareResult{Err: err.Error()}
	}
	n.log.Warn("a failed preparation's executor was not cleaned up; kept for the close", "executor", op.Executor, "err", cerr.Error())
	n.markUnused(op.Executor, ex)
	return daemon.PrepareResult{Err: err.Error(), Retained: true}
}
