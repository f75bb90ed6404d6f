package api

import (
	"net/http"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

// Interaction error codes.
const (
	CodeUnknownInteraction = "unknown_interaction"
	CodeInteractionClosed  = "interaction_closed"
	CodeDecisionInFlight   = "decision_in_flight"
	CodeInvalidAnswer      = "invalid_answer"
)

// UserChoiceAnswer answers (or cancels) a user-choice prompt. Answers
// name their question by ID; an omitted question stays unanswered and an
// empty answers array is an explicit non-answer.
type UserChoiceAnswer struct {
	Answers   []wire.QuestionAnswer `json:"answers,omitempty"`
	Cancelled bool                  `json:"cancelled,omitempty"`
	Reason    string                `json:"reason,omitempty"`
}

// InteractionJSON is one interaction of a Turn with its outcome:
// pending, delivering, applied (its receipt said so), unknown (no receipt
// in time: never applied), refused, withdrawn or expired.
type InteractionJSON struct {
	ID         string `json:"id"`
	Kind       string `json:"kind"`
	Status     string `json:"status"`
	DeliveryID string `json:"delivery_id,omitempty"`
	ErrorCode  string `json:"error_code,omitempty"`
	Attempts   int    `json:"attempts"`
}

func interactionsJSON(vs []core.InteractionView) []InteractionJSON {
	out := []InteractionJSON{}
	for _, v := range vs {
		out = append(out, InteractionJSON{ID: v.ID, Kind: string(v.Kind), Status: string(v.Status),
			DeliveryID: v.DeliveryID, ErrorCode: v.ErrorCode, Attempts: v.Attempts})
	}
	return out
}

func decided(res core.APIResult) (int, any) {
	return http.StatusAccepted, map[string]string{"delivery_id": res.Value.(core.DecisionDelivered).Delivery}
}

func (a *API) answerUserChoice(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(w, r)
	var req UserChoiceAnswer
	if err == nil {
		err = decodeStrict(body, &req)
	}
	if err != nil {
		a.failErr(w, err)
		return
	}
	tid, id := r.PathValue("turn"), r.PathValue("interaction")
	a.post(w, r, body, func(c core.CallID) core.Event {
		return core.AnswerUserChoice{Call: c, Turn: tid, Interaction: id, Answers: req.Answers,
			Cancelled: req.Cancelled, Reason: req.Reason}
	}, decided)
}
