package core_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
	"github.com/turnstile-sim/turnstile/wire"
)

// The planted-bug switches must really plant their bug: each test runs one
// script on the correct machine and on the bugged one and asserts both
// behaviours, so a switch that does nothing fails it.

func TestPlantedRedeliverUnknownInputAfterWrittenTimeout(t *testing.T) {
	for _, bug := range []bool{false, true} {
		h := newRigCfg(t, core.Config{Bugs: core.Bugs{RedeliverUnknownInput: bug}})
		_, tid, _ := h.running()
		h.steer(tid, "a")
		first := one[wire.PromptSteer](t, h.last)
		effs := h.fire(core.TimerID("written:" + tid))
		require.Equal(t, t0.Add(30*time.Second), h.now)
		v := h.turn(tid)
		require.Equal(t, core.InputUnknown, v.Inputs[0].State, "recorded unknown either way")
		require.Equal(t, core.CodeInputOutcomeUnknown, v.ErrorCode)
		if !bug {
			require.Empty(t, sends[wire.PromptSteer](effs), "correct: an unknown input is never sent again")
			continue
		}
		again := one[wire.PromptSteer](t, effs)
		require.Equal(t, first, again, "bugged: the same input, run ID and input ID, on the same connection")
	}
}

// TestPlantedRedeliverUnknownInputAfterReconnect: the connection is lost
// while the input awaits its receipt; the bugged machine sends it again
// on the device's next connection.
func TestPlantedRedeliverUnknownInputAfterReconnect(t *testing.T) {
	for _, bug := range []bool{false, true} {
		h := newRigCfg(t, core.Config{Bugs: core.Bugs{RedeliverUnknownInput: bug}})
		_, tid, runID := h.running()
		h.steer(tid, "a")
		one[wire.PromptSteer](t, h.last)
		effs := h.step(core.ConnClosed{Conn: 1, Reason: "lost"})
		require.Empty(t, sends[wire.PromptSteer](effs), "no connection to send on")
		v := h.turn(tid)
		require.Equal(t, core.InputUnknown, v.Inputs[0].State)
		require.Equal(t, core.CodeEventStreamIncomplete, v.ErrorCode)
		effs = h.step(core.ConnOpened{Device: "d1", Conn: 2})
		effs = append(effs, h.frame(2, "", heartbeat(baseCaps()))...)
		if !bug {
			require.Empty(t, sends[wire.PromptSteer](effs), "correct: never redelivered after reconnect")
			continue
		}
		again := one[wire.PromptSteer](t, effs)
		require.Equal(t, core.ConnID(2), again.Conn, "bugged: on the next connection")
		require.Equal(t, runID, again.ID)
		require.Equal(t, "1", again.P.InputID)
		require.Empty(t, sends[wire.PromptSteer](h.frame(2, "", heartbeat(baseCaps()))), "bugged: sent once per loss")
	}
}

// TestPlantedRedeliverUnknownInputAfterRestart: Core crashes while the
// input awaits its receipt; the restarted bugged machine sends it again
// when the device reconnects.
func TestPlantedRedeliverUnknownInputAfterRestart(t *testing.T) {
	for _, bug := range []bool{false, true} {
		cfg := core.Config{Policy: enginetest.OpenPolicy(kind), Bugs: core.Bugs{RedeliverUnknownInput: bug}}
		h := newRigCfg(t, cfg)
		_, tid, runID := h.running()
		h.steer(tid, "a")
		h.m = core.Restart(cfg, h.st)
		require.Equal(t, core.InputUnknown, h.turn(tid).Inputs[0].State)
		effs := h.step(core.ConnOpened{Device: "d1", Conn: 2})
		effs = append(effs, h.frame(2, "", heartbeat(baseCaps()))...)
		if !bug {
			require.Empty(t, sends[wire.PromptSteer](effs), "correct: never redelivered after a restart")
			continue
		}
		again := one[wire.PromptSteer](t, effs)
		require.Equal(t, runID, again.ID, "bugged: redelivered after the restart")
		require.Equal(t, "1", again.P.InputID)
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
			h := newRigCfg(t, core.Config{Bugs: core.Bugs{DoneOverridesCancel: bug}})
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
	h := newRigCfg(t, core.Config{Bugs: core.Bugs{DoneOverridesCancel: true}})
	_, tid, runID := h.running()
	h.step(core.CancelTurn{Call: "c", Turn: tid})
	h.frame(1, runID, wire.InteractionDecisionAck{DeliveryID: "cancel:" + runID, Applied: true, Outcome: &wire.Done{}})
	require.Equal(t, core.TurnCancelled, h.turn(tid).State)
}
