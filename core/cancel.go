package core

import (
	"strconv"

	"github.com/turnstile-sim/turnstile/wire"
)

// onCancelTurn cancels an unclaimed Turn at once (releasing its admission)
// and sends prompt_cancel with delivery ID "cancel:<runID>" for a claimed
// one, whose terminal state then comes from the cancel receipt, or is
// cancel_unconfirmed when none arrives by the cancel deadline (the first
// send plus CancelConfirmTimeout). A call while a not_ready refusal waits
// for its retry sends the fresh attempt at once; any other repeated call
// is answered and sends nothing.
func (m *Machine) onCancelTurn(e CancelTurn) {
	t := m.turns[e.Turn]
	if t == nil {
		m.result(APIResult{Call: e.Call, Err: m.apiTurnErr(e.Turn)})
		return
	}
	if t.rec.Cancel != CancelNone {
		if m.armed(timerID(timerCancelRetry, t.rec.ID)) {
			m.cancelTimer(timerID(timerCancelRetry, t.rec.ID))
			m.sendCancel(t)
		}
		m.result(APIResult{Call: e.Call})
		return
	}
	if t.rec.State == TurnQueued {
		m.finish(t, TurnCancelled, "", "")
		m.result(APIResult{Call: e.Call})
		return
	}
	t.rec.Cancel = CancelRequested
	t.rec.CancelDeadline = m.now.Add(m.cfg.CancelConfirmTimeout)
	m.cancelTimer(timerID(timerSteerRetry, t.rec.ID))
	t.retrying = false
	m.sendCancel(t)
	m.setTimer(timerID(timerCancel, t.rec.ID), t.rec.CancelDeadline)
	m.result(APIResult{Call: e.Call})
}

// sendCancel makes one cancel attempt: a fresh delivery ID ("cancel:<runID>"
// for the first, "cancel:<runID>:<n>" for attempt n), recorded durably
// before prompt_cancel leaves and awaiting its receipt. Its confirmation
// window is the request's: the timer armed at CancelDeadline by the first
// attempt stays armed, never restarted.
func (m *Machine) sendCancel(t *turn) {
	t.rec.CancelAttempts++
	t.rec.CancelDeliveryID = cancelDeliveryID(t.rec.RunID, t.rec.CancelAttempts)
	t.rec.CancelAnswered = false
	m.saveTurn(t)
	m.send(t.conn.id, t.rec.RunID, wire.PromptCancel{DeliveryID: t.rec.CancelDeliveryID})
}

func cancelDeliveryID(runID string, attempt int) string {
	if attempt <= 1 {
		return cancelDeliveryPrefix + runID
	}
	return cancelDeliveryPrefix + runID + ":" + strconv.Itoa(attempt)
}

// onCancelRetry re-sends a cancel refused with not_ready while the Turn is
// not terminal and the Run route is up. The retry was armed before the
// cancel deadline, so the deadline's timer is still armed.
func (m *Machine) onCancelRetry(turnID string) {
	t := m.turns[turnID]
	if t == nil || t.rec.Cancel != CancelRequested || t.conn == nil {
		return
	}
	m.sendCancel(t)
}

// onCancelAck reads the cancel receipt (matched by delivery ID). applied
// with an outcome: cancelled, whatever done said; applied without one:
// cancel_outcome_unavailable. Refused with cancel_failed: a native cancel was
// issued but its settlement is unconfirmed, so a later done cannot tell
// completion from cancellation and the Turn fails cancel_unconfirmed.
// Refused with not_ready: the Run is still starting and the cancel was not
// applied, so it is sent again after CancelRetryDelay with a fresh
// delivery ID when that instant is before the cancel deadline (otherwise
// only the deadline is awaited); the confirmation window is not restarted,
// and the Turn keeps waiting for a receipt or the deadline, even if done
// arrives meanwhile. Refused otherwise
// (run_inactive): the cancel never reached the native turn and the stream
// decides (at once if done already arrived).
//
// A receipt counts only while its attempt awaits confirmation: a second
// receipt for an attempt already answered with not_ready (the delivery ID
// is the same until the retry leaves; CancelAnswered is set) is a
// duplicate and is ignored.
func (m *Machine) onCancelAck(t *turn, ack wire.InteractionDecisionAck) {
	if t.rec.Cancel != CancelRequested || ack.DeliveryID != t.rec.CancelDeliveryID ||
		t.rec.CancelAnswered {
		return
	}
	if !ack.Applied && ack.ErrorCode == wire.CancelNotReady {
		m.onCancelNotReady(t)
		return
	}
	if t.rec.State == TurnStarting && (ack.Applied || ack.ErrorCode == wire.CancelFailed) {
		m.countStarted(t) // the Run's start resolved: it may have run natively
	}
	m.cancelTimer(timerID(timerCancel, t.rec.ID))
	if !ack.Applied {
		t.rec.Cancel, t.rec.CancelErrorCode = CancelRefused, codeOr(ack.ErrorCode, "refused")
		m.saveTurn(t)
		switch {
		case ack.ErrorCode == wire.CancelFailed:
			m.finish(t, TurnFailed, CodeCancelUnconfirmed, "cancel receipt refused: native settlement unconfirmed")
		case t.rec.Done != nil:
			m.finishFromStream(t)
		}
		return
	}
	if ack.Outcome == nil {
		m.finish(t, TurnFailed, CodeCancelOutcomeUnavailable, "applied cancel receipt without outcome")
		return
	}
	out := *ack.Outcome
	t.rec.CancelOutcome = &out
	if out.Usage != nil {
		u := *out.Usage
		t.rec.Usage = &u
	}
	m.noteNativeSession(t, out.Metadata)
	m.finish(t, TurnCancelled, "", "")
}

// onCancelNotReady: the Run is still starting and the cancel was not
// applied, so retrying is safe and the receipt of the retry decides. The
// attempt is answered; the retry is armed only before the cancel deadline,
// whose timer stays armed and ends the wait either way.
func (m *Machine) onCancelNotReady(t *turn) {
	t.rec.CancelAnswered = true
	m.saveTurn(t)
	if at := m.now.Add(m.cfg.CancelRetryDelay); at.Before(t.rec.CancelDeadline) {
		m.setTimer(timerID(timerCancelRetry, t.rec.ID), at)
	}
}

// onCancelTimeout: the cancel deadline passed without a deciding receipt.
func (m *Machine) onCancelTimeout(turnID string) {
	t := m.turns[turnID]
	if t == nil || t.rec.Cancel != CancelRequested {
		return
	}
	if t.rec.State == TurnStarting {
		m.countStarted(t) // the start may have run natively
	}
	m.finish(t, TurnFailed, CodeCancelUnconfirmed, "no cancel receipt within the confirmation window")
}
