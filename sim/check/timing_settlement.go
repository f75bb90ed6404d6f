package check

import "github.com/turnstile-sim/turnstile/wire"

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

// settleWindow is a Turn's settlement wait from its first waiter: settled
// once every waiter is answered.
type settleWindow struct {
	device, run  string
	waiters      []*cancelWaiter
	cancelFailed bool // the Harness failed a cancel request of the Turn during the wait
	decided      bool // the deadline answered it (counted once)
	timerWindow
}

type settleState struct {
	open map[string]*settleWindow // device\x00run → the wait in progress
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
	if w == nil || !w.live() {
		w = &settleWindow{device: ev.To, run: ev.Frame.ID}
		s.open[k] = w
		l.startWindow(&w.timerWindow, ev.To, TimerSettlementWait, ev.Conn, ev.At, l.timer(ev.To, TimerSettlementWait), func() { l.settleDue(w) })
	}
	w.waiters = append(w.waiters, &cancelWaiter{delivery: p.DeliveryID, arrived: ev.At})
}

func (l *Ledger) settleDaemonSent(ev WireEvent) {
	ack, ok := ev.Frame.Payload.(wire.InteractionDecisionAck)
	if !ok {
		return
	}
	w := l.timing.settles.open[pairKey(ev.From, ev.Frame.ID)]
	if w == nil || w.settled {
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
		l.report(&w.timerWindow, ev.At, "%s answered cancel %s of run %s cancel_failed at %s, %s into its %s settlement wait, though the Harness had not failed the cancel",
			w.device, waiter.delivery, w.run, vtime(ev.At), w.elapsed(ev.At), w.length())
	case ack.ErrorCode == wire.CancelFailed && ev.At == w.deadline && !w.cancelFailed && w.excused == "" && !w.decided:
		w.decided = true
		l.decide(TimerSettlementWait)
	}
	for _, c := range w.waiters {
		if !c.answered {
			return
		}
	}
	w.settled = true
}

// CancelFailed records the Harness failing a native cancel request of
// run's Turn (ground truth): the daemon may answer its waiters at once.
func (l *Ledger) CancelFailed(at int64, device, run string) {
	l.advance(at)
	if w := l.timing.settles.open[pairKey(device, run)]; w != nil && !w.settled {
		w.cancelFailed = true
	}
}

// settleDue runs once the wait w has passed its deadline.
func (l *Ledger) settleDue(w *settleWindow) {
	if !w.live() {
		return
	}
	for _, c := range w.waiters {
		if !c.answered {
			l.report(&w.timerWindow, w.deadline, "%s left cancel %s of run %s (arrived %s) unanswered at %s, the end of its %s settlement wait",
				w.device, c.delivery, w.run, vtime(c.arrived), vtime(w.deadline), w.length())
			return
		}
	}
}
