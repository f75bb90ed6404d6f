package check

import (
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

// rogueStarted: the daemon took the start of the rogue's Run x-r (it sent
// starting for request x-p on connection 1 at 5 ms).
func rogueStarted(t *testing.T) *hostileWire {
	h := newHostileWire(t)
	h.answer(5*ms, "x-p", wire.PreparationStatus{Handle: "x-h", ExecutorID: "x-e", Revision: 3, State: wire.StateStarting, RunID: "x-r"})
	return h
}

func earlyCancel(t *testing.T) (HostileProbe, []byte) {
	return HostileProbe{Action: HostileCancelStarting, ReplyID: "x-r", Want: []string{"ack/not_ready"}, Cond: CondUnresolved},
		encode(t, "x-r", wire.PromptCancel{DeliveryID: "x-d"})
}

func rogueCancelAck(code string) wire.InteractionDecisionAck {
	return wire.InteractionDecisionAck{DeliveryID: "x-d", ErrorCode: code}
}

func TestCancelBeforeTheNativeStartReturnedIsNotReady(t *testing.T) {
	h := rogueStarted(t)
	p, raw := earlyCancel(t)
	h.forge(10*ms, p, raw) // delivered at 11 ms
	h.answer(11*ms, "x-r", rogueCancelAck(wire.CancelNotReady))
	h.l.StartAnswered(40*ms, "d1", "x-r")
	h.tick(5000 * ms)
	h.clean()
	if n := h.refusals(HostileCancelStarting); n != 1 {
		t.Fatalf("refusals = %d, want 1", n)
	}

	h = rogueStarted(t)
	h.forge(10*ms, p, raw)
	h.answer(11*ms, "x-r", rogueCancelAck(wire.CancelRunInactive))
	h.want(CheckHostileRefusal, "with ack/run_inactive, documented ack/not_ready")
}

func TestCancelAfterTheNativeStartReturnedIsNotJudgedAsEarly(t *testing.T) {
	for _, c := range []struct {
		name     string
		answered int64
	}{{"before", 8 * ms}, {"same instant", 11 * ms}} {
		name, answered := c.name, c.answered
		h := rogueStarted(t)
		p, raw := earlyCancel(t)
		h.l.StartAnswered(answered, "d1", "x-r")
		h.forge(10*ms, p, raw)
		h.answer(11*ms, "x-r", rogueCancelAck(wire.CancelRunInactive))
		h.tick(5000 * ms)
		if vs := hostileOnly(h.l.Violations()); len(vs) > 0 {
			t.Fatalf("%s: a resolved start is another rule's, yet:\n%s", name, Render(vs))
		}
	}
	// a Run the daemon never took is another rule's too
	h := newHostileWire(t)
	p, raw := earlyCancel(t)
	h.forge(10*ms, p, raw)
	h.answer(11*ms, "x-r", rogueCancelAck(wire.CancelRunInactive))
	h.tick(5000 * ms)
	h.clean()
}

func TestSteerBeforeTheNativeStartReturnedIsNotReady(t *testing.T) {
	raw := encode(t, "x-r", wire.PromptSteer{InputID: "x-i", Input: wire.MessageInput{{Content: []wire.InputContent{wire.TextPart("s")}}},
		DurableReceipt: true})
	p := HostileProbe{Action: HostileSteerStarting, ReplyID: "x-r", Want: []string{"ack/not_ready"}, Cond: CondUnresolved}
	h := rogueStarted(t)
	h.forge(10*ms, p, raw)
	h.answer(11*ms, "x-r", wire.PromptSteerAck{InputID: "x-i", Written: true})
	h.want(CheckHostileRefusal, "with ack/ok, documented ack/not_ready")
}

// The code of an undecodable admission frame names its type; a start
// with an invalid input is invalid_start whatever its handle.
func TestUndecodableAdmissionFramesAnswerTheirTypesCode(t *testing.T) {
	for _, c := range []struct {
		action, typ, want, got string
	}{
		{HostileStartUndecodable, wire.TypeExecutionStart, "invalid_start", "invalid_request"},
		{HostileReleaseUndecodable, wire.TypeExecutionRelease, "invalid_release", "invalid_request"},
		{HostileStartInvalidInput, wire.TypeExecutionStart, "invalid_start", "unknown_preparation"},
	} {
		raw := []byte(`{"type":"` + c.typ + `","id":"x-p-9","payload":{"handle":null}}`)
		if c.action == HostileStartInvalidInput {
			raw = []byte(`{"type":"execution_start","id":"x-p-9","payload":{"executor_id":"x-e","handle":"x-h","run_id":"x-r",` +
				`"input":[{"content":[{"type":"input_text","text":""}]}]}}`)
		}
		p := HostileProbe{Action: c.action, ReplyID: "x-p-9", Want: []string{"rejected/" + c.want}}
		h := newHostileWire(t)
		h.forge(10*ms, p, raw)
		h.answer(11*ms, "x-p-9", wire.PreparationStatus{State: wire.StateRejected, ErrorCode: c.want, Operation: c.typ})
		h.tick(5000 * ms)
		h.clean()
		h = newHostileWire(t)
		h.forge(10*ms, p, raw)
		h.answer(11*ms, "x-p-9", wire.PreparationStatus{State: wire.StateRejected, ErrorCode: c.got, Operation: c.typ})
		h.want(CheckHostileRefusal, "rejected/"+c.got+", documented rejected/"+c.want)
	}
}

// A release under another request ID than the handle's prepare must not
// release it.
func TestReleaseUnderAForeignRequestIsUnknown(t *testing.T) {
	p := HostileProbe{Action: HostileReleaseForeignRequest, ReplyID: "x-p-2", Want: []string{"rejected/unknown_preparation"}}
	raw := encode(t, "x-p-2", wire.ExecutionRelease{Handle: "x-h"})
	h := newHostileWire(t)
	h.answer(5*ms, "x-p-1", wire.PreparationStatus{Handle: "x-h", ExecutorID: "x-e", Revision: 2, State: wire.StateReady})
	h.forge(10*ms, p, raw)
	h.answer(11*ms, "x-p-2", wire.PreparationStatus{Handle: "x-h", ExecutorID: "x-e", Revision: 3, State: wire.StateReleased})
	h.want(CheckHostileRefusal, "with released, documented rejected/unknown_preparation")
}

func TestSteerPastTheInputLimitIsInputLimit(t *testing.T) {
	p := HostileProbe{Action: HostileSteerPastLimit, ReplyID: "x-r", Want: []string{"ack/input_limit"}, Cond: CondRunLive}
	raw := encode(t, "x-r", wire.PromptSteer{InputID: "x-i-257", Input: wire.MessageInput{{Content: []wire.InputContent{wire.TextPart("s")}}},
		DurableReceipt: true})
	h := rogueStarted(t)
	h.forge(10*ms, p, raw)
	h.answer(11*ms, "x-r", wire.PromptSteerAck{InputID: "x-i-257", ErrorCode: "input_limit"})
	h.tick(5000 * ms)
	h.clean()
	h = rogueStarted(t)
	h.forge(10*ms, p, raw)
	h.answer(11*ms, "x-r", wire.PromptSteerAck{InputID: "x-i-257", Written: true})
	h.want(CheckHostileRefusal, "with ack/ok, documented ack/input_limit")
	// once the daemon published done, the Run is inactive
	h = rogueStarted(t)
	h.answer(8*ms, "x-r", wire.Done{Content: "c"})
	h.forge(10*ms, p, raw)
	h.answer(11*ms, "x-r", wire.PromptSteerAck{InputID: "x-i-257", ErrorCode: "run_inactive"})
	h.tick(5000 * ms)
	h.clean()
	// so it is once the native done reached the daemon, done not yet
	// published (the Turn settles)
	h = rogueStarted(t)
	h.l.NativeDone(9*ms, "d1", "x-r", nil)
	h.forge(10*ms, p, raw)
	h.answer(11*ms, "x-r", wire.PromptSteerAck{InputID: "x-i-257", ErrorCode: "run_inactive"})
	h.tick(5000 * ms)
	h.clean()
	// so it is once the daemon was asked to shut down: it cancels every
	// Turn
	h = rogueStarted(t)
	h.l.ShutdownRequested(9*ms, "d1")
	h.forge(10*ms, p, raw)
	h.answer(11*ms, "x-r", wire.PromptSteerAck{InputID: "x-i-257", ErrorCode: "run_inactive"})
	h.tick(5000 * ms)
	h.clean()
	h = rogueStarted(t)
	h.forge(10*ms, p, raw)
	h.answer(11*ms, "x-r", wire.PromptSteerAck{InputID: "x-i-257", ErrorCode: "run_inactive"})
	h.want(CheckHostileRefusal, "with ack/run_inactive, documented ack/input_limit")
}

func TestNativeSessionConflictIsNamed(t *testing.T) {
	p := HostileProbe{Action: HostilePrepareNativeConflict, ReplyID: "x-p-3",
		Want: []string{"rejected/native_session_conflict", "rejected/preparation_capacity"}, Cond: CondOwnerOpen, Executor: "ex-4"}
	c := goodConfig("x-s")
	c.AgentSessionID = "x-native-9"
	raw := encode(t, "x-p-3", wire.ExecutionPrepare{SessionID: "x-s", Configuration: c})
	run := func(closed bool, answer wire.PreparationStatus) *hostileWire {
		h := newHostileWire(t)
		h.l.ExecutorCreated(1*ms, "d1", "ex-4")
		if closed {
			h.l.ExecutorClosed(9*ms, "d1", "ex-4")
		}
		h.forge(10*ms, p, raw)
		h.answer(11*ms, "x-p-3", answer)
		h.tick(5000 * ms)
		return h
	}
	conflict := wire.PreparationStatus{State: wire.StateRejected, ErrorCode: "native_session_conflict", Operation: wire.TypeExecutionPrepare}
	run(false, conflict).clean()
	other := wire.PreparationStatus{State: wire.StateRejected, ErrorCode: "configuration_conflict", Operation: wire.TypeExecutionPrepare}
	run(false, other).want(CheckHostileRefusal, "rejected/configuration_conflict, documented rejected/native_session_conflict")
	reused := wire.PreparationStatus{Handle: "x-h", ExecutorID: "ex-4", Revision: 1, State: wire.StateReady, Reused: true}
	run(false, reused).want(CheckHostileRefusal, "with ready, documented rejected/native_session_conflict")
	// its executor closed, the Session has no owner: a new preparation
	// is no refusal to judge
	run(true, wire.PreparationStatus{Handle: "x-h", ExecutorID: "ex-5", Revision: 1, State: wire.StatePreparing}).clean()
}

// A native Turn for the rogue Core's own Run, started through its own
// admission, is no forgery obeyed; one for any other hostile Run is.
func TestOwnRunTurnIsNoHostileEffect(t *testing.T) {
	l := NewLedger()
	l.HostileOwnRun("x-r-1")
	l.TurnCreated(1, "d1", "x-r-1")
	if vs := checkOnly(l, CheckHostileEffect); len(vs) > 0 {
		t.Fatalf("own Run judged a forgery:\n%s", Render(vs))
	}
	l.TurnCreated(2, "d1", "x-r-2")
	if vs := checkOnly(l, CheckHostileEffect); len(vs) != 1 || !containsMsg(vs[0], "forged Run x-r-2") {
		t.Fatalf("want one hostile_effect for x-r-2, got:\n%s", Render(vs))
	}
}

// A prepare of a Session whose executor's close failed and is not yet
// confirmed is executor_cleanup_unconfirmed; before the failure, or once
// the close is confirmed, the probe judges nothing.
func TestCleanupUnconfirmedWhileTheFailedCloseStands(t *testing.T) {
	p := HostileProbe{Action: HostilePrepareCleanupUnconfirmed, ReplyID: "x-p-4",
		Want: []string{"rejected/executor_cleanup_unconfirmed", "rejected/resource_unavailable"}, Cond: CondCloseFailed, Executor: "ex-2"}
	c := goodConfig("x-s")
	c.AgentSessionID = "native-x-s"
	raw := encode(t, "x-p-4", wire.ExecutionPrepare{SessionID: "x-s", Configuration: c})
	run := func(failAt, closeAt int64, answer string) *hostileWire {
		h := newHostileWire(t)
		h.l.ExecutorCreated(1*ms, "d1", "ex-2")
		if failAt > 0 {
			h.l.CloseFailed(failAt, "d1", "ex-2")
		}
		if closeAt > 0 {
			h.l.ExecutorClosed(closeAt, "d1", "ex-2")
		}
		h.forge(10*ms, p, raw) // delivered at 11 ms
		h.answer(11*ms, "x-p-4", wire.PreparationStatus{State: wire.StateRejected, ErrorCode: answer, Operation: wire.TypeExecutionPrepare})
		h.tick(5000 * ms)
		return h
	}
	run(5*ms, 0, "executor_cleanup_unconfirmed").clean()
	run(5*ms, 0, "preparation_capacity").want(CheckHostileRefusal,
		"with rejected/preparation_capacity, documented rejected/executor_cleanup_unconfirmed")
	run(0, 0, "preparation_capacity").clean()       // no failed close
	run(5*ms, 8*ms, "preparation_capacity").clean() // the retry confirmed it
	run(11*ms, 0, "preparation_capacity").clean()   // failed in the same instant
	// a failure of an earlier executor with the same ID (another daemon
	// process life) is not this one's
	h := newHostileWire(t)
	h.l.ExecutorCreated(1*ms, "d1", "ex-2")
	h.l.CloseFailed(2*ms, "d1", "ex-2")
	h.l.ExecutorCreated(5*ms, "d1", "ex-2")
	h.forge(10*ms, p, raw)
	h.answer(11*ms, "x-p-4", wire.PreparationStatus{State: wire.StateRejected, ErrorCode: "preparation_capacity", Operation: wire.TypeExecutionPrepare})
	h.tick(5000 * ms)
	h.clean()
}
