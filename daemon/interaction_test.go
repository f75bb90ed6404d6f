package daemon

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/wire"
)

// interactionConfig declares permissions and function tools (with images).
func interactionConfig() Config {
	c := testConfig()
	caps := c.Kinds[0].Capabilities
	caps.Permissions = wire.CapabilitySupported
	caps.FunctionTools = wire.CapabilitySupported
	caps.FunctionResultImages = wire.CapabilitySupported
	c.Kinds[0].Capabilities = caps
	return c
}

func permissionReq(id string) wire.PermissionRequest {
	return wire.PermissionRequest{RequestID: id, Tool: "shell", Title: "run ls"}
}

func choicePrompt(id string) wire.UserChoicePrompt {
	return wire.UserChoicePrompt{AskID: id, Questions: []wire.UserQuestion{
		{ID: "q1", Question: "colour?", Options: []wire.UserOption{{Label: "red"}, {Label: "blue"}}},
		{ID: "q2", Header: "Size", Question: "size?", Options: []wire.UserOption{{Label: "s"}}},
	}}
}

func fnCall(id string) wire.FunctionCall {
	return wire.FunctionCall{CallID: id, Name: "lookup", Arguments: json.RawMessage(`{"q":1}`)}
}

func fnResult(delivery, call string) wire.FunctionResult {
	return wire.FunctionResult{DeliveryID: delivery, CallID: call, Success: true, Content: []wire.InputContent{wire.TextPart("42")}}
}

// asked starts run1 on a rig with interactions declared and has the Turn
// emit p.
func asked(t *testing.T, cfg Config, p wire.Payload) (*rig, TurnID) {
	t.Helper()
	r := newRigWith(t, cfg)
	turn := r.started("p1", "s1", "run1")
	r.step(NativeTurnEvent{Turn: turn, Event: p})
	return r, turn
}

// acks returns the interaction_decision_acks of the last step with their
// envelope IDs.
func ixAcks(r *rig) ([]wire.InteractionDecisionAck, []string) {
	var out []wire.InteractionDecisionAck
	var ids []string
	for _, f := range r.sent() {
		if a, ok := f.Payload.(wire.InteractionDecisionAck); ok {
			out = append(out, a)
			ids = append(ids, f.ID)
		}
	}
	return out, ids
}

// oneAck asserts the last step sent exactly one ack, on envelope id, and
// returns it.
func oneIxAck(t *testing.T, r *rig, id string) wire.InteractionDecisionAck {
	t.Helper()
	a, ids := ixAcks(r)
	if len(a) != 1 {
		require.Fail(t, fmt.Sprintf("want one ack, got %d: %s", len(a), describeAll(r.out)))
	}
	require.Equal(t, id, ids[0], "ack envelope ID")
	if _, err := wire.Encode(r.sent()[len(r.sent())-1]); err != nil {
		require.Fail(t, fmt.Sprintf("ack is not a valid frame: %v", err))
	}
	return a[0]
}

func refusedAck(t *testing.T, r *rig, id, delivery, code string) {
	t.Helper()
	a := oneIxAck(t, r, id)
	require.Truef(t, !a.Applied && a.ErrorCode == code && a.DeliveryID == delivery, "want %s for %s, got %+v", code, delivery, a)
	noCall[RespondPermission](r)
	noCall[RespondUserChoice](r)
	noCall[SubmitFunctionResult](r)
}

func TestPermissionRequestIsForwardedWithRunID(t *testing.T) {
	r, _ := asked(t, interactionConfig(), permissionReq("perm-1"))
	f := r.sent()
	require.Truef(t, len(f) == 1 && f[0].ID == "run1", "permission_request on the Run ID: %s", describeAll(r.out))
	require.Equal(t, "perm-1", f[0].Payload.(wire.PermissionRequest).RequestID, "request ID")
}

// applied=true only once the native side confirmed; the call names the
// exact Turn and interaction.
func TestPermissionDecisionAppliedOnlyAfterNativeConfirms(t *testing.T) {
	r, turn := asked(t, interactionConfig(), permissionReq("perm-1"))
	r.recv("perm-1", wire.PermissionDecision{DeliveryID: "d1", Approved: true})
	c, op := callOf[RespondPermission](r)
	require.Truef(t, op.Turn == turn && op.InteractionID == "perm-1" && op.Decision.Approved, "routed to the asking Turn: %+v", op)
	a, _ := ixAcks(r)
	require.Empty(t, a, "no ack before the native result")
	r.result(c, DecisionResult{Outcome: DecisionApplied})
	a1 := oneIxAck(t, r, "perm-1")
	require.Truef(t, a1.Applied && a1.DeliveryID == "d1" && a1.ErrorCode == "", "applied ack: %+v", a1)
}

