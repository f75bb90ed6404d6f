package check

import (
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

// steerBehindWrite: the rogue's input x-i-2 reaches the daemon at 11 ms,
// after the Harness took the native write of x-i-1 at 8 ms; returned is
// when that write returned (-1: not yet).
func steerBehindWrite(t *testing.T, returned int64) (*hostileWire, []byte) {
	p := HostileProbe{Action: HostileSteerWriteOutstanding, ReplyID: "x-r", Input: "x-i-2", Want: []string{"ack/busy"}, Cond: CondWriteOutstanding}
	raw := encode(t, "x-r", wire.PromptSteer{InputID: "x-i-2", Input: wire.MessageInput{{Content: []wire.InputContent{wire.TextPart("s")}}},
		DurableReceipt: true})
	h := rogueStarted(t)
	h.l.WriteCalled(8*ms, "d1", "x-r", "x-i-1")
	if returned >= 0 {
		h.l.WriteReturned(returned, "d1", "x-r", "x-i-1", "written")
	}
	h.forge(10*ms, p, raw)
	return h, raw
}

// TestSteerBehindAnOutstandingNativeWriteIsBusy: while the Run's one
// native write is out (even past the daemon's budget), the next durable
// input is refused busy; an input admitted after the write returned, or a
// receipt for another input, is not this rule's.
func TestSteerBehindAnOutstandingNativeWriteIsBusy(t *testing.T) {
	h, _ := steerBehindWrite(t, -1)
	h.answer(11*ms, "x-r", wire.PromptSteerAck{InputID: "x-i-2", ErrorCode: "busy"})
	h.tick(5000 * ms)
	h.clean()
	if n := h.refusals(HostileSteerWriteOutstanding); n != 1 {
		t.Fatalf("refusals = %d, want 1", n)
	}

	h, _ = steerBehindWrite(t, -1)
	h.answer(11*ms, "x-r", wire.PromptSteerAck{InputID: "x-i-1", ErrorCode: "outcome_unknown"}) // the earlier input's receipt
	h.answer(30*ms, "x-r", wire.PromptSteerAck{InputID: "x-i-2", Written: true})
	h.want(CheckHostileRefusal, "with ack/ok, documented ack/busy")

	h, _ = steerBehindWrite(t, -1)
	h.tick(5000 * ms)
	h.want(CheckHostileRefusal, "never answered rcore_steer_write_outstanding")

	// the write returned before the input arrived: admitted, its receipt
	// follows its own write, whenever that ends
	h, _ = steerBehindWrite(t, 9*ms)
	h.tick(5000 * ms)
	h.answer(6000*ms, "x-r", wire.PromptSteerAck{InputID: "x-i-2", Written: true})
	h.tick(7000 * ms)
	h.clean()

	// the Run's output closed first: not judged
	h, _ = steerBehindWrite(t, -1)
	h.l.NativeDone(9*ms, "d1", "x-r", nil)
	h.answer(11*ms, "x-r", wire.PromptSteerAck{InputID: "x-i-2", ErrorCode: "run_inactive"})
	h.tick(5000 * ms)
	h.clean()
}

// TestProbesMatchOnlyTheirOwnAnswer: a probe naming a delivery is answered
// only by a decision ack for it, one naming an input only by a steering
// receipt for it, whatever else the Run's ID carries meanwhile.
func TestProbesMatchOnlyTheirOwnAnswer(t *testing.T) {
	p := HostileProbe{Action: HostileResultImagesPending, ReplyID: "x-r", Delivery: "x-d-9",
		Want: []string{"ack/unsupported"}}
	raw := encode(t, "x-r", wire.FunctionResult{DeliveryID: "x-d-9", CallID: "c1", Success: true,
		Content: []wire.InputContent{wire.TextPart("chart")}})
	h := rogueStarted(t)
	h.forge(10*ms, p, raw)
	h.answer(11*ms, "x-r", wire.PromptSteerAck{InputID: "x-i-1", Written: true})
	h.answer(11*ms, "x-r", wire.InteractionDecisionAck{DeliveryID: "x-d-9", ErrorCode: "unsupported"})
	h.tick(5000 * ms)
	h.clean()
	if n := h.refusals(HostileResultImagesPending); n != 1 {
		t.Fatalf("refusals = %d, want 1", n)
	}
}

// TestDecisionBeforeTheNativeStartReturnedIsNotReady: a decision for a
// request the native side asked before its start returned is not_ready
// while the start is unresolved (judged on the probe's Run, its ReplyID
// being the interaction), and not judged once the start returned.
func TestDecisionBeforeTheNativeStartReturnedIsNotReady(t *testing.T) {
	p := HostileProbe{Action: HostileDecisionStarting, ReplyID: "perm-x-r-1", Run: "x-r", Want: []string{"ack/not_ready"}, Cond: CondUnresolved}
	raw := encode(t, "perm-x-r-1", wire.PermissionDecision{DeliveryID: "x-d-1", Approved: true})
	h := rogueStarted(t)
	h.forge(10*ms, p, raw)
	h.answer(11*ms, "perm-x-r-1", wire.InteractionDecisionAck{DeliveryID: "x-d-1", ErrorCode: "not_ready"})
	h.l.StartAnswered(40*ms, "d1", "x-r")
	h.tick(5000 * ms)
	h.clean()
	if n := h.refusals(HostileDecisionStarting); n != 1 {
		t.Fatalf("refusals = %d, want 1", n)
	}

	h = rogueStarted(t)
	h.forge(10*ms, p, raw)
	h.answer(11*ms, "perm-x-r-1", wire.InteractionDecisionAck{DeliveryID: "x-d-1", ErrorCode: "not_pending"})
	h.want(CheckHostileRefusal, "with ack/not_pending, documented ack/not_ready")

	h = rogueStarted(t)
	h.l.StartAnswered(8*ms, "d1", "x-r")
	h.forge(10*ms, p, raw)
	h.answer(11*ms, "perm-x-r-1", wire.InteractionDecisionAck{DeliveryID: "x-d-1", ErrorCode: "not_pending"})
	h.tick(5000 * ms)
	h.clean()

	// the start had resolved: the decision is admitted and answered only
	// when the native side answers, perhaps much later
	h = rogueStarted(t)
	h.l.StartAnswered(8*ms, "d1", "x-r")
	h.forge(10*ms, p, raw)
	h.tick(5000 * ms)
	h.clean()

	// unresolved, never answered
	h = rogueStarted(t)
	h.forge(10*ms, p, raw)
	h.tick(5000 * ms)
	h.want(CheckHostileRefusal, "never answered rcore_decision_starting")
}

// steerBehindWriteAfterShutdown is steerBehindWrite with d1 asked to shut
// down at 9 ms, before the input arrived.
func steerBehindWriteAfterShutdown(t *testing.T) *hostileWire {
	p := HostileProbe{Action: HostileSteerWriteOutstanding, ReplyID: "x-r", Input: "x-i-2", Want: []string{"ack/busy"}, Cond: CondWriteOutstanding}
	raw := encode(t, "x-r", wire.PromptSteer{InputID: "x-i-2", Input: wire.MessageInput{{Content: []wire.InputContent{wire.TextPart("s")}}},
		DurableReceipt: true})
	h := rogueStarted(t)
	h.l.WriteCalled(8*ms, "d1", "x-r", "x-i-1")
	h.l.ShutdownRequested(9*ms, "d1")
	h.forge(10*ms, p, raw)
	return h
}

// TestSteerBehindAWriteOfADaemonShuttingDown: a daemon asked to shut down
// closes its active executors, cancelling their Runs (the seeds: 关闭时
// Runtime 关闭活动和空闲 Executor), so the input behind an outstanding
// write is refused run_inactive, and busy is no longer its answer; before
// the shutdown request run_inactive is no answer to it.
func TestSteerBehindAWriteOfADaemonShuttingDown(t *testing.T) {
	h := steerBehindWriteAfterShutdown(t)
	h.answer(11*ms, "x-r", wire.PromptSteerAck{InputID: "x-i-2", ErrorCode: "run_inactive"})
	h.tick(5000 * ms)
	h.clean()
	if n := h.refusals(HostileSteerWriteOutstanding); n != 1 {
		t.Fatalf("run_inactive: refusals = %d, want 1", n)
	}

	for _, code := range []string{"busy", "input_limit"} {
		h := steerBehindWriteAfterShutdown(t)
		h.answer(11*ms, "x-r", wire.PromptSteerAck{InputID: "x-i-2", ErrorCode: code})
		h.want(CheckHostileRefusal, "with ack/"+code+", documented ack/run_inactive")
	}

	h, _ = steerBehindWrite(t, -1)
	h.answer(11*ms, "x-r", wire.PromptSteerAck{InputID: "x-i-2", ErrorCode: "run_inactive"})
	h.want(CheckHostileRefusal, "with ack/run_inactive, documented ack/busy")
}
