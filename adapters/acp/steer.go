package acp

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/turnstile-sim/turnstile/adapters/agent"
)

// receipt is the applied receipt of one steered input: applied on the
// profile's proof (ApplyProof) inside the Turn, ErrTurnInactive when the
// agent refused it (no running turn), ErrApplyUnknown when the Turn ended
// without proof.
type receipt = agent.InputReceipt

// SteerDurable sends in through the profile's steering extension. A nil
// error is native acceptance: the request was written and the agent took
// the input into the running turn (claude-agent-acp's injected,
// MiniMax Code's steered, or duplicate for a clientRequestId it already
// took). Acceptance is not application: the receipt stays open while the
// Turn runs, is applied on the profile's proof (onProof) and answers
// ErrApplyUnknown once the Turn ended without it. An agent that
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
	if t.steers[in.InputID] != steerAccepted {
		t.steers[in.InputID] = steerAccepted
		t.accepted = append(t.accepted, in.InputID)
		t.bindLocked()
	}
	t.mu.Unlock()
	return r, nil
}

// onProof takes one proof notification of the running Turn. The first
// replayed user message with the prompt's text is the prompt's (the agent
// takes the prompt before any steer; a prompt a steer pre-empted is never
// replayed); another is bound to the oldest accepted steer with exactly its
// text, and that steer's receipt is applied once the agent also started or
// answered that native message. Nothing else applies a receipt, so a doubt
// leaves it unknown, never applied.
func (t *Turn) onProof(ev ProofEvent) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended {
		return
	}
	switch {
	case ev.Echo != nil && !t.prompted && ev.Echo.Text == t.prompt:
		t.prompted = true
	case ev.Echo != nil:
		t.echoes = append(t.echoes, *ev.Echo)
	}
	for _, id := range ev.Started {
		t.started[id] = true
	}
	t.bindLocked()
}

// bindLocked applies the receipt of every accepted steer whose text a
// started replay carries, oldest first; t.mu is held.
func (t *Turn) bindLocked() {
	echoes := t.echoes[:0]
	for _, m := range t.echoes {
		i := -1
		if t.started[m.ID] {
			i = slices.IndexFunc(t.accepted, func(id string) bool { return t.receipts[id].Text() == m.Text })
		}
		if i < 0 {
			echoes = append(echoes, m)
			continue
		}
		t.receipts[t.accepted[i]].Resolve(nil)
		t.accepted = slices.Delete(t.accepted, i, i+1)
	}
	t.echoes = echoes
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
