package core_test

import (
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

// The planted-bug switches must really plant their bug: each test runs one
// script on the correct machine and on the bugged one and asserts both
// behaviours, so a switch that does nothing fails it.

func TestPlantedRedeliverUnknownInput(t *testing.T) {
	for _, bug := range []bool{false, true} {
		h := newHarnessCfg(t, core.Config{Bugs: core.Bugs{RedeliverUnknownInput: bug}})
		_, tid, runID := h.running()
		h.steer(tid, "a")
		first := one[wire.PromptSteer](t, h.last)
		effs := h.fire(core.TimerID("written:" + tid))
		require.Equal(t, t0.Add(30*time.Second), h.now)
		if !bug {
			require.Empty(t, sends[wire.PromptSteer](effs), "correct: an unknown input is never sent again")
			v := h.turn(tid)
			require.Equal(t, core.InputUnknown, v.Inputs[0].State)
			require.Equal(t, core.TurnFailed, v.State)
			require.Equal(t, core.CodeInputOutcomeUnknown, v.ErrorCode)
			require.Equal(t, 1, h.st.Inputs(tid)[0].Sends)
			continue
		}
		again := one[wire.PromptSteer](t, effs)
		require.Equal(t, runID, again.ID, "bugged: redelivered on the same run")
		require.Equal(t, first.P, again.P, "bugged: the same input, same input ID")
		v := h.turn(tid)
		require.Equal(t, core.InputDelivering, v.Inputs[0].State, "bugged: never recorded unknown")
		require.Equal(t, core.TurnRunning, v.State)
		require.Equal(t, 2, h.st.Inputs(tid)[0].Sends)
		// And again at every later window.
		effs = h.fire(core.TimerID("written:" + tid))
		require.Equal(t, "1", one[wire.PromptSteer](t, effs).P.InputID)
		require.Equal(t, 3, h.st.Inputs(tid)[0].Sends)
	}
}

func TestPlantedDoneOverridesCancel(t *testing.T) {
	cases := []struct {
		name      string
		events    []wire.Payload
		bugged    core.TurnState
		buggedErr string
	}{
		{"done", []wire.Payload{wire.Done{Content: "all"}}, core.TurnCompleted, ""},
		{"error then done", []wire.Payload{wire.RunError{Error: "boom"}, wire.Done{}}, core.TurnFailed, core.CodeEngineFailed},
	}
	for _, c := range cases {
		for _, bug := range []bool{false, true} {
			h := newHarnessCfg(t, core.Config{Bugs: core.Bugs{DoneOverridesCancel: bug}})
			_, tid, runID := h.running()
			h.step(core.CancelTurn{Call: "c", Turn: tid})
			for _, p := range c.events {
				h.frame(1, runID, p)
			}
			require.Equal(t, core.TurnRunning, h.turn(tid).State, "%s: the receipt is awaited either way", c.name)
			h.frame(1, runID, wire.InteractionDecisionAck{DeliveryID: "cancel:" + runID, Applied: true,
				Outcome: &wire.Done{Content: "partial"}})
			v := h.turn(tid)
			if !bug {
				require.Equal(t, core.TurnCancelled, v.State, "%s: correct: the applied receipt decides", c.name)
				require.Equal(t, "partial", v.Content)
				continue
			}
			require.Equal(t, c.bugged, v.State, "%s: bugged: done decides", c.name)
			require.Equal(t, c.buggedErr, v.ErrorCode, c.name)
		}
	}
}

// TestPlantedDoneOverridesCancelNeedsDone: without a done the bugged
// machine still obeys the receipt (the switch is confined to the race).
func TestPlantedDoneOverridesCancelNeedsDone(t *testing.T) {
	h := newHarnessCfg(t, core.Config{Bugs: core.Bugs{DoneOverridesCancel: true}})
	_, tid, runID := h.running()
	h.step(core.CancelTurn{Call: "c", Turn: tid})
	h.frame(1, runID, wire.InteractionDecisionAck{DeliveryID: "cancel:" + runID, Applied: true, Outcome: &wire.Done{}})
	require.Equal(t, core.TurnCancelled, h.turn(tid).State)
}
