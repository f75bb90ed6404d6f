package check

import "github.com/turnstile-sim/turnstile/wire"

// CheckWireCodeSets names wire's duty to accept what the seeds document:
// a cancel receipt a daemon sends with a code of the cancel set
// (run_inactive, not_ready, cancel_failed; wire reference §3.5, §6.4,
// written out again in cancelCodes), or applied without a code, must pass
// wire's cancel receipt validator, or a peer validating it as one would
// drop a documented answer. Judged on every cancel receipt on the wire.
const CheckWireCodeSets = "wire_code_sets"

// cancelReceiptValidates judges one cancel receipt against wire's
// validator.
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
