package check

import "github.com/turnstile-sim/turnstile/wire"

// CondTransferOpen: the probe is a step of a workspace_write transfer
// (ReplyID); it is judged only while the transfer is open at the daemon,
// that is when the daemon had sent no terminal result for it on the
// connection before the frame arrived. An expired transfer
// (WorkspaceConfig.TransferExpiry) was answered rejected and forgotten: a
// later step names no transfer, and the connection's single write slot
// may hold another one by then (write_capacity).
const CondTransferOpen = "transfer_open"

// noteWriteEnded records when the daemon sent the first terminal
// workspace_write_result of a transfer, by connection and ID.
func (l *Ledger) noteWriteEnded(ev WireEvent, r wire.WorkspaceWriteResult) {
	switch r.Outcome {
	case wire.OutcomeRejected, wire.OutcomeCompleted, wire.OutcomeUnknown:
	default:
		return
	}
	k := connIDKey(ev.Conn, ev.Frame.ID)
	if _, seen := l.hostile.writeEnded[k]; !seen && ev.From != CoreNode {
		l.hostile.writeEnded[k] = ev.At
	}
}

// transferOpenAnswer applies CondTransferOpen: Want while the transfer
// was open when the frame arrived, else nil (not judged).
func (l *Ledger) transferOpenAnswer(p *HostileProbe, delivered int64) []string {
	if at, ended := l.hostile.writeEnded[connIDKey(p.Conn, p.ReplyID)]; ended && at < delivered {
		return nil
	}
	return p.Want
}