// An identical repeat (fresh delivery ID) is applied=true again without a
// second native call; a different decision conflicts.
func TestRepeatedDecisionIsReacknowledgedAndDifferentConflicts(t *testing.T) {
	r, _ := asked(t, interactionConfig(), permissionReq("perm-1"))
	r.recv("perm-1", wire.PermissionDecision{DeliveryID: "d1", Approved: true})
	c, _ := callOf[RespondPermission](r)
	r.result(c, DecisionResult{Outcome: DecisionApplied})
	r.recv("perm-1", wire.PermissionDecision{DeliveryID: "d2", Approved: true})
	a := oneIxAck(t, r, "perm-1")
	require.Truef(t, a.Applied && a.DeliveryID == "d2", "repeat applied again: %+v", a)
	noCall[RespondPermission](r)
	r.recv("perm-1", wire.PermissionDecision{DeliveryID: "d3", Approved: false})
	refusedAck(t, r, "perm-1", "d3", wire.AckDecisionConflict)
}

// A repeat while the first is still applying waits for the same native
// result; a different decision meanwhile conflicts.
func TestRepeatWhileApplyingJoinsTheNativeResult(t *testing.T) {
	r, _ := asked(t, interactionConfig(), permissionReq("perm-1"))
	r.recv("perm-1", wire.PermissionDecision{DeliveryID: "d1", Approved: true})
	c, _ := callOf[RespondPermission](r)
	r.recv("perm-1", wire.PermissionDecision{DeliveryID: "d2", Approved: true})
	require.Empty(t, r.out, "the repeat waits")
	r.recv("perm-1", wire.PermissionDecision{DeliveryID: "d3", Approved: false, Message: "no"})
	refusedAck(t, r, "perm-1", "d3", wire.AckDecisionConflict)
	r.result(c, DecisionResult{Outcome: DecisionApplied})
	a, _ := ixAcks(r)
	require.Truef(t, len(a) == 2 && a[0].DeliveryID == "d1" && a[1].DeliveryID == "d2" && a[0].Applied && a[1].Applied,
		"both deliveries applied: %+v", a)

}

// Each refusal has its documented code; a decision that fails validation
// or binds to no issued question is refused runtime_error (written out
// here, not read from CodeInvalidDecision: the wire value is the contract).
func TestDecisionRefusals(t *testing.T) {
	noPerms := interactionConfig()
	caps := noPerms.Kinds[0].Capabilities
	caps.Permissions = wire.CapabilityUnsupported
	noPerms.Kinds[0].Capabilities = caps
	cases := []struct {
		name     string
		cfg      Config
		ask      wire.Payload
		id       string
		decision wire.Payload
		delivery string
		code     string
	}{
		{"unknown interaction", interactionConfig(), permissionReq("perm-1"), "perm-9",
			wire.PermissionDecision{DeliveryID: "d1", Approved: true}, "d1", wire.AckNotPending},
		{"permission decision to a user-choice prompt", interactionConfig(), choicePrompt("ask-1"), "ask-1",
			wire.PermissionDecision{DeliveryID: "d1", Approved: true}, "d1", wire.AckNotPending},
		{"user-choice decision to a permission", interactionConfig(), permissionReq("perm-1"), "perm-1",
			wire.UserChoiceDecision{DeliveryID: "d1", Cancelled: true}, "d1", wire.AckNotPending},
		{"permissions undeclared", noPerms, permissionReq("perm-1"), "perm-1",
			wire.PermissionDecision{DeliveryID: "d1", Approved: true}, "d1", wire.AckUnsupported},
		{"user choice with permissions undeclared", noPerms, choicePrompt("ask-1"), "ask-1",
			wire.UserChoiceDecision{DeliveryID: "d1", Cancelled: true}, "d1", wire.AckUnsupported},
		{"blank delivery ID", interactionConfig(), permissionReq("perm-1"), "perm-1",
			wire.PermissionDecision{Approved: true}, "", wire.AckRuntimeError},
		{"answer to an unknown question", interactionConfig(), choicePrompt("ask-1"), "ask-1",
			wire.UserChoiceDecision{DeliveryID: "d1", QuestionAnswers: []wire.QuestionAnswer{{QuestionID: "q9", Answers: []string{"x"}}}},
			"d1", wire.AckRuntimeError},
		{"cancelled with answers", interactionConfig(), choicePrompt("ask-1"), "ask-1",
			wire.UserChoiceDecision{DeliveryID: "d1", Cancelled: true, QuestionAnswers: []wire.QuestionAnswer{{QuestionID: "q1", Answers: []string{}}}},
			"d1", wire.AckRuntimeError},
		{"duplicate question ID", interactionConfig(), choicePrompt("ask-1"), "ask-1",
			wire.UserChoiceDecision{DeliveryID: "d1", QuestionAnswers: []wire.QuestionAnswer{
				{QuestionID: "q1", Answers: []string{"red"}}, {QuestionID: "q1", Answers: []string{"blue"}}}},
			"d1", wire.AckRuntimeError},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, _ := asked(t, c.cfg, c.ask)
			before := r.m.Snapshot()
			r.recv(c.id, c.decision)
			refusedAck(t, r, c.id, c.delivery, c.code)
			require.Len(t, r.out, 1, "only the refusal")
			require.Truef(t, reflect.DeepEqual(before, r.m.Snapshot()), "a refusal changes nothing")
		})
	}
}

