package core_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

func interactionCaps() wire.AgentKindCapabilities {
	c := with(baseCaps(), "permissions", wire.CapabilitySupported)
	return with(c, "function_tools", wire.CapabilitySupported)
}

// runningWith is running() on a device declaring caps.
func (h *rig) runningWith(caps wire.AgentKindCapabilities) (tid, runID string) {
	h.t.Helper()
	h.connect("d1", 1, caps)
	sid := h.session(defaultAgent())
	h.step(core.SubmitTurn{Call: h.nextCall(), Session: sid, Input: wire.TextInput("hello")})
	_, runID = h.startedOn(1, h.last)
	return "t-1", runID
}

func coreChoice(id string) wire.UserChoicePrompt {
	return wire.UserChoicePrompt{AskID: id, Questions: []wire.UserQuestion{
		{ID: "q1", Question: "colour?", Options: []wire.UserOption{{Label: "red"}}},
		{ID: "q2", Question: "size?", Options: []wire.UserOption{{Label: "s"}}},
	}}
}

func interaction(t *testing.T, h *rig, tid, id string) core.InteractionView {
	t.Helper()
	for _, v := range h.turn(tid).Interactions {
		if v.ID == id {
			return v
		}
	}
	require.Fail(t, fmt.Sprintf("turn %s has no interaction %s: %+v", tid, id, h.turn(tid).Interactions))
	return core.InteractionView{}
}

// A permission answer is recorded with a fresh delivery ID, sent on the
// interaction ID, and resolved only by the matching applied receipt.
func TestPermissionAnswerResolvedOnlyByReceipt(t *testing.T) {
	h := newRig(t)
	tid, run := h.runningWith(interactionCaps())
	h.frame(1, run, wire.PermissionRequest{RequestID: "perm-1", Tool: "shell", Title: "ls"})
	require.Equal(t, core.InteractionPending, interaction(t, h, tid, "perm-1").Status, "recorded pending")
	res := h.api(core.AnswerPermission{Call: h.nextCall(), Turn: tid, Interaction: "perm-1", Approved: true})
	require.NoErrorf(t, res.Err, "answer: %+v", res)
	require.NotEqualf(t, "", res.Value.(core.DecisionDelivered).Delivery, "answer: %+v", res)
	s := one[wire.PermissionDecision](t, h.last)
	require.Equal(t, "perm-1", s.ID, "envelope ID")
	require.Equal(t, res.Value.(core.DecisionDelivered).Delivery, s.P.DeliveryID, "delivery ID")
	require.Equal(t, core.InteractionDelivering, interaction(t, h, tid, "perm-1").Status, "awaiting receipt")
	// A receipt for another delivery ID decides nothing.
	h.frame(1, "perm-1", wire.InteractionDecisionAck{DeliveryID: "other", Applied: true})
	require.Equal(t, core.InteractionDelivering, interaction(t, h, tid, "perm-1").Status, "foreign receipt ignored")
	h.frame(1, "perm-1", wire.InteractionDecisionAck{DeliveryID: res.Value.(core.DecisionDelivered).Delivery, Applied: true})
	require.Equal(t, core.InteractionApplied, interaction(t, h, tid, "perm-1").Status, "applied by its receipt")
	again := h.api(core.AnswerPermission{Call: h.nextCall(), Turn: tid, Interaction: "perm-1", Approved: true})
	require.ErrorIsf(t, again.Err, core.ErrInteractionClosed, "answer after applied: %v", again.Err)
}

