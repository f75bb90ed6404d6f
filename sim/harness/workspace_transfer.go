package harness

import (
	"bytes"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/wire"
)

// Transfer faults of workspace writes, acting on the daemon's side of the
// connection.
const (
	// WriteDigestMismatch: one byte of the next write chunk the daemon
	// receives is changed, so the body no longer matches its declared
	// SHA-256 (the daemon must refuse the commit; the installer never
	// runs).
	WriteDigestMismatch sim.FaultKind = "harness_workspace_digest_mismatch"
	// WriteTransferLost: the daemon's next chunk receipt of a write is lost
	// in flight: the connection breaks mid-transfer.
	WriteTransferLost sim.FaultKind = "harness_workspace_transfer_conn_loss"
)

// corruptChunk changes one byte of a write chunk under an armed digest
// fault; other frames pass unchanged.
func (n *Daemon) corruptChunk(f wire.Frame) wire.Frame {
	w, ok := f.Payload.(wire.WorkspaceWrite)
	if !ok || w.Step != wire.StepChunk || len(w.Data) == 0 || !n.d.take(WriteDigestMismatch) {
		return f
	}
	w.Data = bytes.Clone(w.Data)
	w.Data[len(w.Data)/2] ^= 0x5a
	f.Payload = w
	return f
}

// transferReceiptLost consumes an armed transfer fault for a chunk
// receipt of a write.
func (n *Daemon) transferReceiptLost(f wire.Frame) bool {
	r, ok := f.Payload.(wire.WorkspaceWriteResult)
	return ok && r.Outcome == wire.OutcomeReceived && n.d.take(WriteTransferLost)
}
