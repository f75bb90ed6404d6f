package wire

import (
	"fmt"
	"strings"
)

// Validate checks permission_request: interaction ID, tool and title.
// (Core drops a request whose request_id is blank; a sender never builds one.)
func (r PermissionRequest) Validate() error {
	switch {
	case strings.TrimSpace(r.RequestID) == "":
		return missing("permission_request.request_id")
	case r.Tool == "":
		return missing("permission_request.tool")
	case r.Title == "":
		return missing("permission_request.title")
	}
	return nil
}

// Validate checks permission_decision: the Runtime refuses a blank delivery ID.
func (d PermissionDecision) Validate() error {
	if strings.TrimSpace(d.DeliveryID) == "" {
		return missing("permission_decision.delivery_id")
	}
	return nil
}

// Validate checks prompt_for_user_choice: an ask ID and at least one
// question; question IDs non-blank and unique; every question has text and
// a non-null options array whose labels are non-empty.
func (p UserChoicePrompt) Validate() error {
	const f = "prompt_for_user_choice"
	if strings.TrimSpace(p.AskID) == "" {
		return missing(f + ".ask_id")
	}
	if len(p.Questions) == 0 {
		return invalid(f+".questions", "no questions")
	}
	for i, q := range p.Questions {
		qf := fmt.Sprintf("%s.questions[%d]", f, i)
		if strings.TrimSpace(q.ID) == "" {
			return missing(qf + ".id")
		}
		for _, o := range p.Questions[:i] {
			if o.ID == q.ID {
				return invalid(qf+".id", "duplicate question id")
			}
		}
		if q.Question == "" {
			return missing(qf + ".question")
		}
		if q.Options == nil {
			return missing(qf + ".options")
		}
		for j, o := range q.Options {
			if o.Label == "" {
				return missing(fmt.Sprintf("%s.options[%d].label", qf, j))
			}
		}
	}
	return nil
}

// Validate checks the context-free rules of prompt_for_user_choice_decision:
// a non-blank delivery ID; cancelled carries no answers; question IDs
// non-blank after trimming and unique (exact comparison); answers non-null
// (an empty array is an explicit non-answer).
func (d UserChoiceDecision) Validate() error {
	const f = "prompt_for_user_choice_decision"
	if strings.TrimSpace(d.DeliveryID) == "" {
		return missing(f + ".delivery_id")
	}
	if d.Cancelled && len(d.QuestionAnswers) > 0 {
		return invalid(f+".question_answers", "a cancelled decision carries no answers")
	}
	for i, a := range d.QuestionAnswers {
		af := fmt.Sprintf("%s.question_answers[%d]", f, i)
		if strings.TrimSpace(a.QuestionID) == "" {
			return missing(af + ".question_id")
		}
		for _, o := range d.QuestionAnswers[:i] {
			if o.QuestionID == a.QuestionID {
				return invalid(af+".question_id", "duplicate question id")
			}
		}
		if a.Answers == nil {
			return missing(af + ".answers")
		}
	}
	return nil
}

// ValidateAgainst checks the decision and binds it to the questions that
// were issued: every question_id must name one of them. Omitted questions
// stay unanswered; order and position never identify an answer.
func (d UserChoiceDecision) ValidateAgainst(questions []UserQuestion) error {
	if err := d.Validate(); err != nil {
		return err
	}
	for i, a := range d.QuestionAnswers {
		known := false
		for _, q := range questions {
			if q.ID == a.QuestionID {
				known = true
				break
			}
		}
		if !known {
			return invalid(fmt.Sprintf("prompt_for_user_choice_decision.question_answers[%d].question_id", i),
				"not an issued question")
		}
	}
	return nil
}

// Answer returns the answers given for questionID. ok is false when the
// question was left unanswered (omitted); an empty non-nil slice is an
// explicit non-answer.
func (d UserChoiceDecision) Answer(questionID string) (answers []string, ok bool) {
	for _, a := range d.QuestionAnswers {
		if a.QuestionID == questionID {
			return a.Answers, true
		}
	}
	return nil, false
}