// No receipt within the wait: unknown, never applied; a fresh attempt
// gets a fresh delivery ID.
func TestDecisionWithoutReceiptIsUnknown(t *testing.T) {
	h := newRig(t)
	tid, run := h.runningWith(interactionCaps())
	h.frame(1, run, wire.FunctionCall{CallID: "call-1", Name: "lookup", Arguments: json.RawMessage(`{}`)})
	first := h.api(core.SubmitFunctionResult{Call: h.nextCall(), Turn: tid, CallID: "call-1", Success: true,
		Content: []wire.InputContent{wire.TextPart("42")}})
	s := one[wire.FunctionResult](t, h.last)
	require.Equal(t, run, s.ID, "function result on the Run ID")
	h.fire(core.TimerID("decision:" + first.Value.(core.DecisionDelivered).Delivery))
	require.True(t, h.now.Sub(t0) >= core.DefaultConfig().DecisionAckTimeout, "waited the ack timeout")
	v := interaction(t, h, tid, "call-1")
	require.Equal(t, core.InteractionUnknown, v.Status, "unknown after the wait")
	// The late receipt resolves nothing.
	h.frame(1, run, wire.InteractionDecisionAck{DeliveryID: first.Value.(core.DecisionDelivered).Delivery, Applied: true})
	require.Equal(t, core.InteractionUnknown, interaction(t, h, tid, "call-1").Status, "late receipt ignored")
	second := h.api(core.SubmitFunctionResult{Call: h.nextCall(), Turn: tid, CallID: "call-1", Success: true,
		Content: []wire.InputContent{wire.TextPart("42")}})
	if second.Err != nil || second.Value.(core.DecisionDelivered).Delivery == first.Value.(core.DecisionDelivered).Delivery {
		require.Fail(t, fmt.Sprintf("retry: %+v (first %s)", second, first.Value.(core.DecisionDelivered).Delivery))
	}
	h.frame(1, run, wire.InteractionDecisionAck{DeliveryID: second.Value.(core.DecisionDelivered).Delivery, Applied: true})
	require.Equal(t, core.InteractionApplied, interaction(t, h, tid, "call-1").Status, "applied by the retry's receipt")
}

func TestBadAnswersAreRefusedBeforeSending(t *testing.T) {
	noPerms := with(interactionCaps(), "permissions", wire.CapabilityUnsupported)
	image := []wire.InputContent{wire.ImagePart("data:image/png;base64,AAAA")}
	cases := []struct {
		name string
		caps wire.AgentKindCapabilities
		ev   func(tid string) core.Event
		want error
	}{
		{"unknown question", interactionCaps(), func(tid string) core.Event {
			return core.AnswerUserChoice{Turn: tid, Interaction: "ask-1", Answers: []wire.QuestionAnswer{{QuestionID: "q9", Answers: []string{"x"}}}}
		}, core.ErrInvalidAnswer},
		{"duplicate question", interactionCaps(), func(tid string) core.Event {
			return core.AnswerUserChoice{Turn: tid, Interaction: "ask-1", Answers: []wire.QuestionAnswer{
				{QuestionID: "q1", Answers: []string{}}, {QuestionID: "q1", Answers: []string{"red"}}}}
		}, core.ErrInvalidAnswer},
		{"cancelled with answers", interactionCaps(), func(tid string) core.Event {
			return core.AnswerUserChoice{Turn: tid, Interaction: "ask-1", Cancelled: true,
				Answers: []wire.QuestionAnswer{{QuestionID: "q1", Answers: []string{"red"}}}}
		}, core.ErrInvalidAnswer},
		{"null answers", interactionCaps(), func(tid string) core.Event {
			return core.AnswerUserChoice{Turn: tid, Interaction: "ask-1", Answers: []wire.QuestionAnswer{{QuestionID: "q1"}}}
		}, core.ErrInvalidAnswer},
		{"unknown interaction", interactionCaps(), func(tid string) core.Event {
			return core.AnswerPermission{Turn: tid, Interaction: "perm-9", Approved: true}
		}, core.ErrUnknownInteraction},
		{"permission answer to a prompt", interactionCaps(), func(tid string) core.Event {
			return core.AnswerPermission{Turn: tid, Interaction: "ask-1", Approved: true}
		}, core.ErrUnknownInteraction},
		{"result for an unknown call", interactionCaps(), func(tid string) core.Event {
			return core.SubmitFunctionResult{Turn: tid, CallID: "call-9", Success: true}
		}, core.ErrUnknownInteraction},
		{"updated input not an object", interactionCaps(), func(tid string) core.Event {
			return core.AnswerPermission{Turn: tid, Interaction: "perm-1", UpdatedInput: json.RawMessage(`[1]`)}
		}, core.ErrInvalidAnswer},
		{"permissions undeclared", noPerms, func(tid string) core.Event {
			return core.AnswerPermission{Turn: tid, Interaction: "perm-1", Approved: true}
		}, core.ErrCapabilityUnsupported},
		{"result image undeclared", interactionCaps(), func(tid string) core.Event {
			return core.SubmitFunctionResult{Turn: tid, CallID: "call-1", Success: true, Content: image}
		}, core.ErrCapabilityUnsupported},
		{"invalid content", interactionCaps(), func(tid string) core.Event {
			return core.SubmitFunctionResult{Turn: tid, CallID: "call-1", Content: []wire.InputContent{{Type: "bogus"}}}
		}, core.ErrInvalidInput},
		{"unknown turn", interactionCaps(), func(string) core.Event {
			return core.AnswerPermission{Turn: "t-9", Interaction: "perm-1"}
		}, core.ErrUnknownTurn},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newRig(t)
			tid, run := h.runningWith(c.caps)
			h.frame(1, run, wire.PermissionRequest{RequestID: "perm-1", Tool: "shell", Title: "ls"})
			h.frame(1, run, coreChoice("ask-1"))
			h.frame(1, run, wire.FunctionCall{CallID: "call-1", Name: "f", Arguments: json.RawMessage(`{}`)})
			before := h.turn(tid)
			res := h.api(c.ev(tid))
			require.ErrorIsf(t, res.Err, c.want, "got %v, want %v", res.Err, c.want)
			for _, e := range h.last {
				if _, ok := e.(core.Send); ok {
					require.Fail(t, fmt.Sprintf("a refused answer sent %s", e.Describe()))
				}
			}
			after := h.turn(tid)
			for i := range before.Interactions {
				require.Equal(t, before.Interactions[i], after.Interactions[i], "interaction unchanged")
			}
		})
	}
}

