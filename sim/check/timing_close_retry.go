package check

// Checks: timing_executor_close_retry and timing_settlement_retry
// (rules.go), from the Harness's ground truth; the read-only profile's
// reader closes (timing_workspace_daemon.go) are kept here too.

// cleanupRetry is one cleanup target whose native call failed: the retry
// it is owed.
type cleanupRetry struct {
	unconfirmed bool // settlement: the latest answer was unconfirmed
	retryOwed
}

type cleanupRetryState struct {
	closes  map[string]*cleanupRetry // device\x00executor
	settles map[string]*cleanupRetry // device\x00run
	readers map[string]*cleanupRetry // device\x00reader
}

// cleanupAnswered follows a cleanup call's native answer on target: ok
// ends its retries, a failure owes one at its backoff (owed is the
// target's record on its first failure).
func (l *Ledger) cleanupAnswered(m *map[string]*cleanupRetry, at int64, target string, ok bool, owed retryOwed) *cleanupRetry {
	k := pairKey(owed.who, target)
	if ok {
		delete(*m, k)
		return nil
	}
	r := (*m)[k]
	if r == nil {
		r = &cleanupRetry{retryOwed: owed}
		made(m)[k] = r
	}
	l.oweBackoff(&r.retryOwed, at)
	return r
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
	l.cleanupAnswered(&l.timing.cleanup.closes, at, executor, ok,
		retryOwed{timer: TimerCloseRetry, who: device, what: "the close of executor " + executor})
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
	if settled {
		l.bindSettled(at, device, run)
	}
	if r := l.timing.cleanup.settles[pairKey(device, run)]; settled && r != nil {
		r.unconfirmed, r.due = false, -1 // its failures in a row still count
	} else if !settled {
		l.cleanupAnswered(&l.timing.cleanup.settles, at, run, false,
			retryOwed{timer: TimerSettleRetry, who: device, what: "the settlement wait of run " + run}).unconfirmed = true
	}
}

// cleanupSent: nothing that needs a confirmed settlement (what) leaves
// while the Turn's latest settlement answer is unconfirmed.
func (l *Ledger) cleanupSent(ev WireEvent, what string) {
	r := l.timing.cleanup.settles[pairKey(ev.From, ev.Frame.ID)]
	if r != nil && r.unconfirmed {
		l.violate(ev.At, CheckTimingSettleRetry, "%s sent %s for run %s at %s while its settlement was unconfirmed (answered at %s, %d in a row)",
			ev.From, what, ev.Frame.ID, vtime(ev.At), vtime(r.refused), r.failures)
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
