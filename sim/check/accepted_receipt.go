package check

import "github.com/turnstile-sim/turnstile/wire"

// CheckAcceptedWithoutReceipt is rule accepted_without_receipt (rules.go):
// a replayed copy of the input's own receipt is still its receipt.
const CheckAcceptedWithoutReceipt = "accepted_without_receipt"

// observeAcceptedReceipts records every accepting receipt Core receives.
func (l *Ledger) observeAcceptedReceipts(ev WireEvent) {
	if ack, ok := ev.Frame.Payload.(wire.PromptSteerAck); ok && ev.Kind == WireDelivered && ev.To == CoreNode && ack.Accepted && ack.ErrorCode == "" {
		made(&l.acceptedReceipts)[pairKey(ev.Frame.ID, ack.InputID)] = true
	}
}

// judgeAcceptedReceipt: Core recorded input of run accepted at at.
func (l *Ledger) judgeAcceptedReceipt(at int64, run, input, what string) {
	if !l.acceptedReceipts[pairKey(run, input)] {
		l.violate(at, CheckAcceptedWithoutReceipt, "Core %s input %s of run %s without an accepting receipt naming it", what, input, run)
	}
}
