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

type timedAdmission struct {
	device, handle string
	conn           uint64
	granted        int64
	deadline       int64
	lag            int64  // the most the device delivers the expiry timer late
	startPast      int64  // when a start reached the daemon past the deadline, before expired; 0 none
	ended          string // the state that ended it; "" while live
	endedAt        int64
	excused        string
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
		a = &timedAdmission{device: ev.From, handle: st.Handle, conn: ev.Conn, granted: ev.At,
			deadline: ev.At + l.timer(ev.From, TimerAdmission), lag: l.timerLate(ev.From, TimerAdmission)}
		s.byKey[k] = a
		s.all = append(s.all, a)
		l.arm(a.deadline, func() { l.admissionDue(a) })
	}
	if a.ended != "" {
		return
	}
	switch st.State {
	case wire.StateStarting, wire.StateStarted:
		if ev.At >= a.deadline {
			l.violate(ev.At, CheckTimingAdmission,
				"%s published %s for handle %s at %s, at or after its admission expired at %s (granted %s + %s)",
				a.device, st.State, a.handle, vtime(ev.At), vtime(a.deadline), vtime(a.granted), time.Duration(a.deadline-a.granted))
		}
	case wire.StateExpired:
		if a.startPast != 0 && a.startPast == ev.At {
			l.reach(MarkStartPastDeadlineRefused)
		}
		if ev.At < a.deadline {
			l.violate(ev.At, CheckTimingAdmission,
				"%s published handle %s expired at %s, %s after its grant at %s: before its %s expiry",
				a.device, a.handle, vtime(ev.At), time.Duration(ev.At-a.granted), vtime(a.granted), time.Duration(a.deadline-a.granted))
		}
	case wire.StateReleased, wire.StateFailed:
	default:
		return
	}
	a.ended, a.endedAt = st.State, ev.At
}

// admissionDaemonReceived: an execution_release of a live handle that
// reaches its daemon before the deadline ends the admission's expiry; its
// terminal status is released, published once the local close is
// confirmed, which may fall after the deadline (a read-only profile's close
// is native work). A forged release counts too: the daemon acted on it.
func (l *Ledger) admissionDaemonReceived(ev WireEvent) {
	if st, ok := ev.Frame.Payload.(wire.ExecutionStart); ok {
		a := l.timing.admissions.byKey[pairKey(ev.To, st.Handle)]
		if a != nil && a.conn == ev.Conn && a.ended == "" && ev.At >= a.deadline {
			a.startPast = ev.At
		}
		return
	}
	r, ok := ev.Frame.Payload.(wire.ExecutionRelease)
	if !ok || r.Handle == "" {
		return
	}
	a := l.timing.admissions.byKey[pairKey(ev.To, r.Handle)]
	if a != nil && a.conn == ev.Conn && a.ended == "" && a.excused == "" && ev.At < a.deadline {
		a.excused = "release received before the deadline"
	}
}

func (l *Ledger) admissionsConnEnded(conn uint64, why string) {
	for _, a := range l.timing.admissions.all {
		if a.conn == conn && a.ended == "" && a.excused == "" {
			a.excused = why
		}
	}
}

func (l *Ledger) admissionsNodeDown(node, why string) {
	s := &l.timing.admissions
	for _, a := range s.all {
		if a.device == node {
			if a.ended == "" && a.excused == "" {
				a.excused = why
			}
			delete(s.byKey, pairKey(a.device, a.handle)) // a new process mints handles anew
		}
	}
}

// admissionDue runs once the deadline of a has passed.
func (l *Ledger) admissionDue(a *timedAdmission) {
	switch {
	case a.excused != "":
	case a.ended == wire.StateExpired && a.endedAt == a.deadline:
		l.decide(TimerAdmission)
	case a.ended == "" && a.lag > 0:
		l.arm(a.deadline+a.lag, func() { l.admissionLateDue(a) })
	case a.ended == "":
		l.violate(a.deadline, CheckTimingAdmission,
			"admission of handle %s granted by %s at %s was still live at its deadline %s (%s) but no expired status was published then",
			a.handle, a.device, vtime(a.granted), vtime(a.deadline), time.Duration(a.deadline-a.granted))
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
		l.violate(a.deadline+a.lag, CheckTimingAdmission,
			"admission of handle %s granted by %s at %s was still live %s after its deadline %s (%s), the most its expiry timer is late",
			a.handle, a.device, vtime(a.granted), time.Duration(a.lag), vtime(a.deadline), time.Duration(a.deadline-a.granted))
	}
}