// Answers bind by question ID, never by position: answering only the
// second question is submitted as such.
func TestUserChoiceAnswersBindByQuestionID(t *testing.T) {
	r, _ := asked(t, interactionConfig(), choicePrompt("ask-1"))
	d := wire.UserChoiceDecision{DeliveryID: "d1", QuestionAnswers: []wire.QuestionAnswer{{QuestionID: "q2", Answers: []string{"s"}}}}
	r.recv("ask-1", d)
	c, op := callOf[RespondUserChoice](r)
	_, q1 := op.Decision.Answer("q1")
	got, q2 := op.Decision.Answer("q2")
	require.Truef(t, !q1 && q2 && len(got) == 1 && got[0] == "s", "q1 unanswered, q2 answered: %+v", op.Decision)
	r.result(c, DecisionResult{Outcome: DecisionApplied})
	require.Truef(t, oneIxAck(t, r, "ask-1").Applied, "applied")
}

// A cancelled user choice needs native settlement too: applied only after
// the native result.
func TestCancelledUserChoiceNeedsNativeSettlement(t *testing.T) {
	r, _ := asked(t, interactionConfig(), choicePrompt("ask-1"))
	r.recv("ask-1", wire.UserChoiceDecision{DeliveryID: "d1", Cancelled: true, Reason: "user left"})
	c, op := callOf[RespondUserChoice](r)
	require.Truef(t, op.Decision.Cancelled, "cancel submitted natively")
	a, _ := ixAcks(r)
	require.Empty(t, a, "no ack before native settlement")
	r.result(c, DecisionResult{Outcome: DecisionNotPending, Err: "gone"})
	refusedAck(t, r, "ask-1", "d1", wire.AckNotPending)
}

func TestNativeDecisionFailuresMapToCodes(t *testing.T) {
	cases := []struct {
		outcome DecisionOutcome
		code    string
		retry   bool // the interaction stays pending
	}{
		{DecisionUnsupported, wire.AckContractViolation, true},
		{DecisionNotPending, wire.AckNotPending, false},
		{DecisionFailed, wire.AckRuntimeError, true},
	}
	for _, c := range cases {
		t.Run(c.outcome.String(), func(t *testing.T) {
			r, _ := asked(t, interactionConfig(), permissionReq("perm-1"))
			r.recv("perm-1", wire.PermissionDecision{DeliveryID: "d1", Approved: true})
			call, _ := callOf[RespondPermission](r)
			r.result(call, DecisionResult{Outcome: c.outcome, Err: "native"})
			refusedAck(t, r, "perm-1", "d1", c.code)
			r.recv("perm-1", wire.PermissionDecision{DeliveryID: "d2", Approved: true})
			if c.retry {
				callOf[RespondPermission](r)
			} else {
				refusedAck(t, r, "perm-1", "d2", wire.AckNotPending)
			}
		})
	}
}

