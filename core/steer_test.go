package core_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

func (h *rig) steer(tid, text string) core.APIResult {
	h.t.Helper()
	return h.api(core.SteerInput{Call: h.nextCall(), Turn: tid, Input: wire.TextInput(text)})
}

func TestSteeringOneInputAtATimeCursorOnAccepted(t *testing.T) {
	h := newRig(t)
	_, tid, runID := h.running()
	r := h.steer(tid, "a")
	require.Equal(t, "1", r.Value.(core.InputSteered).Input)
	ps := one[wire.PromptSteer](t, h.last)
	require.Equal(t, runID, ps.ID)
	require.Equal(t, wire.PromptSteer{InputID: "1", Input: wire.TextInput("a"), DurableReceipt: true}, ps.P)
	require.Equal(t, "2", h.steer(tid, "b").Value.(core.InputSteered).Input)
	require.Empty(t, sends[wire.PromptSteer](h.last), "second input waits for the first's receipt")

	effs := h.frame(1, runID, wire.PromptSteerAck{InputID: "1", Written: true})
	require.Empty(t, sends[wire.PromptSteer](effs), "written is not a receipt to move on")
	require.Equal(t, 0, h.turn(tid).InputCursor, "written never advances the cursor")
	require.Equal(t, core.InputWritten, h.turn(tid).Inputs[0].State)

	effs = h.frame(1, runID, wire.PromptSteerAck{InputID: "1", Accepted: true})
	require.Equal(t, 1, h.turn(tid).InputCursor)
	require.Equal(t, "2", one[wire.PromptSteer](t, effs).P.InputID)

	require.Empty(t, h.frame(1, runID, wire.PromptSteerAck{InputID: "1", Accepted: true}), "receipt for a non-pending input ignored")
	require.Equal(t, 1, h.turn(tid).InputCursor)
}

func TestSteerQueuedBeforeStartDeliveredAfterStarted(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	sid := h.session(defaultAgent())
	tid := h.submit(sid, "x")
	prep := one[wire.ExecutionPrepare](t, h.last)
	require.NoError(t, h.steer(tid, "early").Err)
	require.Empty(t, sends[wire.PromptSteer](h.last))
	h.frame(1, prep.ID, status(wire.StateReady, 1))
	require.Empty(t, sends[wire.PromptSteer](h.last), "not while starting")
	effs := h.frame(1, prep.ID, status(wire.StateStarted, 2))
	require.Equal(t, "1", one[wire.PromptSteer](t, effs).P.InputID)
}

func TestWrittenTimeoutMakesInputUnknownNeverRedelivered(t *testing.T) {
	h := newRig(t)
	_, tid, runID := h.running()
	h.steer(tid, "a")
	h.steer(tid, "b")
	effs := h.fire(core.TimerID("written:" + tid))
	require.Equal(t, t0.Add(30*time.Second), h.now)
	require.Empty(t, sends[wire.PromptSteer](effs))
	v := h.turn(tid)
	require.Equal(t, core.InputUnknown, v.Inputs[0].State)
	require.Equal(t, core.InputNotDelivered, v.Inputs[1].State)
	require.Equal(t, 0, v.InputCursor)
	require.Equal(t, core.TurnFailed, v.State)
	require.Equal(t, core.CodeInputOutcomeUnknown, v.ErrorCode)
	require.Empty(t, h.frame(1, runID, wire.PromptSteerAck{InputID: "1", Accepted: true}))
}

func TestWrittenInTimeStopsTheTimer(t *testing.T) {
	h := newRig(t)
	_, tid, runID := h.running()
	h.steer(tid, "a")
	h.advance(29 * time.Second)
	effs := h.frame(1, runID, wire.PromptSteerAck{InputID: "1", Written: true})
	require.True(t, hasEffect(effs, func(c core.CancelTimer) bool { return c.Timer == core.TimerID("written:"+tid) }))
	h.advance(10 * time.Second)
	h.step(core.TimerFired{Timer: core.TimerID("written:" + tid)})
	require.Equal(t, core.TurnRunning, h.turn(tid).State)
}

func TestNotReadyOffersSameInputAgain(t *testing.T) {
	for _, code := range []string{"not_ready", "busy"} {
		h := newRig(t)
		_, tid, runID := h.running()
		h.steer(tid, "a")
		effs := h.frame(1, runID, wire.PromptSteerAck{InputID: "1", ErrorCode: code})
		require.Empty(t, sends[wire.PromptSteer](effs))
		again := one[wire.PromptSteer](t, h.fire(core.TimerID("steer-retry:"+tid)))
		require.Equal(t, "1", again.P.InputID)
		require.Equal(t, 0, h.turn(tid).InputCursor)
	}
}

func TestInFlightKeepsWaiting(t *testing.T) {
	h := newRig(t)
	_, tid, runID := h.running()
	h.steer(tid, "a")
	require.Empty(t, h.frame(1, runID, wire.PromptSteerAck{InputID: "1", ErrorCode: "in_flight"}))
	require.Equal(t, core.InputDelivering, h.turn(tid).Inputs[0].State)
}

