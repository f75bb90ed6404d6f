package check

import (
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

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

	cleanupRetryCapMax = 30 * time.Second
)

// cleanupRetry is one cleanup target whose native call failed: the retry
// it is owed.
type cleanupRetry struct {
	device, target string
	failures       int
	failedAt       int64
	due            int64 // -1: no retry owed (none failed, or it came)
	unconfirmed    bool  // settlement: the latest answer was unconfirmed
}

type cleanupRetryState struct {
	closes  map[string]*cleanupRetry // device\x00executor
	settles map[string]*cleanupRetry // device\x00run
}

func (s *cleanupRetryState) ensure() {
	if s.closes == nil {
		s.closes = map[string]*cleanupRetry{}
		s.settles = map[string]*cleanupRetry{}
	}
}

// cleanupBackoff is the retry delay of timer after n consecutive failures.
func (l *Ledger) cleanupBackoff(device, timer string, n int) int64 {
	d := l.timer(device, timer)
	for i := 1; i < n && d < int64(cleanupRetryCapMax); i++ {
		d *= 2
	}
	return min(d, int64(cleanupRetryCapMax))
}

// CloseAnswered records the Harness answering an executor close (ground
// truth): a failure owes a retry at its backoff.
func (l *Ledger) CloseAnswered(at int64, device, executor string, ok bool) {
	l.advance(at)
	s := &l.timing.cleanup
	s.ensure()
	k := pairKey(device, executor)
	if ok {
		delete(s.closes, k)
		return
	}
	r := s.closes[k]
	if r == nil {
		r = &cleanupRetry{device: device, target: executor}
		s.closes[k] = r
	}
	l.oweCleanup(r, at, TimerCloseRetry, CheckTimingExecutorCloseRetry, "the close of executor")
}

// closeRetryCalled judges a close reaching the Harness against the retry
// its executor is owed.
func (l *Ledger) closeRetryCalled(at int64, device, executor string) {
	s := &l.timing.cleanup
	s.ensure()
	if r := s.closes[pairKey(device, executor)]; r != nil {
		l.judgeCleanup(at, r, TimerCloseRetry, CheckTimingExecutorCloseRetry, "the close of executor")
	}
}

// SettleCalled records a settlement wait for run's Turn reaching the
// Harness (ground truth).
func (l *Ledger) SettleCalled(at int64, device, run string) {
	l.advance(at)
	s := &l.timing.cleanup
	s.ensure()
	if r := s.settles[pairKey(device, run)]; r != nil {
		l.judgeCleanup(at, r, TimerSettleRetry, CheckTimingSettleRetry, "the settlement wait of run")
	}
}

// SettleAnswered records the Harness answering a settlement wait (ground
// truth): unconfirmed owes a retry at its backoff and holds done back.
func (l *Ledger) SettleAnswered(at int64, device, run string, settled bool) {
	l.advance(at)
	s := &l.timing.cleanup
	s.ensure()
	k := pairKey(device, run)
	r := s.settles[k]
	if r == nil {
		r = &cleanupRetry{device: device, target: run, due: -1}
		s.settles[k] = r
	}
	r.unconfirmed = !settled
	if settled {
		r.due = -1
		return
	}
	l.oweCleanup(r, at, TimerSettleRetry, CheckTimingSettleRetry, "the settlement wait of run")
}

func (l *Ledger) oweCleanup(r *cleanupRetry, at int64, timer, check, what string) {
	r.failures++
	r.failedAt = at
	r.due = at + l.cleanupBackoff(r.device, timer, r.failures)
	due := r.due
	l.arm(due, func() {
		if r.due == due {
			r.due = -1
			l.violate(due, check, "%s did not retry %s %s at %s, %s after its failure at %s (%d in a row)",
				r.device, what, r.target, vtime(due), time.Duration(due-at), vtime(at), r.failures)
		}
	})
}

func (l *Ledger) judgeCleanup(at int64, r *cleanupRetry, timer, check, what string) {
	if r.due < 0 {
		return
	}
	due := r.due
	r.due = -1
	switch {
	case at == due:
		l.decide(timer)
	case at < due:
		l.violate(at, check, "%s retried %s %s at %s, %s after its failure at %s: before its %s backoff ended (%d failures in a row)",
			r.device, what, r.target, vtime(at), time.Duration(at-r.failedAt), vtime(r.failedAt), time.Duration(due-r.failedAt), r.failures)
	}
}

// cleanupDaemonSent: nothing that needs a confirmed settlement leaves
// while the Turn's latest settlement answer is unconfirmed.
func (l *Ledger) cleanupDaemonSent(ev WireEvent) {
	s := &l.timing.cleanup
	s.ensure()
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
			ev.From, what, r.target, vtime(ev.At), vtime(r.failedAt), r.failures)
	}
}

// cleanupNodeDown: a dead daemon retries nothing; its restart starts over.
func (l *Ledger) cleanupNodeDown(node string) {
	s := &l.timing.cleanup
	s.ensure()
	for _, m := range []map[string]*cleanupRetry{s.closes, s.settles} {
		for _, k := range sortedKeys(m) {
			if m[k].device == node {
				m[k].due = -1
				delete(m, k)
			}
		}
	}
}