// permission_cancel is forwarded on the interaction ID; a later decision
// is not pending. Withdrawn while applying: the native result decides.
func TestPermissionWithdrawn(t *testing.T) {
	r, turn := asked(t, interactionConfig(), permissionReq("perm-1"))
	r.step(NativePermissionWithdrawn{Turn: turn, InteractionID: "perm-1"})
	f := r.sent()
	require.Truef(t, len(f) == 1 && f[0].ID == "perm-1", "permission_cancel on the interaction ID: %s", describeAll(r.out))
	_, ok := f[0].Payload.(wire.PermissionCancel)
	require.Truef(t, ok, "a permission_cancel")
	r.recv("perm-1", wire.PermissionDecision{DeliveryID: "d1", Approved: true})
	refusedAck(t, r, "perm-1", "d1", wire.AckNotPending)

	r2, turn2 := asked(t, interactionConfig(), permissionReq("perm-2"))
	r2.recv("perm-2", wire.PermissionDecision{DeliveryID: "d1", Approved: true})
	c, _ := callOf[RespondPermission](r2)
	r2.step(NativePermissionWithdrawn{Turn: turn2, InteractionID: "perm-2"})
	require.Equal(t, "permission_cancel", frameTypes(r2.sent()), "withdrawal forwarded while applying")
	r2.result(c, DecisionResult{Outcome: DecisionApplied})
	require.Truef(t, oneIxAck(t, r2, "perm-2").Applied, "the native result decides")
}

// done waits for an admitted decision: the ack goes out first.
func TestDoneWaitsForAdmittedDecision(t *testing.T) {
	r, turn := asked(t, interactionConfig(), fnCall("call-1"))
	r.recv("run1", fnResult("d1", "call-1"))
	c, op := callOf[SubmitFunctionResult](r)
	require.Equal(t, turn, op.Turn, "routed to the Run's Turn")
	r.settle(turn, SettleResult{Settled: true, Reusable: true})
	require.Empty(t, payloadsOf[wire.Done](r.allSent()), "no done while the decision is admitted")
	r.result(c, DecisionResult{Outcome: DecisionApplied})
	require.Equal(t, "interaction_decision_ack,done", frameTypes(r.sent()), "ack, then done")
}

// Admission closes before settlement: after the native terminal result or
// a cancel request, a decision is not pending and nothing is submitted.
func TestDecisionAdmissionClosesBeforeSettlement(t *testing.T) {
	r, turn := asked(t, interactionConfig(), permissionReq("perm-1"))
	r.step(NativeTurnEvent{Turn: turn, Event: wire.Done{Content: "ok"}})
	r.recv("perm-1", wire.PermissionDecision{DeliveryID: "d1", Approved: true})
	refusedAck(t, r, "perm-1", "d1", wire.AckNotPending)

	r2, _ := asked(t, interactionConfig(), fnCall("call-1"))
	r2.recv("run1", wire.PromptCancel{})
	r2.recv("run1", fnResult("d1", "call-1"))
	refusedAck(t, r2, "run1", "d1", wire.AckNotPending)
}

// A native callback of a Turn that already finished never lands on the
// Turn now running on the same executor.
func TestLateCallbackOfFinishedTurnIsDropped(t *testing.T) {
	r, old := asked(t, interactionConfig(), permissionReq("perm-1"))
	r.settle(old, SettleResult{Settled: true, Reusable: true})
	st := r.ready("p2", "s1")
	r.recv("p2", startFor(st, "run2"))
	c, op := callOf[StartTurn](r)
	r.result(c, StartResult{Turn: true})
	require.Truef(t, op.Turn != old, "a fresh Turn")
	r.step(NativeTurnEvent{Turn: old, Event: permissionReq("perm-late")})
	r.step(NativePermissionWithdrawn{Turn: old, InteractionID: "perm-1"})
	require.Empty(t, r.out, "late callbacks dropped")
	r.recv("perm-late", wire.PermissionDecision{DeliveryID: "d1", Approved: true})
	refusedAck(t, r, "perm-late", "d1", wire.AckNotPending)
}

