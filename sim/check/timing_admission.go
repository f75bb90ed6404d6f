package check

import (
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// Checks: timing_admission_expiry (rules.go). The grant is the daemon's
// first status (revision 1); a late device (TimerLate) still refuses a
// start past the deadline: it reads its own clock, not only its timer.

// timedAdmission is an admission's expiry window from its grant: settled
// by any status that ends it, the expired one being its outcome.
type timedAdmission struct {
	device, handle string
	lag            int64 // the most the device delivers the expiry timer late
	startPast      int64 // when a start reached the daemon past the deadline, before expired; 0 none
	timerWindow
}

func (l *Ledger) admissionStatusSent(ev WireEvent, st wire.PreparationStatus) {
	if st.Handle == "" || st.State == wire.StateRejected {
		return
	}
	s := &l.timing.admissions
	k := pairKey(ev.From, st.Handle)
	a := s.byKey[k]
	if a != nil && a.conn != ev.Conn {
		return // a status republished on another connection grants nothing
	}
	if a == nil {
		if st.Revision != 1 {
			return
		}
		a = &timedAdmission{device: ev.From, handle: st.Handle, lag: int64(l.timing.late[pairKey(ev.From, TimerAdmission)])}
		s.put(k, a)
		l.startWindow(&a.timerWindow, ev.From, TimerAdmission, ev.Conn, ev.At, l.timer(ev.From, TimerAdmission), func() { l.admissionDue(a, false) })
	}
	if a.settled {
		return
	}
	switch st.State {
	case wire.StateStarting, wire.StateStarted:
		if ev.At >= a.deadline {
			l.report(&a.timerWindow, ev.At, "%s published %s for handle %s at %s, at or after its admission expired at %s (granted %s + %s)",
				a.device, st.State, a.handle, vtime(ev.At), vtime(a.deadline), vtime(a.from), a.length())
		}
	case wire.StateExpired:
		if a.startPast != 0 && a.startPast == ev.At {
			l.reach(MarkStartPastDeadlineRefused)
		}
		if ev.At < a.deadline {
			l.report(&a.timerWindow, ev.At, "%s published handle %s expired at %s, %s after its grant at %s: before its %s expiry",
				a.device, a.handle, vtime(ev.At), a.elapsed(ev.At), vtime(a.from), a.length())
		}
		a.show(ev.At)
	case wire.StateReleased, wire.StateFailed:
	default:
		return
	}
	a.settled = true
}

func (l *Ledger) admissionStartReceived(ev WireEvent, st wire.ExecutionStart) {
	a := l.timing.admissions.byKey[pairKey(ev.To, st.Handle)]
	if a != nil && a.conn == ev.Conn && !a.settled && ev.At >= a.deadline {
		a.startPast = ev.At
	}
}

// admissionReleaseReceived: a release (forged ones too: the daemon acted
// on it) reaching the daemon before the deadline ends the expiry; its
// released status follows the local close, maybe after the deadline.
func (l *Ledger) admissionReleaseReceived(ev WireEvent, r wire.ExecutionRelease) {
	if a := l.timing.admissions.byKey[pairKey(ev.To, r.Handle)]; r.Handle != "" && a != nil && a.conn == ev.Conn && ev.At < a.deadline {
		a.excuse(ev.At, "release received before the deadline")
	}
}

// admissionsNodeDown: a new process mints handles anew.
func (l *Ledger) admissionsNodeDown(node string) {
	s := &l.timing.admissions
	for _, a := range s.all {
		if a.device == node {
			delete(s.byKey, pairKey(a.device, a.handle))
		}
	}
}

// admissionDue: the expired status at the deadline decides; a device
// that delivers the timer late has until the deadline plus its lag (late:
// that bound has passed).
func (l *Ledger) admissionDue(a *timedAdmission, late bool) {
	switch {
	case a.excused != "":
	case a.outcome >= 0 && (late || a.outcome == a.deadline):
		l.decide(TimerAdmission)
	case !a.settled && late:
		l.report(&a.timerWindow, a.deadline+a.lag, "admission of handle %s granted by %s at %s was still live %s after its deadline %s (%s), the most its expiry timer is late",
			a.handle, a.device, vtime(a.from), time.Duration(a.lag), vtime(a.deadline), a.length())
	case !a.settled && a.lag > 0:
		l.arm(a.deadline+a.lag, func() { l.admissionDue(a, true) })
	case !a.settled:
		l.report(&a.timerWindow, a.deadline, "admission of handle %s granted by %s at %s was still live at its deadline %s (%s) but no expired status was published then",
			a.handle, a.device, vtime(a.from), vtime(a.deadline), a.length())
	}
}
