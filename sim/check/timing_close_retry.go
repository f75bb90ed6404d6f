package check

// Checks: timing_executor_close_retry and timing_settlement_retry
// (rules.go), from the Harness's ground truth; the read-only profile's
// reader closes (timing_workspace_daemon.go) are kept here too.

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
	readers map[string]*cleanupRetry // device\x00reader
}

func newCleanupRetry(device, target, timer, what string) *cleanupRetry {
	return &cleanupRetry{target: target, retryOwed: retryOwed{timer: timer, who: device, what: what + " " + target, due: -1}}
}

// cleanupAnswered follows a cleanup call's native answer: ok ends the
// target's retries, a failure owes one at its backoff (first makes the
// target's record on its first failure).
func (l *Ledger) cleanupAnswered(m *map[string]*cleanupRetry, at int64, k string, ok bool, first func() *cleanupRetry) {
	if ok {
		delete(*m, k)
		return
	}
	r := (*m)[k]
	if r == nil {
		r = first()
		made(m)[k] = r
	}
	l.oweBackoff(&r.retryOwed, at)
}

// cleanupCalled judges a cleanup call reaching the Harness against the
// retry its target is owed.
func (l *Ledger) cleanupCalled(m map[string]*cleanupRetry, at int64, k string) {
	if r := m[k]; r != nil {
		l.retried(at, &r.retryOwed)
	}
}

// CloseAnswered records the Harness answering an executor close (ground
// truth).
func (l *Ledger) CloseAnswered(at int64, device, executor string, ok bool) {
	l.advance(at)
	l.cleanupAnswered(&l.timing.cleanup.closes, at, pairKey(device, executor), ok, func() *cleanupRetry {
		return newCleanupRetry(device, executor, TimerCloseRetry, "the close of executor")
	})
}

// SettleCalled records a settlement wait for run's Turn reaching the
// Harness (ground truth).
func (l *Ledger) SettleCalled(at int64, device, run string) {
	l.advance(at)
	l.cleanupCalled(l.timing.cleanup.settles, at, pairKey(device, run))
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
		made(&s.settles)[k] = r
	}
	r.unconfirmed = !settled
	if settled {
		r.due = -1
		return
	}
	l.oweBackoff(&r.retryOwed, at)
}

// cleanupSent: nothing that needs a confirmed settlement (what) leaves
// while the Turn's latest settlement answer is unconfirmed.
func (l *Ledger) cleanupSent(ev WireEvent, what string) {
	r := l.timing.cleanup.settles[pairKey(ev.From, ev.Frame.ID)]
	if r != nil && r.unconfirmed {
		l.violate(ev.At, CheckTimingSettleRetry, "%s sent %s for run %s at %s while its settlement was unconfirmed (answered at %s, %d in a row)",
			ev.From, what, r.target, vtime(ev.At), vtime(r.refused), r.failures)
	}
}

// cleanupNodeDown: a dead daemon retries nothing; its restart starts over.
func (l *Ledger) cleanupNodeDown(node string) {
	s := &l.timing.cleanup
	for _, m := range []map[string]*cleanupRetry{s.closes, s.settles, s.readers} {
		for _, k := range sortedKeys(m) {
			if m[k].who == node {
				m[k].due = -1
				delete(m, k)
			}
		}
	}
}
