package daemonmachine

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/turnstile-sim/turnstile/daemon"
)

// transfer answers the installer calls of runtime_prepare like the real
// installer: staged bytes per transfer, size and SHA-256 verified at
// install, initializations completed.
func (h *harness) transfer(op daemon.Op) daemon.Result {
	if h.staged == nil {
		h.staged = map[string][]byte{}
	}
	switch op := op.(type) {
	case daemon.StageChunk:
		if int64(len(h.staged[op.Transfer])) != op.Offset {
			return daemon.StageResult{Err: "staging gap"}
		}
		h.staged[op.Transfer] = append(h.staged[op.Transfer], op.Data...)
		return daemon.StageResult{}
	case daemon.InstallTransfer:
		body, hd := h.staged[op.Transfer], op.Header
		delete(h.staged, op.Transfer)
		if hd.File == nil && hd.Skill == nil && hd.Plugin == nil {
			return daemon.InstallResult{Outcome: daemon.InstallCompleted}
		}
		sum := sha256.Sum256(body)
		if int64(len(body)) != hd.SizeBytes || hex.EncodeToString(sum[:]) != hd.SHA256 {
			return daemon.InstallResult{Outcome: daemon.InstallMismatch}
		}
		return daemon.InstallResult{Outcome: daemon.InstallCompleted}
	case daemon.DiscardTransfer:
		delete(h.staged, op.Transfer)
	}
	return daemon.DiscardResult{}
}
