package core_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

func TestCancelSendsPromptCancelWithDeliveryID(t *testing.T) {
	h := newRig(t)
	_, tid, runID := h.running()
	effs := h.step(core.CancelTurn{Call: "c", Turn: tid})
	pc := one[wire.PromptCancel](t, effs)
	require.Equal(t, runID, pc.ID)
	require.Equal(t, "cancel:"+runID, pc.P.DeliveryID)
	require.True(t, hasEffect(effs, func(s core.SetTimer) bool {
		return s.Timer == core.TimerID("cancel:"+tid) && s.At.Equal(t0.Add(15*time.Second))
	}))
	require.Empty(t, sends[wire.PromptCancel](h.step(core.CancelTurn{Call: "again", Turn: tid})), "idempotent")
}

// TestDoneDoesNotOverrideCancelReceipt: done arrives, the Turn waits for
// the receipt, and the receipt decides.
func TestDoneDoesNotOverrideCancelReceipt(t *testing.T) {
	h := newRig(t)
	_, tid, runID := h.running()
	h.step(core.CancelTurn{Call: "c", Turn: tid})
	h.frame(1, runID, wire.Done{Content: ""})
	require.Equal(t, core.TurnRunning, h.turn(tid).State)
	require.Empty(t, h.frame(1, runID, wire.InteractionDecisionAck{DeliveryID: "cancel:other", Applied: true}), "other delivery ID")
	h.frame(1, runID, wire.InteractionDecisionAck{DeliveryID: "cancel:" + runID, Applied: true,
		Outcome: &wire.Done{Content: "partial", Metadata: &wire.DoneMetadata{AgentSessionID: "native-session"}}})
	v := h.turn(tid)
	require.Equal(t, core.TurnCancelled, v.State)
	require.Equal(t, "partial", v.Content)
}

func TestNoCancelReceiptIsCancelUnconfirmed(t *testing.T) {
	h := newRig(t)
	_, tid, runID := h.running()
	h.step(core.CancelTurn{Call: "c", Turn: tid})
	h.advance(14 * time.Second)
	h.step(core.TimerFired{Timer: core.TimerID("cancel:" + tid)})
	require.Equal(t, core.TurnRunning, h.turn(tid).State, "a timer fired early is ignored")
	h.fire(core.TimerID("cancel:" + tid))
	v := h.turn(tid)
	require.Equal(t, core.TurnFailed, v.State)
	require.Equal(t, core.CodeCancelUnconfirmed, v.ErrorCode)
	h.frame(1, runID, wire.InteractionDecisionAck{DeliveryID: "cancel:" + runID, Applied: true, Outcome: &wire.Done{}})
	require.Equal(t, core.TurnFailed, h.turn(tid).State, "terminal states never change")
}

func TestAppliedCancelWithoutOutcome(t *testing.T) {
	h := newRig(t)
	_, tid, runID := h.running()
	h.step(core.CancelTurn{Call: "c", Turn: tid})
	h.frame(1, runID, wire.InteractionDecisionAck{DeliveryID: "cancel:" + runID, Applied: true})
	require.Equal(t, core.CodeCancelOutcomeUnavailable, h.turn(tid).ErrorCode)
}

func TestRefusedCancelLetsStreamDecide(t *testing.T) {
	for _, doneFirst := range []bool{true, false} {
		h := newRig(t)
		_, tid, runID := h.running()
		h.step(core.CancelTurn{Call: "c", Turn: tid})
		if doneFirst {
			h.frame(1, runID, wire.Done{Content: "all"})
		}
		h.frame(1, runID, wire.InteractionDecisionAck{DeliveryID: "cancel:" + runID, ErrorCode: "run_inactive"})
		if !doneFirst {
			require.Equal(t, core.CancelRefused, h.turn(tid).Cancel)
			h.frame(1, runID, wire.Done{Content: "all"})
		}
		v := h.turn(tid)
		require.Equal(t, core.TurnCompleted, v.State)
		require.Equal(t, "all", v.Content)
	}
}

// TestCancelFailedReceiptIsCancelUnconfirmed: a refused receipt with
// cancel_failed means a native cancel was issued whose settlement is
// unconfirmed; the done that follows settlement must not complete the Turn.
func TestCancelFailedReceiptIsCancelUnconfirmed(t *testing.T) {
	h := newRig(t)
	_, tid, runID := h.running()
	h.step(core.CancelTurn{Call: "c", Turn: tid})
	h.frame(1, runID, wire.InteractionDecisionAck{DeliveryID: "cancel:" + runID, ErrorCode: wire.CancelFailed})
	h.frame(1, runID, wire.Done{Content: "all"})
	v := h.turn(tid)
	require.Equal(t, core.TurnFailed, v.State)
	require.Equal(t, core.CodeCancelUnconfirmed, v.ErrorCode)
}

// TestCancelOwnsTerminalEvenWhenInputUnknown: after cancel, an input whose
// written never came becomes unknown but the receipt decides the Turn.
func TestCancelOwnsTerminalEvenWhenInputUnknown(t *testing.T) {
	h := newRig(t)
	_, tid, runID := h.running()
	h.steer(tid, "a")
	h.advance(20 * time.Second)
	h.step(core.CancelTurn{Call: "c", Turn: tid})
	h.fire(core.TimerID("written:" + tid))
	v := h.turn(tid)
	require.Equal(t, core.InputUnknown, v.Inputs[0].State)
	require.Equal(t, core.TurnRunning, v.State)
	h.frame(1, runID, wire.InteractionDecisionAck{DeliveryID: "cancel:" + runID, Applied: true, Outcome: &wire.Done{}})
	require.Equal(t, core.TurnCancelled, h.turn(tid).State)
}

func TestCancelConnectionLossIsCancelUnconfirmed(t *testing.T) {
	h := newRig(t)
	_, tid, _ := h.running()
	h.step(core.CancelTurn{Call: "c", Turn: tid})
	h.step(core.ConnClosed{Conn: 1})
	require.Equal(t, core.CodeCancelUnconfirmed, h.turn(tid).ErrorCode)
}

func TestCancelRejections(t *testing.T) {
	h := newRig(t)
	_, tid, runID := h.running()
	h.frame(1, runID, wire.Done{})
	w := h.st.Writes()
	require.ErrorIs(t, h.api(core.CancelTurn{Call: "a", Turn: tid}).Err, core.ErrTurnTerminal)
	require.ErrorIs(t, h.api(core.CancelTurn{Call: "b", Turn: "t-404"}).Err, core.ErrUnknownTurn)
	require.Equal(t, w, h.st.Writes())
}
