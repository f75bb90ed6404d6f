package check

import "github.com/turnstile-sim/turnstile/wire"

// Checks: wire_code_sets (rules.go), on every cancel receipt the wire
// shows: a documented one (cancelCodes) that wire's validator refuses.
const CheckWireCodeSets = "wire_code_sets"

func (l *Ledger) cancelReceiptValidates(ev WireEvent, a wire.InteractionDecisionAck) {
	l.cancelReceiptPasses(ev, a, wire.InteractionDecisionAck.ValidateAsCancelAck)
}

func (l *Ledger) cancelReceiptPasses(ev WireEvent, a wire.InteractionDecisionAck, validate func(wire.InteractionDecisionAck) error) {
	documented := a.Applied && a.ErrorCode == "" || !a.Applied && a.Outcome == nil && cancelCodes[a.ErrorCode]
	if !documented || a.DeliveryID == "" {
		return // refusal_code names an undocumented receipt
	}
	if err := validate(a); err != nil {
		l.violate(ev.At, CheckWireCodeSets, "wire refuses %s's cancel receipt of run %s (applied=%v code %q), documented: %v",
			ev.From, ev.Frame.ID, a.Applied, a.ErrorCode, err)
	}
}
