package check

import (
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// The settlement wait oracle (rule timing_settlement_wait, Rules). From
// the wire: a prompt_cancel with a delivery ID reaching a daemon makes it
// a waiter for the Turn's settlement, unless the daemon refuses it at
// once (not_ready, run_inactive). The first waiter opens the wait; later
// ones join it. A timeout proves nothing about settlement, so nothing
// else is implied.

type cancelWaiter struct {
	delivery string
	arrived  int64
	answered bool
}

type settleWindow struct {
	device, run  string
	conn         uint64
	start        int64
	deadline     int64
	waiters      []*cancelWaiter
	closed       bool // every waiter answered
	cancelFailed bool // the Harness failed a cancel request of the Turn during the wait
	decided      bool // the deadline answered it (counted once)
	excused      string
}

type settleState struct {
	open map[string]*settleWindow // device\x00run → the wait in progress
	all  []*settleWindow
}

func (s *settleState) init() { s.open = map[string]*settleWindow{} }

func (l *Ledger) settleDaemonReceived(ev WireEvent) {
	p, ok := ev.Frame.Payload.(wire.PromptCancel)
	if !ok || p.DeliveryID == "" {
		return
	}
	s := &l.timing.settles
	k := pairKey(ev.To, ev.Frame.ID)
	w := s.open[k]
	if w == nil || w.closed || w.excused != "" {
		w = &settleWindow{device: ev.To, run: ev.Frame.ID, conn: ev.Conn, start: ev.At,
			deadline: ev.At + l.timer(ev.To, TimerSettlementWait)}
		s.open[k] = w
		s.all = append(s.all, w)
		l.arm(w.deadline, func() { l.settleDue(w) })
	}
	w.waiters = append(w.waiters, &cancelWaiter{delivery: p.DeliveryID, arrived: ev.At})
}

func (l *Ledger) settleDaemonSent(ev WireEvent) {
	ack, ok := ev.Frame.Payload.(wire.InteractionDecisionAck)
	if !ok {
		return
	}
	w := l.timing.settles.open[pairKey(ev.From, ev.Frame.ID)]
	if w == nil || w.closed {
		return
	}
	var waiter *cancelWaiter
	for _, c := range w.waiters {
		if c.delivery == ack.DeliveryID && !c.answered {
			waiter = c
		}
	}
	if waiter == nil {
		return
	}
	waiter.answered = true
	refused := ack.ErrorCode == wire.CancelNotReady || ack.ErrorCode == wire.CancelRunInactive
	switch {
	case refused && ev.At == waiter.arrived:
		// never a waiter: refused in the step it arrived
	case ack.ErrorCode == wire.CancelFailed && ev.At < w.deadline && !w.cancelFailed:
		l.violate(ev.At, CheckTimingSettlementWait,
			"%s answered cancel %s of run %s cancel_failed at %s, %s into its %s settlement wait, though the Harness had not failed the cancel",
			w.device, waiter.delivery, w.run, vtime(ev.At), time.Duration(ev.At-w.start), time.Duration(w.deadline-w.start))
	case ack.ErrorCode == wire.CancelFailed && ev.At == w.deadline && !w.cancelFailed && w.excused == "" && !w.decided:
		w.decided = true
		l.decide(TimerSettlementWait)
	}
	for _, c := range w.waiters {
		if !c.answered {
			return
		}
	}
	w.closed = true
}

// CancelFailed records the Harness failing a native cancel request of
// run's Turn (ground truth): the daemon may answer its waiters at once.
func (l *Ledger) CancelFailed(at int64, device, run string) {
	l.advance(at)
	if w := l.timing.settles.open[pairKey(device, run)]; w != nil && !w.closed {
		w.cancelFailed = true
	}
}

func (l *Ledger) settlesConnEnded(conn uint64, why string) {
	for _, w := range l.timing.settles.all {
		if w.conn == conn && !w.closed && w.excused == "" {
			w.excused = why
		}
	}
}

func (l *Ledger) settlesNodeDown(node, why string) {
	for _, w := range l.timing.settles.all {
		if w.device == node && !w.closed && w.excused == "" {
			w.excused = why
		}
	}
}

// settleDue runs once the wait w has passed its deadline.
func (l *Ledger) settleDue(w *settleWindow) {
	if w.closed || w.excused != "" {
		return
	}
	for _, c := range w.waiters {
		if !c.answered {
			l.violate(w.deadline, CheckTimingSettlementWait,
				"%s left cancel %s of run %s (arrived %s) unanswered at %s, the end of its %s settlement wait",
				w.device, c.delivery, w.run, vtime(c.arrived), vtime(w.deadline), time.Duration(w.deadline-w.start))
			return
		}
	}
}