// A decision reaches only the Turn that asked, among several live ones.
func TestDecisionReachesOnlyTheAskingTurn(t *testing.T) {
	r := newRigWith(t, interactionConfig())
	a := r.started("p1", "s1", "run1")
	b := r.started("p2", "s2", "run2")
	r.step(NativeTurnEvent{Turn: a, Event: permissionReq("perm-a")})
	r.step(NativeTurnEvent{Turn: b, Event: permissionReq("perm-b")})
	r.recv("perm-b", wire.PermissionDecision{DeliveryID: "d1", Approved: true})
	_, op := callOf[RespondPermission](r)
	require.Equal(t, b, op.Turn, "Turn of perm-b")
	r.recv("run1", wire.FunctionResult{DeliveryID: "d2", CallID: "call-b", Success: true, Content: []wire.InputContent{}})
	refusedAck(t, r, "run1", "d2", wire.AckNotPending)
}

func TestDecisionBeforeStartResolvedIsNotReady(t *testing.T) {
	r := newRigWith(t, interactionConfig())
	st := r.ready("p1", "s1")
	r.recv("p1", startFor(st, "run1"))
	c, op := callOf[StartTurn](r)
	r.step(NativeTurnEvent{Turn: op.Turn, Event: permissionReq("perm-1")})
	require.Empty(t, r.out, "buffered before started")
	r.recv("perm-1", wire.PermissionDecision{DeliveryID: "d1", Approved: true})
	refusedAck(t, r, "perm-1", "d1", wire.AckNotReady)
	r.result(c, StartResult{Turn: true})
	require.Equal(t, "preparation_status,permission_request", frameTypes(r.sent()), "buffered request forwarded after started")
}

func TestFunctionResultRefusals(t *testing.T) {
	noFns := interactionConfig()
	caps := noFns.Kinds[0].Capabilities
	caps.FunctionTools = wire.CapabilityUnsupported
	noFns.Kinds[0].Capabilities = caps
	noImages := interactionConfig()
	caps = noImages.Kinds[0].Capabilities
	caps.FunctionResultImages = wire.CapabilityUnsupported
	noImages.Kinds[0].Capabilities = caps
	image := fnResult("d1", "call-1")
	image.Content = []wire.InputContent{wire.ImagePart("data:image/png;base64,AAAA")}
	badContent := fnResult("d1", "call-1")
	badContent.Content = nil
	cases := []struct {
		name   string
		cfg    Config
		run    string
		result wire.FunctionResult
		code   string
	}{
		{"unknown call", interactionConfig(), "run1", fnResult("d1", "call-9"), wire.AckNotPending},
		{"unknown run", interactionConfig(), "run9", fnResult("d1", "call-1"), wire.AckNotPending},
		{"function tools undeclared", noFns, "run1", fnResult("d1", "call-1"), wire.AckUnsupported},
		{"images undeclared", noImages, "run1", image, wire.AckUnsupported},
		{"null content", interactionConfig(), "run1", badContent, wire.AckInvalidResult},
		{"blank call ID", interactionConfig(), "run1", fnResult("d1", ""), wire.AckInvalidResult},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, _ := asked(t, c.cfg, fnCall("call-1"))
			r.recv(c.run, c.result)
			refusedAck(t, r, c.run, "d1", c.code)
		})
	}
}

// Applied function results are remembered past the Turn, for an hour.
func TestAppliedMemoryOutlivesTheTurnForAnHour(t *testing.T) {
	r, turn := asked(t, interactionConfig(), fnCall("call-1"))
	r.recv("run1", fnResult("d1", "call-1"))
	c, _ := callOf[SubmitFunctionResult](r)
	r.result(c, DecisionResult{Outcome: DecisionApplied})
	r.settle(turn, SettleResult{Settled: true, Reusable: true})
	r.recv("run1", fnResult("d2", "call-1"))
	require.Truef(t, oneIxAck(t, r, "run1").Applied, "identical repeat after the Turn: applied")
	other := fnResult("d3", "call-1")
	other.Success = false
	r.recv("run1", other)
	refusedAck(t, r, "run1", "d3", wire.AckDecisionConflict)
	r.advance(AppliedDecisionTTL)
	r.recv("run1", fnResult("d4", "call-1"))
	refusedAck(t, r, "run1", "d4", wire.AckNotPending)
}

