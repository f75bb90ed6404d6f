package core

import "github.com/turnstile-sim/turnstile/wire"

// onCancelTurn cancels an unclaimed Turn at once (releasing its admission)
// and sends prompt_cancel with delivery ID "cancel:<runID>" for a claimed
// one, whose terminal state then comes from the cancel receipt, or is
// cancel_unconfirmed when none arrives in time.
func (m *Machine) onCancelTurn(e CancelTurn) {
	t := m.turns[e.Turn]
	if t == nil {
		m.result(APIResult{Call: e.Call, Err: m.apiTurnErr(e.Turn)})
		return
	}
	if t.rec.Cancel != CancelNone {
		m.result(APIResult{Call: e.Call})
		return
	}
	if t.rec.State == TurnQueued {
		m.finish(t, TurnCancelled, "", "")
		m.result(APIResult{Call: e.Call})
		return
	}
	t.rec.Cancel = CancelRequested
	t.rec.CancelDeliveryID = cancelDeliveryPrefix + t.rec.RunID
	m.saveTurn(t)
	m.cancelTimer(timerID(timerSteerRetry, t.rec.ID))
	t.retrying = false
	m.send(t.conn.id, t.rec.RunID, wire.PromptCancel{DeliveryID: t.rec.CancelDeliveryID})
	m.setTimer(timerID(timerCancel, t.rec.ID), m.now.Add(m.cfg.CancelConfirmTimeout))
	m.result(APIResult{Call: e.Call})
}

// onCancelAck reads the cancel receipt (matched by delivery ID). applied
// with an outcome: cancelled, whatever done said; applied without one:
// cancel_outcome_unavailable. Refused with cancel_failed: a native cancel was
// issued but its settlement is unconfirmed, so a later done cannot tell
// completion from cancellation and the Turn fails cancel_unconfirmed.
// Refused otherwise (run_inactive, not_ready): the cancel never reached the
// native turn and the stream decides (at once if done already arrived).
func (m *Machine) onCancelAck(t *turn, ack wire.InteractionDecisionAck) {
	if t.rec.Cancel != CancelRequested || ack.DeliveryID != t.rec.CancelDeliveryID {
		return
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
	if m.cfg.Bugs.DoneOverridesCancel && t.rec.Done != nil {
		m.finishFromStream(t) // planted bug: done decides, not the receipt
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

func (m *Machine) onCancelTimeout(turnID string) {
	t := m.turns[turnID]
	if t == nil || t.rec.Cancel != CancelRequested {
		return
	}
	m.finish(t, TurnFailed, CodeCancelUnconfirmed, "no cancel receipt within the confirmation window")
}
