package wire

import (
	"errors"
	"strings"
	"testing"
)

func TestValidateInteractions(t *testing.T) {
	done := sampleDone()
	runValidatorCases(t, []validatorCase{
		{"permission request", PermissionRequest{RequestID: "p", Tool: "t", Title: "x"}, nil, "", ""},
		{"permission blank id", PermissionRequest{RequestID: " ", Tool: "t", Title: "x"}, ErrMissingField, "permission_request.request_id", ""},
		{"permission no title", PermissionRequest{RequestID: "p", Tool: "t"}, ErrMissingField, "permission_request.title", ""},
		{"decision no delivery", PermissionDecision{Approved: true}, ErrMissingField, "permission_decision.delivery_id", ""},
		{"prompt no questions", UserChoicePrompt{AskID: "a"}, ErrInvalid, "questions", ""},
		{"prompt duplicate question", UserChoicePrompt{AskID: "a", Questions: []UserQuestion{
			{ID: "q", Question: "?", Options: []UserOption{}}, {ID: "q", Question: "?", Options: []UserOption{}}}}, ErrInvalid, "questions[1].id", ""},
		{"prompt blank label", UserChoicePrompt{AskID: "a", Questions: []UserQuestion{
			{ID: "q", Question: "?", Options: []UserOption{{}}}}}, ErrMissingField, "questions[0].options[0].label", ""},
		{"choice cancelled", UserChoiceDecision{DeliveryID: "d", Cancelled: true, Reason: "user"}, nil, "", ""},
		{"choice cancelled with answers", UserChoiceDecision{DeliveryID: "d", Cancelled: true,
			QuestionAnswers: []QuestionAnswer{{QuestionID: "q", Answers: []string{}}}}, ErrInvalid, "question_answers", ""},
		{"choice blank question", UserChoiceDecision{DeliveryID: "d",
			QuestionAnswers: []QuestionAnswer{{QuestionID: " \t", Answers: []string{}}}}, ErrMissingField, "question_answers[0].question_id", ""},
		{"choice duplicate", UserChoiceDecision{DeliveryID: "d", QuestionAnswers: []QuestionAnswer{
			{QuestionID: "q", Answers: []string{}}, {QuestionID: "q", Answers: []string{"a"}}}}, ErrInvalid, "question_answers[1].question_id", ""},
		{"choice near duplicate is distinct", UserChoiceDecision{DeliveryID: "d", QuestionAnswers: []QuestionAnswer{
			{QuestionID: "q", Answers: []string{}}, {QuestionID: "q ", Answers: []string{}}}}, nil, "", ""},
		{"choice nil answers", UserChoiceDecision{DeliveryID: "d", QuestionAnswers: []QuestionAnswer{{QuestionID: "q"}}}, ErrMissingField, "question_answers[0].answers", ""},
		{"choice no delivery", UserChoiceDecision{}, ErrMissingField, "delivery_id", ""},
		{"ack applied", InteractionDecisionAck{DeliveryID: "d", Applied: true, Outcome: &done}, nil, "", ""},
		{"ack applied with code", InteractionDecisionAck{DeliveryID: "d", Applied: true, ErrorCode: AckNotPending}, ErrInvalid, "error_code", ""},
		{"ack refused", InteractionDecisionAck{DeliveryID: "d", ErrorCode: CancelFailed}, nil, "", ""},
		{"ack refused unknown code", InteractionDecisionAck{DeliveryID: "d", ErrorCode: "nope"}, ErrInvalid, "error_code", ""},
		{"ack refused with outcome", InteractionDecisionAck{DeliveryID: "d", ErrorCode: AckNotReady, Outcome: &done}, ErrInvalid, "outcome", ""},
		{"ack no delivery", InteractionDecisionAck{Applied: true}, ErrMissingField, "delivery_id", ""},
		{"steer", PromptSteer{InputID: "1", Input: TextInput("x")}, nil, "", ""},
		{"steer blank id", PromptSteer{InputID: " ", Input: TextInput("x")}, ErrMissingField, "prompt_steer.input_id", ""},
		{"steer long id", PromptSteer{InputID: strings.Repeat("1", InputIDBytesMax+1), Input: TextInput("x")}, ErrTooLarge, "prompt_steer.input_id", ""},
		{"steer bad input", PromptSteer{InputID: "1"}, ErrInvalid, "prompt_steer.input", ""},
		{"steer ack accepted", PromptSteerAck{InputID: "1", Accepted: true, Written: true}, nil, "", ""},
		{"steer ack accepted with code", PromptSteerAck{InputID: "1", Accepted: true, ErrorCode: SteerBusy}, ErrInvalid, "error_code", ""},
		{"steer ack written", PromptSteerAck{InputID: "1", Written: true}, nil, "", ""},
		{"steer ack refused", PromptSteerAck{InputID: "1", ErrorCode: SteerBusy}, nil, "", ""},
		{"steer ack nothing", PromptSteerAck{InputID: "1"}, ErrMissingField, "prompt_steer_ack.error_code", ""},
		{"steer ack unknown code", PromptSteerAck{InputID: "1", ErrorCode: "later"}, ErrInvalid, "error_code", ""},
		{"steer ack undecodable input", PromptSteerAck{ErrorCode: SteerInvalidInput}, nil, "", ""},
		{"steer ack blank id", PromptSteerAck{ErrorCode: SteerBusy}, ErrMissingField, "prompt_steer_ack.input_id", ""},
		{"ack refusal without delivery", InteractionDecisionAck{ErrorCode: AckInvalidResult}, nil, "", ""},
		{"function call no args", FunctionCall{CallID: "c", Name: "n"}, ErrMissingField, "function_call.arguments", ""},
		{"function result empty content", FunctionResult{DeliveryID: "d", CallID: "c", Content: []InputContent{}}, nil, "", ""},
		{"function result empty text", FunctionResult{DeliveryID: "d", CallID: "c", Content: []InputContent{TextPart("")}}, nil, "", ""},
		{"function result bad part", FunctionResult{DeliveryID: "d", CallID: "c", Content: []InputContent{{Type: "x"}}}, ErrInvalid, "function_result.content[0].type", ""},
		{"function result no call", FunctionResult{DeliveryID: "d", Content: []InputContent{}}, ErrMissingField, "function_result.call_id", ""},
	})
	for _, st := range []struct {
		want string
		ack  PromptSteerAck
	}{{SteerStageAccepted, PromptSteerAck{Accepted: true}}, {SteerStageWritten, PromptSteerAck{Written: true}},
		{SteerStageRefused, PromptSteerAck{ErrorCode: SteerBusy}}} {
		if st.ack.Stage() != st.want {
			t.Errorf("stage of %+v = %s", st.ack, st.ack.Stage())
		}
	}
	if len(SteerAckCodes) != 11 || len(InteractionAckCodes) != 7 || len(CancelAckCodes) != 3 {
		t.Error("code set sizes")
	}
	cancelAck := InteractionDecisionAck{DeliveryID: "d", ErrorCode: AckInvalidResult}
	if cancelAck.ValidateAsCancelAck() == nil || cancelAck.ValidateAsDecisionAck() != nil {
		t.Error("ack code families")
	}
	if (InteractionDecisionAck{DeliveryID: "d", Applied: true, Outcome: &done}).ValidateAsDecisionAck() == nil {
		t.Error("decision ack with outcome accepted")
	}
}

func TestUserChoiceValidateAgainst(t *testing.T) {
	questions := []UserQuestion{{ID: "q1"}, {ID: "q2"}}
	d := UserChoiceDecision{DeliveryID: "d", QuestionAnswers: []QuestionAnswer{{QuestionID: "q2", Answers: []string{}}}}
	if err := d.ValidateAgainst(questions); err != nil {
		t.Fatal(err)
	}
	if a, ok := d.Answer("q2"); !ok || a == nil || len(a) != 0 {
		t.Error("explicit non-answer lost")
	}
	if _, ok := d.Answer("q1"); ok {
		t.Error("omitted question answered")
	}
	d.QuestionAnswers = append(d.QuestionAnswers, QuestionAnswer{QuestionID: "q3", Answers: []string{"x"}})
	err := d.ValidateAgainst(questions)
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "question_answers[1].question_id") || strings.Contains(err.Error(), "q3") {
		t.Fatalf("got %v", err)
	}
	if err := (UserChoiceDecision{DeliveryID: "d", Cancelled: true}).ValidateAgainst(nil); err != nil {
		t.Fatal(err)
	}
}
