package acp

import (
	"context"
	"errors"
	"fmt"

	"github.com/turnstile-sim/turnstile/adapters/agent"
)

// receipt is the applied receipt of one steered input: ErrTurnInactive
// when the agent refused it (no running turn), ErrApplyUnknown once the
// Turn ended (ACP never proves that the model consumed it); it is never
// applied.
type receipt = agent.InputReceipt

// SteerDurable sends in through the profile's steering extension. A nil
// error is native acceptance: the request was written and the agent took
// the input into the running turn (claude-agent-acp's injected,
// MiniMax Code's steered, or duplicate for a clientRequestId it already
// took). Acceptance is not application: the receipt stays open while the
// Turn runs and answers ErrApplyUnknown once it ended. An agent that
// refuses (no running turn) answers ErrTurnInactive and the receipt says
// so; a request whose answer did not come within ctx keeps its identity:
// a retry with the same input ID sends it again with the same idempotency
// key (MiniMax Code answers duplicate).
func (t *Turn) SteerDurable(ctx context.Context, in agent.SteerInput) (agent.AppliedReceipt, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	ext := t.e.h.opts.Profile.Steer
	if ext == nil || !t.e.caps.Steering.IsSupported() {
		return nil, agent.Unsupported(reasonSteer)
	}
	text, err := in.Input.TextOnly()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", agent.Unsupported(reasonImages), err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t.mu.Lock()
	r, known := t.receipts[in.InputID]
	switch {
	case known && r.Text() != text:
		t.mu.Unlock()
		return nil, agent.ErrInputConflict
	case known && t.steers[in.InputID] == steerAccepted:
		t.mu.Unlock()
		return r, nil
	case known && t.steers[in.InputID] == steerRefused:
		t.mu.Unlock()
		return nil, fmt.Errorf("%w: the agent refused this input", agent.ErrTurnInactive)
	case t.ended || t.cancelReq:
		t.mu.Unlock()
		return nil, fmt.Errorf("%w: turn not accepting input", agent.ErrTurnInactive)
	case !known:
		r = agent.NewInputReceipt(text)
		t.receipts[in.InputID] = r
		t.steers[in.InputID] = steerSent
	}
	t.mu.Unlock()
	var raw []byte
	cl, err := t.e.rpc.send(ext.Method, ext.Params(t.e.session, in.InputID, text), nil)
	if err == nil {
		err = cl.wait(ctx, nil)
		raw = cl.result
	}
	var rpcErr *rpcError
	switch {
	case errors.As(err, &rpcErr):
		return nil, t.refused(in.InputID, "the agent refused the steer")
	case err != nil:
		// Not answered (written in part, or the caller stopped waiting):
		// the outcome stays open, to settle with the Turn.
		return nil, fmt.Errorf("acp: steer outcome unknown: %w", err)
	}
	outcome, err := ext.Outcome(raw)
	if err != nil {
		return nil, err
	}
	if outcome == SteerRefused {
		return nil, t.refused(in.InputID, "no running turn took the steer")
	}
	t.mu.Lock()
	t.steers[in.InputID] = steerAccepted
	t.mu.Unlock()
	return r, nil
}

// Steer states of an input ID.
const (
	steerSent     = iota + 1 // written, not answered
	steerAccepted            // the agent took it
	steerRefused             // the agent took nothing
)

// refused settles the receipt of id inactive: the agent took nothing.
func (t *Turn) refused(id, why string) error {
	err := fmt.Errorf("%w: %s", agent.ErrTurnInactive, why)
	t.mu.Lock()
	t.steers[id] = steerRefused
	t.receipts[id].Resolve(err)
	t.mu.Unlock()
	return err
}

// Steer sends non-durable input the same way and returns on acceptance.
func (t *Turn) Steer(ctx context.Context, in agent.SteerInput) error {
	_, err := t.SteerDurable(ctx, in)
	return err
}