func TestOtherSteerCodeFailsTurn(t *testing.T) {
	h := newRig(t)
	_, tid, runID := h.running()
	h.steer(tid, "a")
	h.frame(1, runID, wire.PromptSteerAck{InputID: "1", ErrorCode: "input_conflict"})
	v := h.turn(tid)
	require.Equal(t, core.TurnFailed, v.State)
	require.Equal(t, "input_input_conflict", v.ErrorCode)
	require.Equal(t, core.InputFailed, v.Inputs[0].State)
	require.Equal(t, 0, v.InputCursor)
}

func TestConnectionLossNeverAdvancesCursor(t *testing.T) {
	h := newRig(t)
	_, tid, runID := h.running()
	h.steer(tid, "a")
	h.frame(1, runID, wire.PromptSteerAck{InputID: "1", Written: true})
	h.steer(tid, "b")
	h.step(core.ConnClosed{Conn: 1})
	v := h.turn(tid)
	require.Equal(t, 0, v.InputCursor)
	require.Equal(t, core.InputWritten, v.Inputs[0].State)
	require.Equal(t, core.InputNotDelivered, v.Inputs[1].State)
}

func TestSteerRejections(t *testing.T) {
	h := newRigCfg(t, core.Config{SteerInputsPerRunMax: 1})
	_, tid, runID := h.running()
	w := h.st.Writes()
	require.ErrorIs(t, h.steer("t-404", "x").Err, core.ErrUnknownTurn)
	require.ErrorIs(t, h.api(core.SteerInput{Call: "c", Turn: tid, Input: wire.MessageInput{}}).Err, core.ErrInvalidInput)
	img := wire.MessageInput{{Content: []wire.InputContent{wire.ImagePart("data:image/png;base64,AA")}}}
	require.ErrorIs(t, h.api(core.SteerInput{Call: "c", Turn: tid, Input: img}).Err, core.ErrCapabilityUnsupported)
	require.Equal(t, w, h.st.Writes())
	require.NoError(t, h.steer(tid, "a").Err)
	w = h.st.Writes()
	require.ErrorIs(t, h.steer(tid, "b").Err, core.ErrInputLimit)
	h.step(core.CancelTurn{Call: "c", Turn: tid})
	w = h.st.Writes()
	require.ErrorIs(t, h.steer(tid, "b").Err, core.ErrCancelPending)
	require.Equal(t, w, h.st.Writes())
	h.frame(1, runID, wire.InteractionDecisionAck{DeliveryID: "cancel:" + runID, Applied: true, Outcome: &wire.Done{}})
	w = h.st.Writes()
	require.ErrorIs(t, h.steer(tid, "c").Err, core.ErrTurnTerminal)
	require.Equal(t, w, h.st.Writes())
}

// TestSteerResendKeepsWrittenDeadline: a not_ready/busy resend is the same
// delivery: the written deadline stays at delivery start + WrittenTimeout.
func TestSteerResendKeepsWrittenDeadline(t *testing.T) {
	for _, code := range []string{"not_ready", "busy"} {
		h := newRig(t)
		_, tid, runID := h.running()
		start := h.now
		h.steer(tid, "a")
		h.advance(5 * time.Second)
		h.frame(1, runID, wire.PromptSteerAck{InputID: "1", ErrorCode: code})
		effs := h.fire(core.TimerID("steer-retry:" + tid))
		one[wire.PromptSteer](t, effs)
		require.False(t, hasEffect(effs, func(s core.SetTimer) bool { return s.Timer == core.TimerID("written:"+tid) }), "resend re-armed the written timer")
		var at time.Time
		for _, tv := range h.m.Timers() {
			if tv.Timer == core.TimerID("written:"+tid) {
				at = tv.At
			}
		}
		require.Equal(t, start.Add(30*time.Second), at)
		h.fire(core.TimerID("written:" + tid))
		require.Equal(t, start.Add(30*time.Second), h.now)
		v := h.turn(tid)
		require.Equal(t, core.InputUnknown, v.Inputs[0].State)
		require.Equal(t, core.CodeInputOutcomeUnknown, v.ErrorCode)
	}
}

// TestNotReadyAfterWrittenFailsTurn: after `written` the input reached the
// native side; a not_ready or busy refusal then is no safe resend: the
// input and the Turn fail with input_<code>, nothing is sent again.
func TestNotReadyAfterWrittenFailsTurn(t *testing.T) {
	for _, code := range []string{"not_ready", "busy"} {
		h := newRig(t)
		_, tid, runID := h.running()
		h.steer(tid, "a")
		h.frame(1, runID, wire.PromptSteerAck{InputID: "1", Written: true})
		effs := h.frame(1, runID, wire.PromptSteerAck{InputID: "1", ErrorCode: code})
		require.Empty(t, sends[wire.PromptSteer](effs))
		require.False(t, hasEffect(effs, func(s core.SetTimer) bool { return s.Timer == core.TimerID("steer-retry:"+tid) }))
		v := h.turn(tid)
		require.Equal(t, core.TurnFailed, v.State)
		require.Equal(t, "input_"+code, v.ErrorCode)
		require.Equal(t, core.InputFailed, v.Inputs[0].State)
		require.Equal(t, 0, v.InputCursor)
	}
}
