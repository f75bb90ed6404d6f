package check

import (
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// dxWorld: d1 declares the synthetic kind with caps on c1; Core prepares
// p1 and starts run r1 on it; r1 asks permission ix1, prompt ask1 with
// question q1 and function call call1.
func dxWorld(caps wire.AgentKindCapabilities) *Ledger {
	l := NewLedger()
	hb := wire.Heartbeat{SupportedAgentKinds: []wire.SupportedAgentKind{{Kind: "synthetic", Available: true, Version: "1", Capabilities: caps}}}
	l.Wire(wev(WireSent, 0, 1, "d1", "core", "", hb))
	l.Wire(wev(WireDelivered, 0, 1, "d1", "core", "", hb))
	prep := wire.ExecutionPrepare{SessionID: "s1", Configuration: wire.ExecutionConfiguration{AgentKind: "synthetic"}}
	l.Wire(wev(WireSent, 100*time.Millisecond, 1, "core", "d1", "p1", prep))
	l.Wire(wev(WireDelivered, 100*time.Millisecond, 1, "core", "d1", "p1", prep))
	l.Wire(wev(WireSent, 150*time.Millisecond, 1, "d1", "core", "p1", wire.PreparationStatus{State: wire.StateStarted, Handle: "h1", RunID: "r1"}))
	start := wire.ExecutionStart{ExecutorID: "e1", Handle: "h1", RunID: "r1"}
	l.Wire(wev(WireSent, 200*time.Millisecond, 1, "core", "d1", "p1", start))
	l.Wire(wev(WireDelivered, 200*time.Millisecond, 1, "core", "d1", "p1", start))
	l.Wire(wev(WireSent, time.Second, 1, "d1", "core", "r1", wire.PermissionRequest{RequestID: "ix1", Tool: "shell", Title: "run"}))
	l.Wire(wev(WireSent, time.Second, 1, "d1", "core", "r1", wire.UserChoicePrompt{AskID: "ask1", Questions: []wire.UserQuestion{{ID: "q1", Question: "?"}}}))
	l.Wire(wev(WireSent, time.Second, 1, "d1", "core", "r1", wire.FunctionCall{CallID: "call1", Name: "f"}))
	return l
}

func allCaps() wire.AgentKindCapabilities { return wire.AllCapabilities(wire.CapabilityFromBool(true)) }

// deliver puts decision p for id on c1 at the given time: Core sends it
// and d1 receives it.
func deliver(l *Ledger, at time.Duration, id string, p wire.Payload) {
	l.Wire(wev(WireSent, at, 1, "core", "d1", id, p))
	l.Wire(wev(WireDelivered, at, 1, "core", "d1", id, p))
}

func dxAck(l *Ledger, at time.Duration, id, delivery string, applied bool, code string) {
	l.Wire(wev(WireSent, at, 1, "d1", "core", id, wire.InteractionDecisionAck{DeliveryID: delivery, Applied: applied, ErrorCode: code}))
}

// applyPermission: Core's decision d1 for ix1 is applied natively and
// acknowledged at 2 s.
func applyPermission(l *Ledger) {
	deliver(l, 2*time.Second, "ix1", wire.PermissionDecision{DeliveryID: "dl1", Approved: true})
	l.DecisionCalled(ns(2*time.Second), "d1", "r1", "ix1", false)
	l.DecisionAnswered(ns(2*time.Second), "d1", "r1", "ix1", true)
	dxAck(l, 2*time.Second, "ix1", "dl1", true, "")
}

func TestDecisionRepeatIdenticalIsApplied(t *testing.T) {
	l := dxWorld(allCaps())
	applyPermission(l)
	l.Wire(wev(WireSent, 3*time.Second, 1, "d1", "core", "r1", wire.Done{}))
	deliver(l, 30*time.Minute, "ix1", wire.PermissionDecision{DeliveryID: "dl2", Approved: true})
	dxAck(l, 30*time.Minute, "ix1", "dl2", true, "")
	dxClean(t, l)
	if !marked(l, MarkDecisionRepeatRemembered) {
		t.Fatal("remembered repeat not marked")
	}
	l2 := dxWorld(allCaps())
	applyPermission(l2)
	deliver(l2, 30*time.Minute, "ix1", wire.PermissionDecision{DeliveryID: "dl2", Approved: true})
	dxAck(l2, 30*time.Minute, "ix1", "dl2", false, wire.AckNotPending)
	wantViolation(t, l2, CheckDecisionRepeatAnswer, "refused not_pending; want applied:true")
}

func TestDecisionRepeatBeyondMemoryIsNotJudged(t *testing.T) {
	l := dxWorld(allCaps())
	applyPermission(l)
	deliver(l, 2*time.Hour, "ix1", wire.PermissionDecision{DeliveryID: "dl2", Approved: true})
	dxAck(l, 2*time.Hour, "ix1", "dl2", false, wire.AckNotPending)
	dxClean(t, l)
	l = dxWorld(allCaps())
	applyPermission(l)
	l.NodeCrashed(ns(3*time.Second), "d1")
	deliver(l, 4*time.Second, "ix1", wire.PermissionDecision{DeliveryID: "dl2", Approved: true})
	dxAck(l, 4*time.Second, "ix1", "dl2", false, wire.AckNotPending)
	if got := violationsOf(l, CheckDecisionRepeatAnswer); len(got) > 0 {
		t.Fatalf("unexpected %v", got)
	}
}

func TestDecisionRepeatChangedIsConflict(t *testing.T) {
	l := dxWorld(allCaps())
	applyPermission(l)
	deliver(l, 3*time.Second, "ix1", wire.PermissionDecision{DeliveryID: "dl2", Approved: false})
	dxAck(l, 3*time.Second, "ix1", "dl2", false, wire.AckDecisionConflict)
	dxClean(t, l)
	l = dxWorld(allCaps())
	applyPermission(l)
	deliver(l, 3*time.Second, "ix1", wire.PermissionDecision{DeliveryID: "dl2", Approved: false})
	dxAck(l, 3*time.Second, "ix1", "dl2", true, "")
	wantViolation(t, l, CheckDecisionRepeatAnswer, "applied:true; want decision_conflict")
}

func TestResultDifferingInSuccessIsConflict(t *testing.T) {
	l := dxWorld(allCaps())
	res := wire.FunctionResult{DeliveryID: "dl1", CallID: "call1", Success: true, Content: []wire.InputContent{wire.TextPart("x")}}
	deliver(l, 2*time.Second, "r1", res)
	l.DecisionCalled(ns(2*time.Second), "d1", "r1", "r1/call1", false)
	l.DecisionAnswered(ns(2*time.Second), "d1", "r1", "r1/call1", true)
	dxAck(l, 2*time.Second, "r1", "dl1", true, "")
	res.DeliveryID, res.Success = "dl2", false
	deliver(l, 3*time.Second, "r1", res)
	dxAck(l, 3*time.Second, "r1", "dl2", true, "")
	wantViolation(t, l, CheckDecisionRepeatAnswer, "want decision_conflict")
	if !marked(l, MarkResultSuccessChanged) {
		t.Fatal("not marked")
	}
}

func TestChangedWhileApplyingIsConflict(t *testing.T) {
	for _, code := range []string{"", wire.AckDecisionConflict} {
		l := dxWorld(allCaps())
		deliver(l, 2*time.Second, "ix1", wire.PermissionDecision{DeliveryID: "dl1", Approved: true})
		l.DecisionCalled(ns(2*time.Second), "d1", "r1", "ix1", false)
		deliver(l, 3*time.Second, "ix1", wire.PermissionDecision{DeliveryID: "dl2", Approved: false})
		l.DecisionAnswered(ns(4*time.Second), "d1", "r1", "ix1", true)
		dxAck(l, 4*time.Second, "ix1", "dl1", true, "")
		dxAck(l, 4*time.Second, "ix1", "dl2", code == "", code)
		if code == "" {
			wantViolation(t, l, CheckDecisionRepeatAnswer, "being applied, applied:true")
		} else {
			dxClean(t, l)
		}
	}
}

func TestDecisionBeyondDeclarationRefusedBeforeNative(t *testing.T) {
	caps := allCaps()
	caps.Permissions = wire.CapabilityFromBool(false)
	l := dxWorld(caps)
	deliver(l, 2*time.Second, "ask1", wire.UserChoiceDecision{DeliveryID: "dl1", QuestionAnswers: []wire.QuestionAnswer{{QuestionID: "q1", Answers: []string{"a"}}}})
	dxAck(l, 2*time.Second, "ask1", "dl1", false, wire.AckUnsupported)
	if got := violationsOf(l, CheckDecisionRefusedBeforeNative); len(got) > 0 {
		t.Fatalf("unexpected %v", got)
	}
	if got := violationsOf(l, CheckDecisionSentLawful); len(got) != 1 {
		t.Fatalf("Core's send not caught: %v", got)
	}
	l = dxWorld(caps)
	deliver(l, 2*time.Second, "ask1", wire.UserChoiceDecision{DeliveryID: "dl1", QuestionAnswers: []wire.QuestionAnswer{{QuestionID: "q1", Answers: []string{"a"}}}})
	l.DecisionCalled(ns(2*time.Second), "d1", "r1", "ask1", false)
	wantViolation(t, l, CheckDecisionRefusedBeforeNative, "admitted without permissions")

	caps = allCaps()
	caps.FunctionResultImages = wire.CapabilityFromBool(false)
	l = dxWorld(caps)
	res := wire.FunctionResult{DeliveryID: "dl1", CallID: "call1", Success: true, Content: []wire.InputContent{wire.ImagePart("https://x/y.png")}}
	deliver(l, 2*time.Second, "r1", res)
	dxAck(l, 2*time.Second, "r1", "dl1", true, "")
	wantViolation(t, l, CheckDecisionRefusedBeforeNative, "admitted without function_result_images")
}

func TestInvalidChoiceAndCancelledRunRefused(t *testing.T) {
	l := dxWorld(allCaps())
	deliver(l, 2*time.Second, "ask1", wire.UserChoiceDecision{DeliveryID: "dl1", QuestionAnswers: []wire.QuestionAnswer{{QuestionID: "q9", Answers: []string{"a"}}}})
	l.DecisionCalled(ns(2*time.Second), "d1", "r1", "ask1", false)
	wantViolation(t, l, CheckDecisionRefusedBeforeNative, "q9 never asked")

	l = dxWorld(allCaps())
	l.Wire(wev(WireSent, 1500*time.Millisecond, 1, "core", "d1", "r1", wire.PromptCancel{DeliveryID: "c1"}))
	l.Wire(wev(WireDelivered, 1500*time.Millisecond, 1, "core", "d1", "r1", wire.PromptCancel{DeliveryID: "c1"}))
	deliver(l, 2*time.Second, "ix1", wire.PermissionDecision{DeliveryID: "dl1", Approved: true})
	dxAck(l, 2*time.Second, "ix1", "dl1", false, wire.AckNotReady)
	wantViolation(t, l, CheckDecisionRefusedBeforeNative, "after a prompt_cancel of run r1, refused not_ready; want not_pending")
}

func TestCoreDeliveryIDFreshPerAttempt(t *testing.T) {
	l := dxWorld(allCaps())
	deliver(l, 2*time.Second, "ix1", wire.PermissionDecision{DeliveryID: "dl1", Approved: true})
	l.Wire(wev(WireSent, 2*time.Second, 1, "core", "d1", "ix1", wire.PermissionDecision{DeliveryID: "dl1", Approved: true})) // a network copy
	if got := violationsOf(l, CheckDecisionSentLawful); len(got) > 0 {
		t.Fatalf("unexpected %v", got)
	}
	deliver(l, 20*time.Second, "ix1", wire.PermissionDecision{DeliveryID: "dl1", Approved: true})
	wantViolation(t, l, CheckDecisionSentLawful, "which an earlier attempt carried")
}

func TestCoreKeepsUnknownWithoutReceipt(t *testing.T) {
	l := dxWorld(allCaps())
	deliver(l, 2*time.Second, "ix1", wire.PermissionDecision{DeliveryID: "dl1", Approved: true})
	l.CoreInteraction(ns(2*time.Second), "t1", "ix1", "delivering", "dl1")
	l.CoreInteraction(ns(17*time.Second), "t1", "ix1", "pending", "dl1")
	wantViolation(t, l, CheckDecisionUnknownKept, "recorded interaction ix1 of turn t1 pending")
	l = dxWorld(allCaps())
	deliver(l, 2*time.Second, "ix1", wire.PermissionDecision{DeliveryID: "dl1", Approved: true})
	l.CoreInteraction(ns(2*time.Second), "t1", "ix1", "delivering", "dl1")
	l.CoreInteraction(ns(17*time.Second), "t1", "ix1", "unknown", "dl1")
	if got := violationsOf(l, CheckDecisionUnknownKept); len(got) > 0 {
		t.Fatalf("unexpected %v", got)
	}
}

// dxClean: none of this file's rules was broken.
func dxClean(t *testing.T, l *Ledger) {
	t.Helper()
	for _, c := range []string{CheckDecisionRepeatAnswer, CheckDecisionRefusedBeforeNative, CheckDecisionSentLawful, CheckDecisionUnknownKept} {
		if got := violationsOf(l, c); len(got) > 0 {
			t.Fatalf("unexpected %v", got)
		}
	}
}

func TestAdapterRefusalIsContractViolation(t *testing.T) {
	for _, code := range []string{wire.AckUnsupported, wire.AckContractViolation} {
		l := dxWorld(allCaps())
		deliver(l, 2*time.Second, "ix1", wire.PermissionDecision{DeliveryID: "dl1", Approved: true})
		l.DecisionCalled(ns(2*time.Second), "d1", "r1", "ix1", false)
		l.DecisionRefusedUnsupported(ns(2*time.Second), "d1", "r1", "ix1")
		l.DecisionAnswered(ns(2*time.Second), "d1", "r1", "ix1", false)
		dxAck(l, 2*time.Second, "ix1", "dl1", false, code)
		if code == wire.AckUnsupported {
			wantViolation(t, l, CheckDecisionRefusedBeforeNative, "refused unsupported; want contract_violation")
		} else {
			dxClean(t, l)
		}
	}
}

// A later heartbeat declaring permissions does not let Core answer a Turn
// admitted without them.
func TestCoreJudgedByAdmittedDeclaration(t *testing.T) {
	caps := allCaps()
	caps.Permissions = wire.CapabilityFromBool(false)
	l := dxWorld(caps)
	later := wire.Heartbeat{SupportedAgentKinds: []wire.SupportedAgentKind{{Kind: "synthetic", Available: true, Version: "1", Capabilities: allCaps()}}}
	ev := wev(WireDelivered, 1500*time.Millisecond, 1, "d1", "core", "", later)
	ev.Forged = true
	l.Wire(ev)
	l.Wire(wev(WireSent, 2*time.Second, 1, "core", "d1", "ix1", wire.PermissionDecision{DeliveryID: "dl1", Approved: true}))
	wantViolation(t, l, CheckDecisionSentLawful, "admitted without permissions")
}

// TestFunctionResultUnderItsRunID: Core sends a function result under the
// Run ID of the Run that made the call; under another Envelope ID (the
// call ID, say) it breaks decision_sent_lawful.
func TestFunctionResultUnderItsRunID(t *testing.T) {
	res := wire.FunctionResult{DeliveryID: "dl1", CallID: "call1", Success: true, Content: []wire.InputContent{wire.TextPart("ok")}}
	l := dxWorld(allCaps())
	deliver(l, 2*time.Second, "r1", res)
	if got := violationsOf(l, CheckDecisionSentLawful); len(got) > 0 {
		t.Fatalf("under its Run ID: %v", got)
	}
	l = dxWorld(allCaps())
	deliver(l, 2*time.Second, "call1", res)
	wantViolation(t, l, CheckDecisionSentLawful, `under Envelope ID "call1", not the Run ID of the Run that made the call (r1)`)
}
