package daemon

import "github.com/turnstile-sim/turnstile/wire"

func (m *Machine) sendCancelAck(gen ConnID, runID string, ack wire.InteractionDecisionAck) {
	m.send(gen, wire.Frame{ID: runID, Payload: ack}, m.cfg.Limits.ReceiptSendBudget)
}

// onCancel handles prompt_cancel: cancel exactly this Run's Turn, then
// wait for native settlement. A receipt (when a delivery ID was given) is
// applied=true only after settlement and cleanup, with the continuity
// outcome; a settlement wait that times out proves nothing.
func (m *Machine) onCancel(runID string, p wire.PromptCancel) {
	refuse := func(code string) {
		if p.DeliveryID != "" {
			m.sendCancelAck(m.conn.gen, runID, wire.InteractionDecisionAck{DeliveryID: p.DeliveryID, ErrorCode: code})
		}
	}
	t := m.conn.runs[runID]
	if runID == "" || t == nil {
		refuse(CodeRunInactive)
		return
	}
	if !t.startResolved {
		refuse(CodeNotReady)
		return
	}
	t.coreCancel = true
	if p.DeliveryID != "" {
		t.waiters = append(t.waiters, p.DeliveryID)
		if _, ok := m.timers[settleWaitTimer(t.id)]; !ok {
			m.setTimer(settleWaitTimer(t.id), &timer{kind: timerSettleWait, at: m.now.Add(m.cfg.Limits.SettlementWait), turn: t.id})
		}
	}
	// Cancel before waiting on the input barrier: a written input may need
	// a native interrupt to produce its receipt.
	m.requestCancel(t)
	m.requestSettlement(t)
}

func (m *Machine) requestCancel(t *turn) {
	if t.cancelRequested || t.settled || !t.native {
		return
	}
	t.cancelRequested = true
	m.nativeCall(&call{kind: callCancel, turn: t.id, executor: t.executor}, Cancel{Turn: t.id})
}

// cancelDone: a failed cancel request answers the waiting receipts with
// cancel_failed; the Turn stays owned and settlement is still awaited.
func (m *Machine) cancelDone(c *call, r CancelResult) {
	t := m.turns[c.turn]
	if t == nil || r.Err == "" {
		return
	}
	t.cancelRequested = false // a later prompt_cancel may try again
	m.failWaiters(t)
}

// settleWaitDue: the waiters' deadline passed before settlement. The
// receipts say not applied; ownership and the settlement wait remain.
func (m *Machine) settleWaitDue(id TurnID) {
	if t := m.turns[id]; t != nil {
		m.failWaiters(t)
	}
}

func (m *Machine) failWaiters(t *turn) {
	m.cancelTimer(settleWaitTimer(t.id))
	for _, d := range t.waiters {
		if t.routed {
			m.sendCancelAck(t.gen, t.runID, wire.InteractionDecisionAck{DeliveryID: d, ErrorCode: CodeCancelFailed})
		}
	}
	t.waiters = nil
}
