package harness

import (
	"fmt"
	"time"

	"github.com/turnstile-sim/turnstile/sim"
)

// Harness fault kinds. Each is a kernel fault kind (registered with
// Register): the swarm schedules it against a device, and at its instant it
// arms the device's Harness for its next matching call. Being in the
// kernel's schedule, every one is on the fault timeline and can be shrunk.
const (
	PrepareFailure   sim.FaultKind = "harness_prepare_failure"    // the next Prepare fails; no executor
	StartFailureNil  sim.FaultKind = "harness_start_failure_nil"  // the next StartTurn fails with no Turn
	StartFailureTurn sim.FaultKind = "harness_start_failure_turn" // the next StartTurn returns a Turn and an error
	WriteFailure     sim.FaultKind = "harness_write_failure"      // the next DurableWrite is definitely not written
	WriteUncertain   sim.FaultKind = "harness_write_uncertain"    // the next DurableWrite's outcome is unknown (applied or not)
	WriteOverBudget  sim.FaultKind = "harness_write_over_budget"  // the next DurableWrite answers after the daemon's budget
	LateAccepted     sim.FaultKind = "harness_late_accepted"      // the next written input is consumed seconds later
	CancelFailure    sim.FaultKind = "harness_cancel_failure"     // the next Cancel request fails; the Turn runs on
	CancelLate       sim.FaultKind = "harness_cancel_late"        // the next cancelled Turn settles 5–20 s later
	CancelNever      sim.FaultKind = "harness_cancel_never"       // the next cancelled Turn settles only at heal
	LateEvents       sim.FaultKind = "harness_late_events"        // native events follow the next cancel's settlement
	SettleError      sim.FaultKind = "harness_settle_error"       // the next settlement answer is unconfirmed
	NotReusable      sim.FaultKind = "harness_not_reusable"       // the next settlement says Reusable=false
	CloseFailure     sim.FaultKind = "harness_close_failure"      // the next CloseExecutor fails (the retry may succeed)
	Hang             sim.FaultKind = "harness_hang"               // the next Prepare, StartTurn, DurableWrite or CloseExecutor answers at heal
	SettleBeforeDone sim.FaultKind = "harness_settle_before_done" // the next awaited turn settles without emitting its native done
	ClockJump        sim.FaultKind = "daemon_clock_jump"          // the device's wall clock jumps by ±[1 s, 30 min]; never undone
)

// Kinds lists the Harness fault kinds in a fixed order.
func Kinds() []sim.FaultKind {
	return []sim.FaultKind{PrepareFailure, StartFailureNil, StartFailureTurn, WriteFailure, WriteUncertain,
		WriteOverBudget, LateAccepted, CancelFailure, CancelLate, CancelNever, LateEvents, SettleError,
		NotReusable, CloseFailure, Hang, SettleBeforeDone, ClockJump,
		ReadInterrupted, ReaderCloseFailure, WriteReceiptLost, ExportChunkLost, WorkspaceStall, WriteDigestMismatch, WriteTransferLost,
		AckLost, DecisionNever, DecisionSlow, PermissionWithdrawn, LateInteraction,
		PrepareReceiptLost, PrepareConnLost, SetupFailure, SetupHang, QuiesceReplyLost, ReadOutOfBounds, StageSlow, InstallUnconfirmed}
}

// Bounds of one wall-clock jump (either direction).
const (
	ClockJumpMin = time.Second
	ClockJumpMax = 30 * time.Minute
)

// ClockJumpOffset is the jump a daemon_clock_jump fault with the given
// pick makes: a magnitude in [ClockJumpMin, ClockJumpMax] in whole
// milliseconds, forward for an even pick and backward for an odd one.
// It depends only on the fault, so shrinking other faults away keeps it.
func ClockJumpOffset(pick uint64) time.Duration {
	span := uint64((ClockJumpMax - ClockJumpMin) / time.Millisecond)
	d := ClockJumpMin + time.Duration((pick>>1)%(span+1))*time.Millisecond
	if pick&1 == 1 {
		return -d
	}
	return d
}

// TokensMax bounds the armed faults of one kind on one device.
const TokensMax = 3

// Register registers every Harness fault kind with the kernel, targeting
// the given devices; a fault arms its target device (at most TokensMax per
// kind) and notes the armed count on the fault timeline, except
// daemon_clock_jump, which jumps the device's wall clock at once and notes
// the jump and the device's total offset. At heal every device drops its
// armed faults, ends its version window and releases its hung calls; a
// wall clock that jumped stays jumped.
func Register(w *sim.Kernel, devices []*Device) {
	byID := map[sim.NodeID]*Device{}
	var targets []sim.NodeID
	for _, d := range devices {
		byID[d.ID] = d
		targets = append(targets, d.ID)
	}
	for _, k := range Kinds() {
		k := k
		w.RegisterFault(sim.FaultSpec{Kind: k, Targets: targets}, func(w *sim.Kernel, f sim.Fault) {
			d := byID[f.Node]
			if k == ClockJump {
				off := ClockJumpOffset(f.Pick)
				w.Note(fmt.Sprintf("fault detail wall_jump=%s wall_offset=%s", off, d.JumpClock(off)))
				return
			}
			w.Note(fmt.Sprintf("fault detail armed=%d", d.Arm(k)))
		})
	}
	w.OnHeal(func() {
		for _, d := range devices {
			d.Heal()
		}
	})
}
