package daemon

import "github.com/turnstile-sim/turnstile/wire"

// Requests of families this machine does not serve (interaction decisions,
// function results) are refused explicitly with
// their own family's refusal, so Core never waits out a timeout for an
// answer that will not come. No refusal changes any state.

// refuseUnserved answers one request of an unserved family and reports
// whether p was such a request.
func (m *Machine) refuseUnserved(id string, p wire.Payload) bool {
	var reply wire.Payload
	switch p := p.(type) {
	case wire.PermissionDecision:
		reply = notPending(p.DeliveryID)
	case wire.UserChoiceDecision:
		reply = notPending(p.DeliveryID)
	case wire.FunctionResult:
		reply = notPending(p.DeliveryID)
	default:
		return false
	}
	if id != "" {
		m.send(m.conn.gen, wire.Frame{ID: id, Payload: reply}, m.cfg.Limits.ReceiptSendBudget)
	}
	return true
}

// notPending refuses a decision or function result: no interaction or
// native call of that identity is pending on this Runtime.
func notPending(delivery string) wire.InteractionDecisionAck {
	return wire.InteractionDecisionAck{DeliveryID: delivery, ErrorCode: wire.AckNotPending}
}
