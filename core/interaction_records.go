package core

import (
	"errors"
	"fmt"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// InteractionKind names what a Runtime asked of Core during a Turn.
type InteractionKind string

const (
	InteractionPermission InteractionKind = "permission"    // permission_request
	InteractionUserChoice InteractionKind = "user_choice"   // prompt_for_user_choice
	InteractionFunction   InteractionKind = "function_call" // function_call
)

// InteractionStatus is an interaction's durable state.
type InteractionStatus string

const (
	// InteractionPending: asked; no decision has been sent, or the last
	// one was refused or its outcome is unknown (it may be answered again).
	InteractionPending InteractionStatus = "pending"
	// InteractionDelivering: a decision was sent; its receipt is awaited
	// for DecisionAckTimeout.
	InteractionDelivering InteractionStatus = "delivering"
	// InteractionApplied: an interaction_decision_ack with applied=true
	// matched the decision's delivery ID. Nothing else resolves it.
	InteractionApplied InteractionStatus = "applied"
	// InteractionUnknown: no receipt within the wait, or the connection
	// (or Core) was lost meanwhile. The decision may or may not have been
	// applied; it is never taken for applied.
	InteractionUnknown InteractionStatus = "unknown"
	// InteractionRefused: the receipt said applied=false (ErrorCode says
	// why). Refusals other than not_pending may be answered again.
	InteractionRefused InteractionStatus = "refused"
	// InteractionWithdrawn: the Runtime withdrew the permission request
	// (permission_cancel) before a decision was applied.
	InteractionWithdrawn InteractionStatus = "withdrawn"
	// InteractionExpired: the Turn ended with the interaction unanswered.
	InteractionExpired InteractionStatus = "expired"
)

// interactionsPerTurnMax bounds the interactions Core records per Turn;
// further requests of the Turn are not recorded.
const interactionsPerTurnMax = 256

// InteractionRecord is one permission request, user-choice prompt or
// function call of a Turn's Run, with the latest decision sent for it.
type InteractionRecord struct {
	ID    string // interaction ID, or the function call ID
	Kind  InteractionKind
	RunID string

	// Permission request.
	Tool, Title, Detail string
	Payload             []byte `json:",omitempty"` // raw JSON object
	// User-choice prompt.
	Questions []wire.UserQuestion `json:",omitempty"`
	// Function call.
	Name      string
	Arguments []byte `json:",omitempty"` // raw JSON object

	Status     InteractionStatus
	Attempts   int       // decisions sent
	DeliveryID string    // the latest decision's delivery ID
	Deadline   time.Time // the latest decision's receipt deadline
	ErrorCode  string    // refused: the receipt's code
	// Decision sent last (one of the three, by Kind).
	Permission *wire.PermissionDecision `json:",omitempty"`
	Choice     *wire.UserChoiceDecision `json:",omitempty"`
	Result     *wire.FunctionResult     `json:",omitempty"`
}

// InteractionView is the public projection of one interaction.
type InteractionView struct {
	ID         string
	Kind       InteractionKind
	Status     InteractionStatus
	DeliveryID string
	ErrorCode  string
	Attempts   int
}

func interactionViews(recs []InteractionRecord) []InteractionView {
	var out []InteractionView
	for _, r := range recs {
		out = append(out, InteractionView{ID: r.ID, Kind: r.Kind, Status: r.Status,
			DeliveryID: r.DeliveryID, ErrorCode: r.ErrorCode, Attempts: r.Attempts})
	}
	return out
}

// Named errors of the interaction API. A call refused with one of them
// sent nothing and changed no durable state.
var (
	ErrUnknownInteraction = errors.New("core: no such interaction on the turn's run")
	ErrInteractionClosed  = errors.New("core: interaction can no longer be answered")
	ErrDecisionInFlight   = errors.New("core: a decision for this interaction awaits its receipt")
	ErrInvalidAnswer      = errors.New("core: answer does not bind to the interaction")
)

// AnswerPermission answers a pending permission request of a Turn.
// Result: DecisionDelivered; the receipt decides later (TurnView).
type AnswerPermission struct {
	Call         CallID
	Turn         string
	Interaction  string
	Approved     bool
	Message      string
	UpdatedInput []byte // raw JSON object; nil for none
}

// AnswerUserChoice answers (or, with Cancelled, cancels) a pending
// user-choice prompt. Answers bind to the prompt's question IDs only.
type AnswerUserChoice struct {
	Call        CallID
	Turn        string
	Interaction string
	Answers     []wire.QuestionAnswer
	Cancelled   bool
	Reason      string
}

// SubmitFunctionResult submits the result of a pending function call.
type SubmitFunctionResult struct {
	Call    CallID
	Turn    string
	CallID  string
	Success bool
	Content []wire.InputContent
}

// interactionAPI marks the interaction API events.
type interactionAPI interface {
	Event
	isInteractionAPI()
}

func (AnswerPermission) isEvent()              {}
func (AnswerUserChoice) isEvent()              {}
func (SubmitFunctionResult) isEvent()          {}
func (AnswerPermission) isInteractionAPI()     {}
func (AnswerUserChoice) isInteractionAPI()     {}
func (SubmitFunctionResult) isInteractionAPI() {}

func (e AnswerPermission) Describe() string {
	return fmt.Sprintf("api answer-permission call=%s turn=%s interaction=%s approved=%t", e.Call, e.Turn, e.Interaction, e.Approved)
}
func (e AnswerUserChoice) Describe() string {
	return fmt.Sprintf("api answer-user-choice call=%s turn=%s interaction=%s answers=%d cancelled=%t",
		e.Call, e.Turn, e.Interaction, len(e.Answers), e.Cancelled)
}
func (e SubmitFunctionResult) Describe() string {
	return fmt.Sprintf("api submit-function-result call=%s turn=%s call_id=%s success=%t parts=%d",
		e.Call, e.Turn, e.CallID, e.Success, len(e.Content))
}
