package synthetic

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// Extensions selects the qualified extensions of a synthetic Harness.
// Each one off is declared unsupported and refused with a fixed reason,
// with no native effect.
type Extensions struct {
	// Permissions: permission and user-choice responses (both, as the
	// permissions capability governs them together).
	Permissions bool
	// FunctionTools: function results for the function calls a Turn made
	// (text content only: function_result_images stays unsupported).
	FunctionTools bool
}

// capabilities is Capabilities with the Harness's extensions declared.
func (h *Harness) capabilities() wire.AgentKindCapabilities {
	c := Capabilities()
	c.Permissions = wire.CapabilityFromBool(h.ext.Permissions)
	c.FunctionTools = wire.CapabilityFromBool(h.ext.FunctionTools)
	return c
}

// ask is one interaction a Turn emitted and whether it was answered.
type ask struct {
	p        wire.Payload
	id       string
	answered bool
}

func askID(p wire.Payload) string {
	switch p := p.(type) {
	case wire.PermissionRequest:
		return p.RequestID
	case wire.UserChoicePrompt:
		return p.AskID
	case wire.FunctionCall:
		return p.CallID
	}
	return ""
}

// emitAsks emits the scripted interactions and waits until each one is
// answered; false once cancelled.
func (t *Turn) emitAsks() bool {
	for _, p := range t.script.Asks {
		t.mu.Lock()
		t.asks = append(t.asks, &ask{p: p, id: askID(p)})
		t.mu.Unlock()
		if !t.emitPaced(p) {
			return false
		}
	}
	for !t.asksAnswered() {
		select {
		case <-t.cancelCh:
			return false
		case <-t.steerCh:
			if !t.applyPending() {
				return false
			}
		case <-t.answerCh:
		}
	}
	return true
}

func (t *Turn) asksAnswered() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return !slices.ContainsFunc(t.asks, func(a *ask) bool { return !a.answered })
}

// answer consumes the pending interaction id of payload type P after
// check accepts it, records the decision and wakes the native loop.
func answer[P wire.Payload](t *Turn, id string, check func(P) error, decision string) error {
	t.mu.Lock()
	if t.ended {
		t.mu.Unlock()
		return fmt.Errorf("%w: turn ended", agent.ErrTurnInactive)
	}
	i := slices.IndexFunc(t.asks, func(a *ask) bool {
		_, ok := a.p.(P)
		return ok && a.id == id && !a.answered
	})
	if i < 0 {
		t.mu.Unlock()
		return fmt.Errorf("%w: no such pending interaction", agent.ErrNotPending)
	}
	if err := check(t.asks[i].p.(P)); err != nil {
		t.mu.Unlock()
		return fmt.Errorf("%w: %w", agent.ErrInvalidRequest, err)
	}
	t.asks[i].answered = true
	t.mu.Unlock()
	t.e.h.record(func(tr *Truth) { tr.Decisions = append(tr.Decisions, decision) })
	select {
	case t.answerCh <- struct{}{}:
	default:
	}
	return nil
}

// SubmitFunctionResult applies a result to the exact call the Turn made.
func (t *Turn) SubmitFunctionResult(_ context.Context, r wire.FunctionResult) error {
	if !t.e.h.ext.FunctionTools {
		return agent.Unsupported(reasonFunctions)
	}
	if slices.ContainsFunc(r.Content, func(p wire.InputContent) bool { return p.Type == wire.ContentInputImage }) {
		return agent.Unsupported(reasonImages)
	}
	return answer(t, r.CallID, func(wire.FunctionCall) error { return r.Validate() },
		fmt.Sprintf("function:%s:%t", r.CallID, r.Success))
}

// RespondPermission answers the exact permission request the Turn made.
func (t *Turn) RespondPermission(_ context.Context, id string, d wire.PermissionDecision) error {
	if !t.e.h.ext.Permissions {
		return agent.Unsupported(reasonInteractions)
	}
	return answer(t, id, func(wire.PermissionRequest) error { return nil },
		fmt.Sprintf("permission:%s:%t", id, d.Approved))
}

// RespondUserChoice answers the exact prompt the Turn made, binding the
// answers to its question IDs only.
func (t *Turn) RespondUserChoice(_ context.Context, id string, d wire.UserChoiceDecision) error {
	if !t.e.h.ext.Permissions {
		return agent.Unsupported(reasonInteractions)
	}
	got := "cancelled"
	if !d.Cancelled {
		var parts []string
		for _, a := range d.QuestionAnswers {
			parts = append(parts, a.QuestionID+"="+strings.Join(a.Answers, "|"))
		}
		got = strings.Join(parts, ",")
	}
	return answer(t, id, func(p wire.UserChoicePrompt) error { return d.ValidateAgainst(p.Questions) },
		fmt.Sprintf("user_choice:%s:%s", id, got))
}