func TestAppliedMemoryIsBounded(t *testing.T) {
	m := New(interactionConfig())
	for i := range AppliedDecisionsMax + 10 {
		m.now = t0.Add(time.Duration(i) * time.Millisecond)
		m.rememberApplied(callKey("run", string(rune('a'+i%26))+time.Duration(i).String()), "fp")
	}
	require.Equal(t, AppliedDecisionsMax, m.AppliedDecisions(), "remembered decisions")
}

// A new connection does not inherit interaction routes.
func TestReconnectDropsInteractionRoutes(t *testing.T) {
	r, _ := asked(t, interactionConfig(), permissionReq("perm-1"))
	r.connect()
	r.recv("perm-1", wire.PermissionDecision{DeliveryID: "d1", Approved: true})
	refusedAck(t, r, "perm-1", "d1", wire.AckNotPending)
}

// A repeated native request of a known identity is dropped.
func TestRepeatedNativeRequestIsAskedOnce(t *testing.T) {
	r, turn := asked(t, interactionConfig(), permissionReq("perm-1"))
	r.step(NativeTurnEvent{Turn: turn, Event: permissionReq("perm-1")})
	require.Empty(t, r.out, "asked once")
}

// closeUnderOwnedTurn has run1's executor closed while the Turn is still
// owned: a shutdown settles it unreusable while an input write is
// outstanding.
func closeUnderOwnedTurn(t *testing.T, r *rig) {
	t.Helper()
	r.recv("run1", wire.PromptSteer{InputID: "i1", Input: wire.TextInput("more"), DurableReceipt: true})
	callOf[DurableWrite](r) // the write stays outstanding: the Turn's barrier
	r.step(ShutdownRequested{Reason: "stop"})
	sc, _ := callOf[AwaitSettlement](r)
	r.result(sc, SettleResult{Settled: true, Reusable: false, Reason: "cancelled"})
	cc, _ := callOf[CloseExecutor](r)
	r.result(cc, CloseResult{})
	for _, o := range r.m.Owned() {
		require.Truef(t, o.Kind != "executor", "the executor is closed: %v", r.m.Owned())
	}
	require.Truef(t, slices.ContainsFunc(r.m.Owned(), func(o Resource) bool { return o.Kind == "turn" }), "the Turn is still owned: %v", r.m.Owned())
}

// While a Turn is still owned after its executor closed (a shutdown
// settled it unreusable while an input write is outstanding), its applied
// interaction still answers from its state: a changed decision is a
// decision_conflict, an identical one applied again, never not_pending.
func TestAppliedDecisionAfterTheExecutorClosedStillConflicts(t *testing.T) {
	r, _ := asked(t, interactionConfig(), permissionReq("perm-1"))
	r.recv("perm-1", wire.PermissionDecision{DeliveryID: "d1", Approved: true})
	c, _ := callOf[RespondPermission](r)
	r.result(c, DecisionResult{Outcome: DecisionApplied})
	closeUnderOwnedTurn(t, r)
	r.recv("perm-1", wire.PermissionDecision{DeliveryID: "d2", Approved: false, Message: "changed mind"})
	refusedAck(t, r, "perm-1", "d2", wire.AckDecisionConflict)
	r.recv("perm-1", wire.PermissionDecision{DeliveryID: "d3", Approved: true})
	a := oneIxAck(t, r, "perm-1")
	require.Truef(t, a.Applied && a.DeliveryID == "d3", "an identical repeat is applied again: %+v", a)
}

// The same holds for a function result: once applied, a repeat while the
// Turn is still owned after its executor closed is answered from the
// result's state, never not_pending.
func TestAppliedFunctionResultAfterTheExecutorClosedStillConflicts(t *testing.T) {
	r, _ := asked(t, interactionConfig(), fnCall("call-1"))
	r.recv("run1", fnResult("d1", "call-1"))
	c, _ := callOf[SubmitFunctionResult](r)
	r.result(c, DecisionResult{Outcome: DecisionApplied})
	closeUnderOwnedTurn(t, r)
	changed := fnResult("d2", "call-1")
	changed.Content = []wire.InputContent{wire.TextPart("other")}
	r.recv("run1", changed)
	refusedAck(t, r, "run1", "d2", wire.AckDecisionConflict)
	r.recv("run1", fnResult("d3", "call-1"))
	a := oneIxAck(t, r, "run1")
	require.Truef(t, a.Applied && a.DeliveryID == "d3", "an identical repeat is applied again: %+v", a)
}
