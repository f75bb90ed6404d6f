package daemon

import "github.com/turnstile-sim/turnstile/wire"

// Requests of families this machine does not serve (workspace reads, writes and exports, runtime
// preparation transfers, suspension fencing) are refused explicitly with
// their own family's refusal, so Core never waits out a timeout for an
// answer that will not come. No refusal changes any state.

// Suspension refusal code. The closed set of fencing codes is unconfirmed;
// this one names the reason without implying a busy or unsuspended
// environment.
const CodeFencingUnsupported = "unsupported"

// refuseUnserved answers one request of an unserved family and reports
// whether p was such a request.
func (m *Machine) refuseUnserved(id string, p wire.Payload) bool {
	var reply wire.Payload
	switch p := p.(type) {
	case wire.WorkspaceRead:
		reply = wire.WorkspaceReadResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.ReadUnsupported}
	case wire.WorkspaceWrite:
		reply = wire.WorkspaceWriteResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.WriteUnsupported}
	case wire.WorkspaceExport:
		reply = wire.WorkspaceExportResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.ReadUnsupported}
	case wire.RuntimePrepare:
		reply = wire.RuntimePrepareResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.TransferUnsupported}
	case wire.EnvironmentQuiesce:
		reply = wire.EnvironmentQuiesced{EnvironmentID: p.EnvironmentID, SuspendID: p.SuspendID, ErrorCode: CodeFencingUnsupported}
	case wire.EnvironmentResume:
		reply = wire.EnvironmentResumed{EnvironmentID: p.EnvironmentID, SuspendID: p.SuspendID, ErrorCode: CodeFencingUnsupported}
	default:
		return false
	}
	if id != "" {
		m.send(m.conn.gen, wire.Frame{ID: id, Payload: reply}, m.cfg.Limits.ReceiptSendBudget)
	}
	return true
}
