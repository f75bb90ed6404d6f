package check

import (
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// The admission expiry oracle (rule timing_admission_expiry, Rules). From
// the wire: the grant is the daemon's first status (revision 1, in the
// step that grants it); a live admission has no starting, started,
// released, failed or expired status yet. A late device (TimerLate) still
// refuses a start past the deadline: the machine reads its own clock, not
// only its timer. Admissions are connection-local: one whose connection
// ends is no longer judged.

// timedAdmission is an admission's expiry window from its grant: settled
// by any status that ends it (ended), the expired one being its outcome.
type timedAdmission struct {
	device, handle string
	lag            int64  // the most the device delivers the expiry timer late
	startPast      int64  // when a start reached the daemon past the deadline, before expired; 0 none
	ended          string // the state that ended it; "" while live
	timerWindow
}

type admissionState struct {
	byKey map[string]*timedAdmission // device\x00handle, reset when the device's process dies
	all   []*timedAdmission
}

func (s *admissionState) init() { s.byKey = map[string]*timedAdmission{} }

func (l *Ledger) admissionDaemonSent(ev WireEvent) {
	st, ok := ev.Frame.Payload.(wire.PreparationStatus)
	if !ok || st.Handle == "" || st.State == wire.StateRejected {
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
		a = &timedAdmission{device: ev.From, handle: st.Handle, lag: l.timerLate(ev.From, TimerAdmission)}
		s.byKey[k] = a
		s.all = append(s.all, a)
		l.startWindow(&a.timerWindow, ev.From, TimerAdmission, ev.Conn, ev.At, l.timer(ev.From, TimerAdmission), func() { l.admissionDue(a) })
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
	a.ended, a.settled = st.State, true
}

// admissionDaemonReceived: an execution_release of a live handle that
// reaches its daemon before the deadline ends the admission's expiry; its
// terminal status is released, published once the local close is
// confirmed, which may fall after the deadline (a read-only profile's close
// is native work). A forged release counts too: the daemon acted on it.
func (l *Ledger) admissionDaemonReceived(ev WireEvent) {
	if st, ok := ev.Frame.Payload.(wire.ExecutionStart); ok {
		a := l.timing.admissions.byKey[pairKey(ev.To, st.Handle)]
		if a != nil && a.conn == ev.Conn && !a.settled && ev.At >= a.deadline {
			a.startPast = ev.At
		}
		return
	}
	r, ok := ev.Frame.Payload.(wire.ExecutionRelease)
	if !ok || r.Handle == "" {
		return
	}
	a := l.timing.admissions.byKey[pairKey(ev.To, r.Handle)]
	if a != nil && a.conn == ev.Conn && ev.At < a.deadline {
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

// admissionDue runs once the deadline of a has passed: the expired
// status at the deadline decides; a device that delivers the timer late
// has until the deadline plus its lag.
func (l *Ledger) admissionDue(a *timedAdmission) {
	switch {
	case a.excused != "":
	case a.ended == wire.StateExpired && a.outcome == a.deadline:
		l.decide(TimerAdmission)
	case a.ended == "" && a.lag > 0:
		l.arm(a.deadline+a.lag, func() { l.admissionLateDue(a) })
	case a.ended == "":
		l.report(&a.timerWindow, a.deadline, "admission of handle %s granted by %s at %s was still live at its deadline %s (%s) but no expired status was published then",
			a.handle, a.device, vtime(a.from), vtime(a.deadline), a.length())
	}
}

// admissionLateDue runs once a late-delivered expiry timer of a must have
// fired: the admission is expired by now, published within the lag.
func (l *Ledger) admissionLateDue(a *timedAdmission) {
	switch {
	case a.excused != "":
	case a.ended == wire.StateExpired:
		l.decide(TimerAdmission)
	case a.ended == "":
		l.report(&a.timerWindow, a.deadline+a.lag, "admission of handle %s granted by %s at %s was still live %s after its deadline %s (%s), the most its expiry timer is late",
			a.handle, a.device, vtime(a.from), time.Duration(a.lag), vtime(a.deadline), a.length())
	}
}
