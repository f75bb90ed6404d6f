package harness

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/wire"
)

// The simulated installer behind runtime_prepare: it stages bytes per
// transfer, verifies the declared size and SHA-256 at install, and runs
// initialization commands by a tiny script language the workload draws
// from: "exit N" fails with exit code N, "sleep S" answers after S
// seconds, anything else succeeds. Every answered installation is ground
// truth for the transfer checkers (TransferRecorder).

// TransferRecorder is an optional extension of Recorder: TransferInstalled
// reports an installation the Harness answered; installed tells whether
// anything was installed (the digest and size matched, or the command
// ran and exited 0).
type TransferRecorder interface {
	TransferInstalled(at int64, device, transfer, action string, installed bool)
}

// InstallRecorder is an optional extension of Recorder:
// TransferInstallOutcome reports what the installer found when it was
// handed a transfer — its outcome (completed, mismatch, failed), the setup
// command's exit code, and for a body the staged and declared sizes.
// InstallBegan reports the installer being handed a transfer (before its
// answer), NativePrepareCalled a native Prepare reaching the Harness.
type InstallRecorder interface {
	TransferInstallOutcome(at int64, device, transfer, outcome string, exit int, hasBody bool, staged, declared int64)
	InstallBegan(at int64, device, transfer string)
	NativePrepareCalled(at int64, device, executor string)
}

// notePrepare reports a native Prepare to an InstallRecorder.
func (h *Harness) notePrepare(now time.Time, op daemon.Prepare) {
	if ir, ok := h.dev.Recorder.(InstallRecorder); ok {
		ir.NativePrepareCalled(at(now), string(h.dev.ID), op.Executor)
	}
}

// Installer outcomes InstallRecorder reports.
const (
	installCompleted = "completed"
	installMismatch  = "mismatch"
	installFailed    = "failed"
	installUnknown   = "unknown"
)

type hTransfer struct {
	staged []byte
	slow   bool // each of its chunks stages slowly (stageLatency)
}

func (h *Harness) transfer(id string) *hTransfer {
	if h.xfers == nil {
		h.xfers = map[string]*hTransfer{}
	}
	t := h.xfers[id]
	if t == nil {
		t = &hTransfer{}
		h.xfers[id] = t
	}
	return t
}

// StageRecorder is an optional extension of Recorder: StageCalled reports
// the installer's staging being handed a chunk, with the bytes already
// staged for its transfer.
type StageRecorder interface {
	StageCalled(at int64, device, transfer string, offset, size, staged int64)
}

func (h *Harness) stage(now time.Time, c daemon.CallID, op daemon.StageChunk) {
	t := h.transfer(op.Transfer)
	if sr, ok := h.dev.Recorder.(StageRecorder); ok {
		sr.StageCalled(at(now), string(h.dev.ID), op.Transfer, op.Offset, int64(len(op.Data)), int64(len(t.staged)))
	}
	res := daemon.StageResult{}
	if int64(len(t.staged)) != op.Offset {
		res.Err = "simulated staging gap"
	} else {
		t.staged = append(t.staged, op.Data...)
	}
	t.slow = t.slow || h.take(StageSlow) || h.slowStageDrawn()
	d := h.latency()
	if t.slow {
		d = h.between(slowStageMin, slowStageMax)
	}
	h.after(now, d, func(now time.Time) { h.result(now, c, res) })
}

func (h *Harness) discard(now time.Time, c daemon.CallID, op daemon.DiscardTransfer) {
	delete(h.xfers, op.Transfer)
	h.after(now, h.latency(), func(now time.Time) { h.result(now, c, daemon.DiscardResult{}) })
}

func (h *Harness) install(now time.Time, c daemon.CallID, op daemon.InstallTransfer) {
	hd := op.Header
	if ir, ok := h.dev.Recorder.(InstallRecorder); ok {
		ir.InstallBegan(at(now), string(h.dev.ID), op.Transfer)
	}
	res, d := daemon.InstallResult{Outcome: daemon.InstallCompleted}, h.latency()
	body, staged := false, 0
	switch hd.Action {
	case wire.PrepareActionSkill, wire.PrepareActionPlugin, wire.PrepareActionFile:
		body = true
		data := h.transfer(op.Transfer).staged
		staged = len(data)
		sum := sha256.Sum256(data)
		switch {
		case int64(len(data)) != hd.SizeBytes || hex.EncodeToString(sum[:]) != hd.SHA256:
			res.Outcome = daemon.InstallMismatch
		case h.take(InstallUnconfirmed):
			res.Outcome = daemon.InstallUnknown
		}
		delete(h.xfers, op.Transfer)
	case wire.PrepareActionInitialize:
		res, d = h.runCommand(hd.Initialization, d)
	}
	hang := false
	if hd.Action == wire.PrepareActionInitialize && hd.Initialization != nil && hd.Initialization.Action == "setup" {
		res, d, hang = h.setupFault(res, d)
	}
	answer := func(now time.Time) {
		if tr, ok := h.dev.Recorder.(TransferRecorder); ok {
			tr.TransferInstalled(at(now), string(h.dev.ID), op.Transfer, hd.Action, res.Outcome == daemon.InstallCompleted)
		}
		if ir, ok := h.dev.Recorder.(InstallRecorder); ok {
			outcome := installCompleted
			switch res.Outcome {
			case daemon.InstallMismatch:
				outcome = installMismatch
			case daemon.InstallFailed:
				outcome = installFailed
			case daemon.InstallUnknown:
				outcome = installUnknown
			}
			ir.TransferInstallOutcome(at(now), string(h.dev.ID), op.Transfer, outcome, res.ExitCode, body, int64(staged), hd.SizeBytes)
		}
		h.result(now, c, res)
	}
	if hang {
		h.hung = append(h.hung, answer)
		return
	}
	h.after(now, d, answer)
}

func (h *Harness) runCommand(in *wire.Initialization, d time.Duration) (daemon.InstallResult, time.Duration) {
	ok := daemon.InstallResult{Outcome: daemon.InstallCompleted}
	if in == nil || in.Action != "setup" {
		return ok, d
	}
	verb, arg, _ := strings.Cut(in.Command, " ")
	n, err := strconv.Atoi(arg)
	switch {
	case err != nil:
		return ok, d
	case verb == "exit" && n > 0 && n <= 255:
		return daemon.InstallResult{Outcome: daemon.InstallFailed, ExitCode: n}, d
	case verb == "sleep" && n > 0:
		return ok, time.Duration(n) * time.Second
	}
	return ok, d
}
