package daemon

import (
	"fmt"

	"github.com/turnstile-sim/turnstile/wire"
)

// RespondPermission answers the permission request InteractionID that
// Turn emitted (agent.PermissionResponder). Result: DecisionResult.
type RespondPermission struct {
	Turn          TurnID
	InteractionID string
	Decision      wire.PermissionDecision
}

// RespondUserChoice answers (or cancels) the user-choice prompt
// InteractionID that Turn emitted (agent.UserChoiceResponder); the
// decision's answers are bound to the prompt's question IDs. Result:
// DecisionResult.
type RespondUserChoice struct {
	Turn          TurnID
	InteractionID string
	Decision      wire.UserChoiceDecision
}

// SubmitFunctionResult applies a function result to the native call of
// Turn it names (agent.FunctionResultSubmitter). Result: DecisionResult.
type SubmitFunctionResult struct {
	Turn   TurnID
	Result wire.FunctionResult
}

func (RespondPermission) isOp()    {}
func (RespondUserChoice) isOp()    {}
func (SubmitFunctionResult) isOp() {}

func (o RespondPermission) Describe() string {
	return fmt.Sprintf("respond-permission turn=%s interaction=%s approved=%t", o.Turn, o.InteractionID, o.Decision.Approved)
}
func (o RespondUserChoice) Describe() string {
	return fmt.Sprintf("respond-user-choice turn=%s interaction=%s cancelled=%t answers=%d",
		o.Turn, o.InteractionID, o.Decision.Cancelled, len(o.Decision.QuestionAnswers))
}
func (o SubmitFunctionResult) Describe() string {
	return fmt.Sprintf("submit-function-result turn=%s call=%s success=%t parts=%d",
		o.Turn, o.Result.CallID, o.Result.Success, len(o.Result.Content))
}

// DecisionOutcome classifies what the native side said about a decision
// or function result.
type DecisionOutcome uint8

const (
	// DecisionApplied: the native side confirmed the decision settled.
	DecisionApplied DecisionOutcome = iota + 1
	// DecisionUnsupported: the adapter answered ErrUnsupportedOperation.
	DecisionUnsupported
	// DecisionNotPending: the native side no longer knows the interaction
	// or call (ErrNotPending, or the Turn became inactive).
	DecisionNotPending
	// DecisionFailed: any other failure; nothing is proven applied.
	DecisionFailed
)

var decisionOutcomeNames = [...]string{"invalid", "applied", "unsupported", "not_pending", "failed"}

func (o DecisionOutcome) String() string {
	if int(o) < len(decisionOutcomeNames) {
		return decisionOutcomeNames[o]
	}
	return "invalid"
}

// DecisionResult reports RespondPermission, RespondUserChoice or
// SubmitFunctionResult.
type DecisionResult struct {
	Outcome DecisionOutcome
	Err     string
}

func (DecisionResult) isResult() {}

func (r DecisionResult) Describe() string {
	return fmt.Sprintf("decision outcome=%s err=%q", r.Outcome, r.Err)
}

// NativePermissionWithdrawn reports that Turn withdrew its permission
// request InteractionID (permission_cancel). The withdrawal is forwarded
// with the interaction ID as the envelope ID.
type NativePermissionWithdrawn struct {
	Turn          TurnID
	InteractionID string
}

func (NativePermissionWithdrawn) isEvent() {}

func (e NativePermissionWithdrawn) Describe() string {
	return fmt.Sprintf("native-permission-withdrawn %s interaction=%q", e.Turn, e.InteractionID)
}
