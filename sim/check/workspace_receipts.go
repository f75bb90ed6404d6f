package check

import "github.com/turnstile-sim/turnstile/wire"

// CheckWriteReceipt is rule workspace_write_receipt (rules.go): the
// installer's answer (ground truth; a refusal's reason is
// destination_directory or unsafe_destination) against the daemon's receipt.
const CheckWriteReceipt = "workspace_write_receipt"

// MarkWriteInstallRefused: an installer refusal reached Core as
// write_rejected.
const MarkWriteInstallRefused Mark = "workspace_write_install_refused"

type installAnswer struct{ outcome, reason string }

// WorkspaceInstallAnswered records the installer's answer to mutation
// (ground truth, at the instant the daemon receives it).
func (l *Ledger) WorkspaceInstallAnswered(at int64, device, mutation, outcome, reason string) {
	l.advance(at)
	made(&l.ws.installs)[pairKey(device, mutation)] = installAnswer{outcome, reason}
}

// writeReceiptSent holds a daemon's receipt to its installer's answer.
func (l *Ledger) writeReceiptSent(ev WireEvent, r wire.WorkspaceWriteResult) {
	k := pairKey(ev.From, ev.Frame.ID)
	a, ok := l.ws.installs[k]
	if !ok {
		return
	}
	delete(l.ws.installs, k)
	want := wire.WorkspaceWriteResult{Outcome: a.outcome}
	switch a.outcome {
	case wire.OutcomeRejected:
		want.ErrorCode, want.Reason = wire.WriteRejected, a.reason
	case wire.OutcomeUnknown:
		want.ErrorCode = wire.WriteUnconfirmed
	}
	if r.Outcome != want.Outcome || r.ErrorCode != want.ErrorCode || r.Reason != want.Reason {
		l.violate(ev.At, CheckWriteReceipt, "%s answered write %s %s/%s/%s; its installer answered %s %s, so the receipt is %s/%s/%s",
			ev.From, ev.Frame.ID, r.Outcome, r.ErrorCode, r.Reason, a.outcome, a.reason, want.Outcome, want.ErrorCode, want.Reason)
		return
	}
	if a.outcome == wire.OutcomeRejected {
		l.reach(MarkWriteInstallRefused)
	}
}
