package check

import (
	"slices"
	"time"
)

// timerWindow is one run of a documented timer, from from to its
// deadline. It may be settled (what the timer waits for came in time) or
// excused (the first reason that released it: its connection ended, its
// process died, its Turn finished; a settled window takes none). Its
// outcome is the instant the machine showed the timer ran out. due judges
// it once the deadline passed, early an outcome before the deadline.
type timerWindow struct {
	timer     string // the timer's name; its check is "timing_" + timer
	node      string // whose timer it is: its process's death excuses it
	conn      uint64 // the connection it is bound to (0: none): its end excuses it
	from      int64
	deadline  int64
	outcome   int64 // when the timer's outcome showed; -1 before
	settled   bool
	excused   string
	excusedAt int64
}

// startWindow starts w, node's timer on conn, at at, length long; due
// runs once the deadline has passed.
func (l *Ledger) startWindow(w *timerWindow, node, timer string, conn uint64, at, length int64, due func()) {
	*w = timerWindow{timer: timer, node: node, conn: conn, from: at, deadline: at + length, outcome: -1}
	l.timing.windows = append(l.timing.windows, w)
	l.arm(w.deadline, due)
}

// excuseWindows excuses every live window match selects and forgets
// those no longer live.
func (l *Ledger) excuseWindows(at int64, why string, match func(*timerWindow) bool) {
	l.timing.windows = slices.DeleteFunc(l.timing.windows, func(w *timerWindow) bool {
		if w.live() && match(w) {
			w.excuse(at, why)
		}
		return !w.live()
	})
}

// excuse releases w for why, observed at at; the first reason stays.
func (w *timerWindow) excuse(at int64, why string) {
	if !w.settled && w.excused == "" {
		w.excused, w.excusedAt = why, at
	}
}

func (w *timerWindow) live() bool { return !w.settled && w.excused == "" }

func (w *timerWindow) overdue(at int64) bool { return at > w.deadline }

// show records the timer's outcome at at, reporting whether it is the
// first (only the first counts).
func (w *timerWindow) show(at int64) bool {
	if w.outcome >= 0 {
		return false
	}
	w.outcome = at
	return true
}

// length is the timer's duration; elapsed the time from its start to at.
func (w *timerWindow) length() time.Duration          { return time.Duration(w.deadline - w.from) }
func (w *timerWindow) elapsed(at int64) time.Duration { return time.Duration(at - w.from) }

func (l *Ledger) report(w *timerWindow, at int64, format string, args ...any) {
	l.violate(at, "timing_"+w.timer, format, args...)
}

// expire reports w still live at its deadline, once: it is settled
// then, so a later outcome adds nothing.
func (l *Ledger) expire(w *timerWindow, format string, args ...any) {
	if w.live() {
		w.settled = true
		l.report(w, w.deadline, format, args...)
	}
}

// due judges w once its deadline has passed: an outcome exactly at the
// deadline decides, even with a reason in that same instant (what the
// timer ends in its own instant is its consequence); a missing outcome
// of a live window is reported (args are formatted only on a report).
func (l *Ledger) due(w *timerWindow, format string, args ...any) {
	switch {
	case w.settled:
	case w.outcome == w.deadline && (w.excused == "" || w.excusedAt >= w.deadline):
		l.decide(w.timer)
	case w.excused != "":
	case w.outcome < 0:
		l.report(w, w.deadline, format, args...)
	}
}

// early judges an outcome w showed at at, if before its deadline, once
// that instant is over (a reason may be tapped after the outcome, as a
// close made in the same step): reported unless a reason released w by
// then or released (if not nil) reports true.
func (l *Ledger) early(w *timerWindow, at int64, released func() bool, format string, args ...any) {
	if at >= w.deadline {
		return
	}
	l.arm(at, func() {
		if (w.excused == "" || w.excusedAt > at) && (released == nil || !released()) {
			l.report(w, at, format, args...)
		}
	})
}

// retryOwed is a retry a failure or a retryable refusal made due: the
// same request comes again exactly at due (unless excused). Core retries
// after a refusal by its fixed delay, a daemon a failed cleanup call by
// its backoff.
type retryOwed struct {
	timer    string
	who      string // the daemon that retries; "" for Core
	what     string // what is sent or called again
	failures int    // in a row, for a backoff
	refused  int64  // the failure or refusal
	due      int64  // -1: none owed (none failed, or it came)
	excused  string
}

// owe makes a retry due delay after at.
func (r *retryOwed) owe(at, delay int64) { r.refused, r.due, r.excused = at, at+delay, "" }

func (r *retryOwed) excuse(why string) {
	if r.due >= 0 && r.excused == "" {
		r.excused = why
	}
}

// retryBackoffMax caps the Runtime's cleanup backoffs (its own policy).
const retryBackoffMax = 30 * time.Second

// backoff is node's retry delay of timer after n failures in a row: its
// length, doubling per failure, at most retryBackoffMax.
func (l *Ledger) backoff(node, timer string, n int) int64 {
	d := l.timer(node, timer)
	for i := 1; i < n && d < int64(retryBackoffMax); i++ {
		d *= 2
	}
	return min(d, int64(retryBackoffMax))
}

// oweBackoff counts one more failure at at and arms its retry.
func (l *Ledger) oweBackoff(r *retryOwed, at int64) {
	r.failures++
	r.owe(at, l.backoff(r.who, r.timer, r.failures))
	l.armRetry(r, nil)
}

// retried judges a retry coming at at: at the due instant it decides,
// earlier it is reported (later, armRetry reported it).
func (l *Ledger) retried(at int64, r *retryOwed) {
	if r.due < 0 {
		return
	}
	due := r.due
	r.due = -1
	switch {
	case r.excused != "":
	case at == due:
		l.decide(r.timer)
	case at < due && r.who == "":
		l.violate(at, "timing_"+r.timer, "Core sent %s again at %s, %s after the refusal at %s: before its %s retry delay ended",
			r.what, vtime(at), time.Duration(at-r.refused), vtime(r.refused), time.Duration(due-r.refused))
	case at < due:
		l.violate(at, "timing_"+r.timer, "%s retried %s at %s, %s after its failure at %s: before its %s backoff ended (%d failures in a row)",
			r.who, r.what, vtime(at), time.Duration(at-r.refused), vtime(r.refused), time.Duration(due-r.refused), r.failures)
	}
}

// armRetry reports r's retry missing at its due instant, unless excused
// by then or waits (if not nil) reports true then.
func (l *Ledger) armRetry(r *retryOwed, waits func() bool) {
	due := r.due
	l.arm(due, func() {
		if r.due != due || r.excused != "" {
			return
		}
		r.due = -1
		switch {
		case waits != nil && waits():
		case r.who == "":
			l.violate(due, "timing_"+r.timer, "Core did not send %s again at %s, %s after the refusal at %s",
				r.what, vtime(due), time.Duration(due-r.refused), vtime(r.refused))
		default:
			l.violate(due, "timing_"+r.timer, "%s did not retry %s at %s, %s after its failure at %s (%d in a row)",
				r.who, r.what, vtime(due), time.Duration(due-r.refused), vtime(r.refused), r.failures)
		}
	})
}

// keyed holds an oracle's records by key and in start order.
type keyed[W any] struct {
	byKey map[string]*W
	all   []*W
}

func (k *keyed[W]) put(key string, w *W) {
	made(&k.byKey)[key] = w
	k.all = append(k.all, w)
}
