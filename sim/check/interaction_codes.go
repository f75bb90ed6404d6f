package check

import "github.com/turnstile-sim/turnstile/wire"

// The receipt codes of decisions and function results (wire-reference
// §3.6, §3.8), written out again. invalid_result names invalid
// function-result content only: a permission or user-choice decision is
// never refused with it, and a decision that fails validation gets
// runtime_error (the daemon's CodeInvalidDecision), contract_violation
// being kept for a declared operation the adapter returned unsupported.
var (
	decisionAckCodes = codeSet("not_pending not_ready unsupported contract_violation runtime_error decision_conflict")
	resultAckCodes   = codeSet("invalid_result decision_conflict not_ready unsupported contract_violation not_pending runtime_error")
)

// ixAckCode checks the receipt a daemon sent for a decision or function
// result Core sent: applied carries no code, a refusal a code of its
// family's set (CheckRefusalCode).
func (l *Ledger) ixAckCode(ev WireEvent, a wire.InteractionDecisionAck) {
	result, ok := l.ix.isResult[a.DeliveryID]
	if !ok {
		return
	}
	family, codes := "decision", decisionAckCodes
	if result {
		family, codes = "function result", resultAckCodes
	}
	switch {
	case a.Applied && a.ErrorCode != "":
		l.violate(ev.At, CheckRefusalCode, "%s receipt %s from %s: applied with code %q", family, a.DeliveryID, ev.From, a.ErrorCode)
	case !a.Applied && !codes[a.ErrorCode]:
		l.violate(ev.At, CheckRefusalCode, "%s receipt %s from %s: refused with %q, not a %s code", family, a.DeliveryID, ev.From, a.ErrorCode, family)
	}
}
