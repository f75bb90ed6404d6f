package harness

import (
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/wire"
)

// Faults of runtime_prepare and suspension fencing, acting on the daemon's
// side of the connection or on the simulated installer.
const (
	// PrepareReceiptLost: the daemon's next runtime_prepare chunk receipt
	// (received) is lost in flight and the connection breaks: the bytes
	// are staged, Core never learns it, and the transfer is never resumed.
	PrepareReceiptLost sim.FaultKind = "harness_prepare_receipt_lost"
	// PrepareConnLost: the connection breaks as the next runtime_prepare
	// chunk reaches the daemon, before the daemon reads it.
	PrepareConnLost sim.FaultKind = "harness_prepare_conn_loss"
	// SetupFailure: the next setup command exits with SetupFailureExit.
	SetupFailure sim.FaultKind = "harness_setup_failure"
	// SetupHang: the next setup command answers only at heal (past Core's
	// 195 s exchange when the heal is late).
	SetupHang sim.FaultKind = "harness_setup_hang"
	// QuiesceReplyLost: the daemon's next environment_quiesced is lost in
	// flight and the connection breaks: Core never learns whether the
	// Runtime is fenced.
	QuiesceReplyLost sim.FaultKind = "harness_quiesce_reply_lost"
	// StageSlow: the installer stages the next chunk, and every later
	// chunk of its transfer, 100–130 s late: a transfer of two or more
	// chunks outlasts Core's 195 s exchange from its begin and the
	// daemon's expiry of the same length.
	StageSlow sim.FaultKind = "harness_stage_slow"
	// InstallUnconfirmed: the installer cannot confirm the outcome of the
	// next installation of a skill, plugin or file (the daemon must answer
	// unknown, runtime_preparation_unconfirmed); nothing is installed.
	InstallUnconfirmed sim.FaultKind = "harness_install_unconfirmed"
)

// SetupFailureExit is the exit code of a setup command a SetupFailure
// fault fails.
const SetupFailureExit = 70

// prepareReplyLost consumes an armed fault for a frame the daemon sends:
// a chunk receipt of a runtime_prepare, or a quiesce reply.
func (n *Daemon) prepareReplyLost(f wire.Frame) bool {
	switch p := f.Payload.(type) {
	case wire.RuntimePrepareResult:
		return p.Outcome == wire.OutcomeReceived && n.d.take(PrepareReceiptLost)
	case wire.EnvironmentQuiesced:
		return n.d.take(QuiesceReplyLost)
	}
	return false
}

// prepareChunkLost consumes an armed fault for a runtime_prepare chunk
// reaching the daemon.
func (n *Daemon) prepareChunkLost(f wire.Frame) bool {
	p, ok := f.Payload.(wire.RuntimePrepare)
	return ok && p.Step == wire.StepChunk && n.d.take(PrepareConnLost)
}

// breakOnReceive breaks connection gen as a frame arrives: the daemon
// learns the transport closed at once (outside a Feed, the ConnClosed
// loseInFlight queues is fed here).
func (n *Daemon) breakOnReceive(now time.Time, gen uint64) {
	n.loseInFlight(now, gen)
	last := len(n.queue) - 1
	ev := n.queue[last]
	n.queue = n.queue[:last]
	n.Feed(now, ev)
}

// setupFault applies an armed setup fault to a setup command: failed with
// SetupFailureExit, or hung until heal (hang: answer through h.hung).
func (h *Harness) setupFault(res daemon.InstallResult, d time.Duration) (daemon.InstallResult, time.Duration, bool) {
	switch {
	case h.take(SetupFailure):
		return daemon.InstallResult{Outcome: daemon.InstallFailed, ExitCode: SetupFailureExit}, d, false
	case h.take(SetupHang):
		return res, d, true
	}
	return res, d, false
}
