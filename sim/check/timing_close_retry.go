package check

import "github.com/turnstile-sim/turnstile/wire"

// The daemon's cleanup retries (rules timing_executor_close_retry and
// timing_settlement_retry, Rules), judged from the Harness's ground
// truth: a failed close keeps its target and its resource slot, an
// unconfirmed settlement releases neither ownership nor capacity, and
// both are retried serially, backoff(n) after the n-th failure's answer.
const (
	TimerCloseRetry  = "executor_close_retry"
	TimerSettleRetry = "settlement_retry"

	CheckTimingExecutorCloseRetry = "timing_" + TimerCloseRetry
	CheckTimingSettleRetry        = "timing_" + TimerSettleRetry
)

// cleanupRetry is one cleanup target whose native call failed: the retry
// it is owed.
type cleanupRetry struct {
	target      string
	unconfirmed bool // settlement: the latest answer was unconfirmed
	retryOwed
}

type cleanupRetryState struct {
	closes  map[string]*cleanupRetry // device\x00executor
	settles map[string]*cleanupRetry // device\x00run
}

func (s *cleanupRetryState) init() {
	s.closes = map[string]*cleanupRetry{}
	s.settles = map[string]*cleanupRetry{}
}

func newCleanupRetry(device, target, timer, what string) *cleanupRetry {
	return &cleanupRetry{target: target, retryOwed: retryOwed{timer: timer, who: device, what: what + " " + target, due: -1}}
}

// CloseAnswered records the Harness answering an executor close (ground
// truth): a failure owes a retry at its backoff.
func (l *Ledger) CloseAnswered(at int64, device, executor string, ok bool) {
	l.advance(at)
	s := &l.timing.cleanup
	k := pairKey(device, executor)
	if ok {
		delete(s.closes, k)
		return
	}
	r := s.closes[k]
	if r == nil {
		r = newCleanupRetry(device, executor, TimerCloseRetry, "the close of executor")
		s.closes[k] = r
	}
	l.oweBackoff(&r.retryOwed, at)
}

// closeRetryCalled judges a close reaching the Harness against the retry
// its executor is owed.
func (l *Ledger) closeRetryCalled(at int64, device, executor string) {
	s := &l.timing.cleanup
	if r := s.closes[pairKey(device, executor)]; r != nil {
		l.retried(at, &r.retryOwed)
	}
}

// SettleCalled records a settlement wait for run's Turn reaching the
// Harness (ground truth).
func (l *Ledger) SettleCalled(at int64, device, run string) {
	l.advance(at)
	s := &l.timing.cleanup
	if r := s.settles[pairKey(device, run)]; r != nil {
		l.retried(at, &r.retryOwed)
	}
}

// SettleAnswered records the Harness answering a settlement wait (ground
// truth): unconfirmed owes a retry at its backoff and holds done back.
func (l *Ledger) SettleAnswered(at int64, device, run string, settled bool) {
	l.advance(at)
	s := &l.timing.cleanup
	k := pairKey(device, run)
	r := s.settles[k]
	if r == nil {
		r = newCleanupRetry(device, run, TimerSettleRetry, "the settlement wait of run")
		s.settles[k] = r
	}
	r.unconfirmed = !settled
	if settled {
		r.due = -1
		return
	}
	l.oweBackoff(&r.retryOwed, at)
}

// cleanupDaemonSent: nothing that needs a confirmed settlement leaves
// while the Turn's latest settlement answer is unconfirmed.
func (l *Ledger) cleanupDaemonSent(ev WireEvent) {
	s := &l.timing.cleanup
	r := s.settles[pairKey(ev.From, ev.Frame.ID)]
	if r == nil || !r.unconfirmed {
		return
	}
	what := ""
	switch p := ev.Frame.Payload.(type) {
	case wire.Done:
		what = "done"
	case wire.InteractionDecisionAck:
		if p.Applied {
			what = "an applied cancel receipt"
		}
	}
	if what != "" {
		l.violate(ev.At, CheckTimingSettleRetry, "%s sent %s for run %s at %s while its settlement was unconfirmed (answered at %s, %d in a row)",
			ev.From, what, r.target, vtime(ev.At), vtime(r.refused), r.failures)
	}
}

// cleanupNodeDown: a dead daemon retries nothing; its restart starts over.
func (l *Ledger) cleanupNodeDown(node string) {
	s := &l.timing.cleanup
	for _, m := range []map[string]*cleanupRetry{s.closes, s.settles} {
		for _, k := range sortedKeys(m) {
			if m[k].who == node {
				m[k].due = -1
				delete(m, k)
			}
		}
	}
}