// Validate checks interaction_decision_ack against the union of its code
// sets: applied carries no code; a refusal carries a known code; only an
// applied ack carries an outcome.
func (a InteractionDecisionAck) Validate() error {
	return a.validateCodes(append(append([]string{}, InteractionAckCodes...), CancelAckCodes...))
}

// ValidateAsDecisionAck checks an ack of a permission or user-choice
// decision or of a function result (interaction codes, no outcome).
func (a InteractionDecisionAck) ValidateAsDecisionAck() error {
	if a.Outcome != nil {
		return invalid("interaction_decision_ack.outcome", "only on cancel receipts")
	}
	return a.validateCodes(InteractionAckCodes)
}

// ValidateAsCancelAck checks a cancel receipt (cancel codes; an applied
// receipt without outcome is valid and recorded by Core as
// cancel_outcome_unavailable).
func (a InteractionDecisionAck) ValidateAsCancelAck() error {
	return a.validateCodes(CancelAckCodes)
}

func (a InteractionDecisionAck) validateCodes(codes []string) error {
	const f = "interaction_decision_ack"
	// A refusal of a request that carried no usable delivery ID may leave
	// it blank (Core matches nothing with it); an applied ack names it.
	if strings.TrimSpace(a.DeliveryID) == "" && (a.Applied || a.ErrorCode == "") {
		return missing(f + ".delivery_id")
	}
	if a.Applied {
		if a.ErrorCode != "" {
			return invalid(f+".error_code", "an applied ack carries no code")
		}
		if a.Outcome != nil {
			return a.Outcome.validateAt(f + ".outcome")
		}
		return nil
	}
	if a.Outcome != nil {
		return invalid(f+".outcome", "only on an applied ack")
	}
	if !oneOf(a.ErrorCode, codes...) {
		return invalid(f+".error_code", "unknown ack code")
	}
	return nil
}

// Validate checks prompt_steer: input_id non-blank and at most
// InputIDBytesMax bytes; input valid. The Runtime answers a failure with
// ack code invalid_input.
func (s PromptSteer) Validate() error {
	switch {
	case strings.TrimSpace(s.InputID) == "":
		return missing("prompt_steer.input_id")
	case len(s.InputID) > InputIDBytesMax:
		return tooLarge("prompt_steer.input_id", len(s.InputID), InputIDBytesMax)
	}
	return s.Input.validateAt("prompt_steer.input")
}

// Steering receipt stages (PromptSteerAck.Stage).
const (
	SteerStageAccepted = "accepted" // native consumption confirmed
	SteerStageWritten  = "written"  // native write completed, not consumption
	SteerStageRefused  = "refused"  // error_code says why
)

// Stage classifies a valid receipt.
func (a PromptSteerAck) Stage() string {
	switch {
	case a.Accepted:
		return SteerStageAccepted
	case a.Written && a.ErrorCode == "":
		return SteerStageWritten
	}
	return SteerStageRefused
}

// Validate checks prompt_steer_ack: accepted carries no code; written
// without a code is the written stage; otherwise a known steering code.
// The input_id may be blank only on an invalid_input refusal.
func (a PromptSteerAck) Validate() error {
	const f = "prompt_steer_ack"
	// A steer that did not decode is refused with invalid_input and may
	// have no usable input_id; every other receipt names its input.
	if strings.TrimSpace(a.InputID) == "" && (a.Accepted || a.ErrorCode != SteerInvalidInput) {
		return missing(f + ".input_id")
	}
	if len(a.InputID) > InputIDBytesMax {
		return tooLarge(f+".input_id", len(a.InputID), InputIDBytesMax)
	}
	if a.Accepted {
		if a.ErrorCode != "" {
			return invalid(f+".error_code", "an accepted receipt carries no code")
		}
		return nil
	}
	if a.ErrorCode == "" {
		if !a.Written {
			return missing(f + ".error_code")
		}
		return nil
	}
	if !oneOf(a.ErrorCode, SteerAckCodes...) {
		return invalid(f+".error_code", "unknown steering code")
	}
	return nil
}
