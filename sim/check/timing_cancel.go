package check

import (
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// Checks: timing_cancel_confirmation (rules.go). A Core that crashed
// while a cancel awaited its receipt, or that got a cancel_failed receipt
// (done before it changes nothing), finishes the turn cancel_unconfirmed.

// codeCancelUnconfirmed is Core's code of a cancel with no confirmation
// in time.
const codeCancelUnconfirmed = "cancel_unconfirmed"

// cancelWait is a run's confirmation window from Core's first
// prompt_cancel: settled by a deciding receipt reaching Core by the
// deadline; its outcome is Core finishing the turn cancel_unconfirmed.
type cancelWait struct {
	run          string
	delivery     string // the attempt Core awaits
	answered     bool   // a receipt for delivery reached Core: later ones for it are stale
	failedEarly  bool   // a cancel_failed receipt reached Core
	finishedAt   int64  // -1 while the turn is not terminal
	finishedCode string
	crashedAt    int64 // Core crashed while it awaited its receipt (0: not)
	timerWindow
}

func (l *Ledger) cancelSent(ev WireEvent, p wire.PromptCancel) {
	s := &l.timing.cancels
	w := s.byKey[ev.Frame.ID]
	if w == nil {
		w = &cancelWait{run: ev.Frame.ID, finishedAt: -1}
		s.put(w.run, w)
		l.startWindow(&w.timerWindow, CoreNode, TimerCancelConfirm, ev.Conn, ev.At, l.timer(CoreNode, TimerCancelConfirm), func() {
			got := "the turn was still waiting"
			if w.finishedAt >= 0 {
				got = "it finished " + w.finishedCode + " at " + vtime(w.finishedAt)
			}
			l.due(&w.timerWindow, "no cancel receipt for run %s by %s, %s after its first prompt_cancel at %s, but Core did not record cancel_unconfirmed then (%s)",
				w.run, time.Duration(w.deadline), w.length(), time.Duration(w.from), got)
		})
	}
	w.delivery, w.answered = p.DeliveryID, false
}

func (l *Ledger) cancelAckReceived(ev WireEvent, ack wire.InteractionDecisionAck) {
	w := l.timing.cancels.byKey[ev.Frame.ID]
	if w == nil || ack.DeliveryID != w.delivery || w.finishedAt >= 0 || w.answered {
		return
	}
	w.answered = true // Core acts on an attempt's first receipt only
	if ack.ErrorCode == wire.CancelFailed {
		w.failedEarly = true
	}
	if (ack.Applied || ack.ErrorCode != wire.CancelNotReady) && !w.overdue(ev.At) {
		w.settled = true
	}
}

func (l *Ledger) cancelsCoreCrashed(at int64) {
	for _, w := range l.timing.cancels.all {
		if !w.settled && !w.failedEarly && w.finishedAt < 0 && w.crashedAt == 0 {
			w.crashedAt = at
		}
	}
}

func (l *Ledger) cancelTurnFinished(at int64, run, code string) {
	w := l.timing.cancels.byKey[run]
	if w == nil || w.finishedAt >= 0 {
		return
	}
	w.finishedAt, w.finishedCode = at, code
	if code == codeCancelUnconfirmed {
		w.show(at)
	} else if at < w.deadline {
		w.excuse(at, "the turn finished "+code)
	}
	switch {
	case code == codeCancelUnconfirmed && !w.failedEarly:
		l.early(&w.timerWindow, at, nil,
			"Core finished run %s cancel_unconfirmed at %s, %s after its first prompt_cancel at %s: before the %s confirmation window ended and without a cancel_failed receipt",
			run, vtime(at), w.elapsed(at), vtime(w.from), w.length())
	case code == codeCancelUnconfirmed:
	case w.failedEarly:
		l.violate(at, CheckTimingCancelConfirm, "a cancel_failed receipt for run %s reached Core, and Core finished the turn %q, want %s (the cancel owns the result, even after done)",
			run, code, codeCancelUnconfirmed)
	case w.crashedAt > 0:
		l.violate(at, CheckTimingCancelConfirm, "Core crashed at %s while the cancel of run %s awaited its receipt, and its restart finished the turn %q, want %s",
			vtime(w.crashedAt), run, code, codeCancelUnconfirmed)
	}
}
