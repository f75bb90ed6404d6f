package codex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/turnstile-sim/turnstile/adapters/agent"
)

// ErrApplyUnknown reports a written input whose Turn ended without the
// userMessage echo that applies it: the native outcome is unknown, and the
// input must never be replayed.
var ErrApplyUnknown = errors.New("codex: input outcome unknown")

// receipt is the applied receipt of one steered input. It resolves to
// nil once the input is applied, ErrTurnInactive when it was refused or
// cancelled before it ran, and ErrApplyUnknown when the Turn ended without
// proof either way.
type receipt = agent.InputReceipt

// SteerDurable writes in with turn/steer, its InputID as
// clientUserMessageId and the Turn's native ID as expectedTurnId. A nil
// error is the written stage (our stdin write completed); the receipt
// reports the userMessage echo carrying the same clientId. The steer's
// answer only means queued.
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
	if r, ok := t.receipts[in.InputID]; ok {
		t.mu.Unlock()
		if r.Text() != text {
			return nil, agent.ErrInputConflict
		}
		return r, nil
	}
	if t.ended || t.cancelReq || t.nativeID == "" {
		t.mu.Unlock()
		return nil, fmt.Errorf("%w: turn not accepting input", agent.ErrTurnInactive)
	}
	r := agent.NewInputReceipt(text)
	t.receipts[in.InputID] = r
	native := t.nativeID
	t.mu.Unlock()
	params := turnSteerParams{ThreadID: t.e.threadID, Input: textInput(text), ClientUserMessageID: in.InputID, ExpectedTurnID: native}
	_, err = t.e.rpc.send(methodTurnSteer, params, func(_ json.RawMessage, err error) {
		var refused *rpcError
		if errors.As(err, &refused) {
			t.mu.Lock()
			r.Resolve(fmt.Errorf("%w: turn/steer refused", agent.ErrTurnInactive))
			t.mu.Unlock()
		}
	})
	if err != nil {
		// Nothing reached app-server's stdin in full; the exit settles it.
		return nil, fmt.Errorf("codex: turn/steer write: %w", err)
	}
	return r, nil
}

// applied resolves the receipt whose input ID the echo carries.
func (t *Turn) applied(clientID string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if r, ok := t.receipts[clientID]; ok {
		r.Resolve(nil)
	}
}

// Steer writes non-durable input the same way and returns once written.
func (t *Turn) Steer(ctx context.Context, in agent.SteerInput) error {
	_, err := t.SteerDurable(ctx, in)
	return err
}
