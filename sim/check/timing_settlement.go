package check

import (
	"slices"

	"github.com/turnstile-sim/turnstile/wire"
)

// Checks: timing_settlement_wait (rules.go). A prompt_cancel with a
// delivery ID reaching a daemon makes it a waiter for the Turn's
// settlement, unless refused in that step (not_ready, run_inactive); the
// first waiter opens the wait, later ones join it.

type cancelWaiter struct {
	delivery string
	arrived  int64
	answered bool
}

// settleWindow is a Turn's settlement wait: settled once every waiter is
// answered; its outcome is the first cancel_failed answer at the deadline.
type settleWindow struct {
	device, run  string
	waiters      []*cancelWaiter
	cancelFailed bool // the Harness failed a cancel request of the Turn during the wait
	timerWindow
}

func (l *Ledger) settleCancelReceived(ev WireEvent, p wire.PromptCancel) {
	if p.DeliveryID == "" {
		return
	}
	k := pairKey(ev.To, ev.Frame.ID)
	w := l.timing.settles[k]
	if w == nil || !w.live() {
		w = &settleWindow{device: ev.To, run: ev.Frame.ID}
		made(&l.timing.settles)[k] = w
		l.startWindow(&w.timerWindow, ev.To, TimerSettlementWait, ev.Conn, ev.At, l.timer(ev.To, TimerSettlementWait), func() {
			if i := slices.IndexFunc(w.waiters, unanswered); w.live() && i >= 0 {
				c := w.waiters[i]
				l.report(&w.timerWindow, w.deadline, "%s left cancel %s of run %s (arrived %s) unanswered at %s, the end of its %s settlement wait",
					w.device, c.delivery, w.run, vtime(c.arrived), vtime(w.deadline), w.length())
			}
		})
	}
	w.waiters = append(w.waiters, &cancelWaiter{delivery: p.DeliveryID, arrived: ev.At})
}

func (l *Ledger) settleAckSent(ev WireEvent, ack wire.InteractionDecisionAck) {
	w := l.timing.settles[pairKey(ev.From, ev.Frame.ID)]
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
	case ack.ErrorCode == wire.CancelFailed && ev.At == w.deadline && !w.cancelFailed && w.excused == "" && w.show(ev.At):
		l.decide(TimerSettlementWait)
	}
	w.settled = !slices.ContainsFunc(w.waiters, unanswered)
}

func unanswered(c *cancelWaiter) bool { return !c.answered }

// CancelFailed records the Harness failing a native cancel request of
// run's Turn (ground truth): the daemon may answer its waiters at once.
func (l *Ledger) CancelFailed(at int64, device, run string) {
	l.advance(at)
	if w := l.timing.settles[pairKey(device, run)]; w != nil && !w.settled {
		w.cancelFailed = true
	}
}
