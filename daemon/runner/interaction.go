package runner

import (
	"errors"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/daemon"
)

// reasonNoResponder: the Turn object does not implement the extension
// interface at all (the contract requires every Turn to implement each
// one explicitly, if only to refuse).
const reasonNoResponder = "turn does not implement the extension interface"

// decide runs RespondPermission, RespondUserChoice or SubmitFunctionResult
// on the exact Turn the machine routed the decision to.
func (n *Native) decide(op daemon.Op) daemon.Result {
	var id daemon.TurnID
	switch op := op.(type) {
	case daemon.RespondPermission:
		id = op.Turn
	case daemon.RespondUserChoice:
		id = op.Turn
	case daemon.SubmitFunctionResult:
		id = op.Turn
	}
	t := n.turn(id)
	switch {
	case t == nil:
		return daemon.DecisionResult{Outcome: daemon.DecisionNotPending, Err: reasonUnknown}
	case t.broken:
		return daemon.DecisionResult{Outcome: daemon.DecisionNotPending, Err: reasonStartPanic}
	}
	var err error
	switch op := op.(type) {
	case daemon.RespondPermission:
		r, ok := t.turn.(agent.PermissionResponder)
		if !ok {
			return daemon.DecisionResult{Outcome: daemon.DecisionFailed, Err: reasonNoResponder}
		}
		err = r.RespondPermission(n.ctx, op.InteractionID, op.Decision)
	case daemon.RespondUserChoice:
		r, ok := t.turn.(agent.UserChoiceResponder)
		if !ok {
			return daemon.DecisionResult{Outcome: daemon.DecisionFailed, Err: reasonNoResponder}
		}
		err = r.RespondUserChoice(n.ctx, op.InteractionID, op.Decision)
	case daemon.SubmitFunctionResult:
		r, ok := t.turn.(agent.FunctionResultSubmitter)
		if !ok {
			return daemon.DecisionResult{Outcome: daemon.DecisionFailed, Err: reasonNoResponder}
		}
		err = r.SubmitFunctionResult(n.ctx, op.Result)
	}
	return decisionResult(err)
}

// decisionResult classifies an adapter's answer: only a nil error is an
// applied decision.
func decisionResult(err error) daemon.DecisionResult {
	switch {
	case err == nil:
		return daemon.DecisionResult{Outcome: daemon.DecisionApplied}
	case errors.Is(err, agent.ErrUnsupportedOperation):
		return daemon.DecisionResult{Outcome: daemon.DecisionUnsupported, Err: err.Error()}
	case errors.Is(err, agent.ErrNotPending), errors.Is(err, agent.ErrTurnInactive):
		return daemon.DecisionResult{Outcome: daemon.DecisionNotPending, Err: err.Error()}
	}
	return daemon.DecisionResult{Outcome: daemon.DecisionFailed, Err: err.Error()}
}