// A refused receipt is recorded with its code; not_pending closes the
// interaction, other refusals may be answered again.
func TestRefusedReceipts(t *testing.T) {
	h := newRig(t)
	tid, run := h.runningWith(interactionCaps())
	h.frame(1, run, coreChoice("ask-1"))
	r := h.api(core.AnswerUserChoice{Call: h.nextCall(), Turn: tid, Interaction: "ask-1", Cancelled: true})
	h.frame(1, "ask-1", wire.InteractionDecisionAck{DeliveryID: r.Value.(core.DecisionDelivered).Delivery, ErrorCode: wire.AckNotReady})
	v := interaction(t, h, tid, "ask-1")
	require.Equal(t, core.InteractionRefused, v.Status, "refused")
	require.Equal(t, wire.AckNotReady, v.ErrorCode, "code")
	r2 := h.api(core.AnswerUserChoice{Call: h.nextCall(), Turn: tid, Interaction: "ask-1",
		Answers: []wire.QuestionAnswer{{QuestionID: "q2", Answers: []string{"s"}}}})
	require.NoErrorf(t, r2.Err, "answer after not_ready: %v", r2.Err)
	busy := h.api(core.AnswerUserChoice{Call: h.nextCall(), Turn: tid, Interaction: "ask-1", Cancelled: true})
	require.ErrorIsf(t, busy.Err, core.ErrDecisionInFlight, "second answer while delivering: %v", busy.Err)
	h.frame(1, "ask-1", wire.InteractionDecisionAck{DeliveryID: r2.Value.(core.DecisionDelivered).Delivery, ErrorCode: wire.AckNotPending})
	closed := h.api(core.AnswerUserChoice{Call: h.nextCall(), Turn: tid, Interaction: "ask-1", Cancelled: true})
	require.ErrorIsf(t, closed.Err, core.ErrInteractionClosed, "answer after not_pending: %v", closed.Err)
}

