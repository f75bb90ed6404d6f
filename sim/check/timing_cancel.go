package check

import (
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// The cancel-confirmation oracle (rule timing_cancel_confirmation,
// Rules). From the wire: retries after a not_ready refusal carry fresh
// delivery IDs; a deciding receipt is applied, or refused with anything
// but not_ready, for the attempt Core awaits.
// A Core that crashes while a cancel awaits its receipt finishes that turn
// cancel_unconfirmed when it restarts, and a cancel_failed receipt ends it
// cancel_unconfirmed too (done before it changes nothing), never with
// another code.

// codeCancelUnconfirmed is Core's documented error code of a cancel with
// no confirmation in time.
const codeCancelUnconfirmed = "cancel_unconfirmed"

type cancelWait struct {
	run          string
	conn         uint64
	first        int64
	deadline     int64
	delivery     string // the attempt Core awaits
	answered     bool   // a receipt for delivery reached Core: later ones for it are stale
	receipt      bool   // a deciding receipt reached Core by the deadline
	failedEarly  bool   // a cancel_failed receipt reached Core
	excused      string
	excusedAt    int64
	finishedAt   int64 // -1 while the turn is not terminal
	finishedCode string
	// crashedAt: Core crashed while the cancel awaited its receipt (0:
	// not); its restart must finish the turn cancel_unconfirmed.
	crashedAt int64
}

type cancelState struct {
	byRun map[string]*cancelWait
	all   []*cancelWait
}

func (s *cancelState) init() { s.byRun = map[string]*cancelWait{} }

func (l *Ledger) cancelCoreSent(ev WireEvent) {
	p, ok := ev.Frame.Payload.(wire.PromptCancel)
	if !ok {
		return
	}
	s := &l.timing.cancels
	w := s.byRun[ev.Frame.ID]
	if w == nil {
		w = &cancelWait{run: ev.Frame.ID, conn: ev.Conn, first: ev.At, deadline: ev.At + l.timer(coreNode, TimerCancelConfirm), finishedAt: -1}
		s.byRun[w.run] = w
		s.all = append(s.all, w)
		l.arm(w.deadline, func() { l.cancelDue(w) })
	}
	w.delivery, w.answered = p.DeliveryID, false
}

func (l *Ledger) cancelCoreReceived(ev WireEvent) {
	ack, ok := ev.Frame.Payload.(wire.InteractionDecisionAck)
	if !ok {
		return
	}
	w := l.timing.cancels.byRun[ev.Frame.ID]
	if w == nil || ack.DeliveryID != w.delivery || w.finishedAt >= 0 || w.answered {
		return
	}
	w.answered = true // Core acts on an attempt's first receipt only
	if ack.ErrorCode == wire.CancelFailed {
		w.failedEarly = true
	}
	if (ack.Applied || ack.ErrorCode != wire.CancelNotReady) && ev.At <= w.deadline {
		w.receipt = true
	}
}

func (w *cancelWait) excuse(at int64, why string) {
	if w.excused == "" && !w.receipt {
		w.excused, w.excusedAt = why, at
	}
}

func (l *Ledger) cancelsConnEnded(at int64, conn uint64, why string) {
	for _, w := range l.timing.cancels.all {
		if w.conn == conn {
			w.excuse(at, why)
		}
	}
}

func (l *Ledger) cancelsExcuseAll(at int64, why string) {
	for _, w := range l.timing.cancels.all {
		w.excuse(at, why)
	}
}

// cancelsCoreCrashed: a cancel still awaiting its receipt when Core
// crashed has an unknown effect; the restarted Core finishes its turn
// cancel_unconfirmed (the cancel owns the terminal result).
func (l *Ledger) cancelsCoreCrashed(at int64) {
	for _, w := range l.timing.cancels.all {
		if !w.receipt && !w.failedEarly && w.finishedAt < 0 && w.crashedAt == 0 {
			w.crashedAt = at
		}
	}
}

func (l *Ledger) cancelTurnFinished(at int64, run, code string) {
	w := l.timing.cancels.byRun[run]
	if w == nil || w.finishedAt >= 0 {
		return
	}
	w.finishedAt, w.finishedCode = at, code
	if w.failedEarly && code != codeCancelUnconfirmed {
		l.violate(at, CheckTimingCancelConfirm, "a cancel_failed receipt for run %s reached Core, and Core finished the turn %q, want %s (the cancel owns the result, even after done)",
			run, code, codeCancelUnconfirmed)
		return
	}
	if w.crashedAt > 0 && code != codeCancelUnconfirmed {
		l.violate(at, CheckTimingCancelConfirm, "Core crashed at %s while the cancel of run %s awaited its receipt, and its restart finished the turn %q, want %s",
			vtime(w.crashedAt), run, code, codeCancelUnconfirmed)
		return
	}
	if code != codeCancelUnconfirmed || at >= w.deadline || w.failedEarly {
		return
	}
	// A close Core makes in this step is tapped after its store write:
	// judge once the instant is over.
	l.arm(at, func() {
		if w.excused == "" || w.excusedAt > at {
			l.violate(at, CheckTimingCancelConfirm,
				"Core finished run %s cancel_unconfirmed at %s, %s after its first prompt_cancel at %s: before the %s confirmation window ended and without a cancel_failed receipt",
				run, vtime(at), time.Duration(at-w.first), vtime(w.first), time.Duration(w.deadline-w.first))
		}
	})
}

// cancelDue runs once the confirmation window of w has passed.
func (l *Ledger) cancelDue(w *cancelWait) {
	switch {
	case w.receipt || w.excused != "":
	case w.finishedAt >= 0 && w.finishedAt < w.deadline:
	case w.finishedAt == w.deadline && w.finishedCode == codeCancelUnconfirmed:
		l.decide(TimerCancelConfirm)
	default:
		got := "the turn was still waiting"
		if w.finishedAt >= 0 {
			got = "it finished " + w.finishedCode + " at " + vtime(w.finishedAt)
		}
		l.violate(w.deadline, CheckTimingCancelConfirm,
			"no cancel receipt for run %s by %s, %s after its first prompt_cancel at %s, but Core did not record cancel_unconfirmed then (%s)",
			w.run, vtime(w.deadline), time.Duration(w.deadline-w.first), vtime(w.first), got)
	}
}
