package claude

import (
	"context"
	"errors"
	"fmt"

	"github.com/turnstile-sim/turnstile/adapters/agent"
)

// ErrApplyUnknown reports a written input whose Turn ended without proof
// that the CLI consumed it (no command_lifecycle started, not listed in a
// result) and without the CLI cancelling it: the native outcome is
// unknown, and the input must never be replayed.
var ErrApplyUnknown = errors.New("claude: input outcome unknown")

// receipt is the applied receipt of one steered input. It resolves to
// nil once the input is applied, ErrTurnInactive when it was refused or
// cancelled before it ran, and ErrApplyUnknown when the Turn ended without
// proof either way.
type receipt = agent.InputReceipt

// SteerDurable writes in as a user message carrying a fresh uuid of this
// Turn. A nil error is the written stage (our stdin write completed). The
// receipt is applied on proof inside this Turn: command_lifecycle started
// for that uuid, or the uuid in a result's user_message_uuids.
//
// The CLI folds the message into the running native turn at its next tool
// boundary. With no tool boundary left, it runs the message as the next
// native turn right after the current result; that native turn is still
// this Turn (the Turn settles only once every input it wrote is done or
// cancelled), so its output streams to this Run and the receipt is
// applied when it starts. A cancel interrupts the Turn and cancels queued
// inputs (their receipts answer ErrTurnInactive); an input the Turn ended
// without proof for is ErrApplyUnknown and never replayed.
func (t *Turn) SteerDurable(ctx context.Context, in agent.SteerInput) (agent.AppliedReceipt, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	text, err := in.Input.TextOnly()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", agent.Unsupported(reasonImages), err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t.mu.Lock()
	if r, ok := t.steers()[in.InputID]; ok {
		t.mu.Unlock()
		if r.Text() != text {
			return nil, agent.ErrInputConflict
		}
		return r, nil
	}
	if t.ended || t.cancelReq {
		t.mu.Unlock()
		return nil, fmt.Errorf("%w: turn not accepting input", agent.ErrTurnInactive)
	}
	r := agent.NewInputReceipt(text)
	uuid := newUUID()
	t.byInput[in.InputID] = r
	t.registerLocked(uuid, r)
	t.mu.Unlock()
	if err := t.writeInput(uuid, text); err != nil {
		// The line may have reached the CLI in part: the exit settles it.
		return nil, fmt.Errorf("claude: steer write: %w", err)
	}
	return r, nil
}

// steers returns the receipts by input ID; t.mu is held.
func (t *Turn) steers() map[string]*receipt {
	if t.byInput == nil {
		t.byInput = map[string]*receipt{}
	}
	return t.byInput
}

// appliedLocked resolves the receipt of uuid as applied; t.mu is held.
func (t *Turn) appliedLocked(uuid string) {
	if r := t.receipts[uuid]; r != nil {
		r.Resolve(nil)
	}
}

// Steer writes non-durable input the same way and returns once written.
func (t *Turn) Steer(ctx context.Context, in agent.SteerInput) error {
	_, err := t.SteerDurable(ctx, in)
	return err
}