// permission_cancel withdraws a pending request; a decision in flight
// keeps waiting for its own receipt.
func TestPermissionCancelWithdraws(t *testing.T) {
	h := newRig(t)
	tid, run := h.runningWith(interactionCaps())
	h.frame(1, run, wire.PermissionRequest{RequestID: "perm-1", Tool: "shell", Title: "ls"})
	h.frame(1, run, wire.PermissionRequest{RequestID: "perm-2", Tool: "shell", Title: "rm"})
	h.frame(1, "perm-1", wire.PermissionCancel{})
	require.Equal(t, core.InteractionWithdrawn, interaction(t, h, tid, "perm-1").Status, "withdrawn")
	res := h.api(core.AnswerPermission{Call: h.nextCall(), Turn: tid, Interaction: "perm-1", Approved: true})
	require.ErrorIsf(t, res.Err, core.ErrInteractionClosed, "answer to a withdrawn request: %v", res.Err)
	r := h.api(core.AnswerPermission{Call: h.nextCall(), Turn: tid, Interaction: "perm-2", Approved: false})
	h.frame(1, "perm-2", wire.PermissionCancel{})
	require.Equal(t, core.InteractionDelivering, interaction(t, h, tid, "perm-2").Status, "the receipt decides")
	h.frame(1, "perm-2", wire.InteractionDecisionAck{DeliveryID: r.Value.(core.DecisionDelivered).Delivery, Applied: true})
	require.Equal(t, core.InteractionApplied, interaction(t, h, tid, "perm-2").Status, "applied by its receipt")
}

// The Turn ending (connection lost) makes a waiting decision unknown and
// an unanswered interaction expired; nothing resolves without a receipt.
func TestTurnEndClosesInteractions(t *testing.T) {
	h := newRig(t)
	tid, run := h.runningWith(interactionCaps())
	h.frame(1, run, wire.PermissionRequest{RequestID: "perm-1", Tool: "shell", Title: "ls"})
	h.frame(1, run, wire.PermissionRequest{RequestID: "perm-2", Tool: "shell", Title: "rm"})
	h.api(core.AnswerPermission{Call: h.nextCall(), Turn: tid, Interaction: "perm-1", Approved: true})
	h.step(core.ConnClosed{Conn: 1, Reason: "gone"})
	require.Equal(t, core.InteractionUnknown, interaction(t, h, tid, "perm-1").Status, "in flight becomes unknown")
	require.Equal(t, core.InteractionExpired, interaction(t, h, tid, "perm-2").Status, "unanswered expires")
	st := h.st.Turns()
	require.Equal(t, core.InteractionUnknown, st[0].Interactions[0].Status, "durable")
}

// A decision in flight across a Core restart is unknown afterwards.
func TestRestartLeavesDecisionUnknown(t *testing.T) {
	h := newRig(t)
	tid, run := h.runningWith(interactionCaps())
	h.frame(1, run, wire.FunctionCall{CallID: "call-1", Name: "f", Arguments: json.RawMessage(`{}`)})
	h.api(core.SubmitFunctionResult{Call: h.nextCall(), Turn: tid, CallID: "call-1", Success: true})
	m := core.Restart(testConfig(), h.st)
	v, _ := m.Turn(tid)
	require.Equal(t, core.InteractionUnknown, v.Interactions[0].Status, "unknown after restart")
}

// Requests of a Run are recorded once; a repeated identity is ignored and
// invalid requests are not recorded.
func TestAskedRecordedOnce(t *testing.T) {
	h := newRig(t)
	tid, run := h.runningWith(interactionCaps())
	h.frame(1, run, wire.PermissionRequest{RequestID: "perm-1", Tool: "shell", Title: "ls"})
	h.frame(1, run, wire.PermissionRequest{RequestID: "perm-1", Tool: "shell", Title: "ls"})
	h.frame(1, run, wire.PermissionRequest{RequestID: " ", Tool: "shell", Title: "ls"})
	h.frame(1, "run-other", wire.PermissionRequest{RequestID: "perm-2", Tool: "shell", Title: "ls"})
	require.Len(t, h.turn(tid).Interactions, 1, "recorded once")
}
