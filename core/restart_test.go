package core_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

func (h *rig) restart() {
	h.t.Helper()
	h.m = core.Restart(testConfig(), h.st)
}

func TestRestartRebuildsFromStore(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, fullCaps())
	// s-1: running Turn; s-2: start sent, unconfirmed; s-3: cancel awaited;
	// s-4: preparing (unclaimed); s-5: queued behind s-1's running Turn.
	var sids []string
	for range 4 {
		sids = append(sids, h.session(defaultAgent()))
	}
	running := h.submit(sids[0], "a")
	_, runA := h.startedOn(1, h.last)
	h.frame(1, runA, wire.Delta{Delta: "x"})
	h.steer(running, "steer")
	behind := h.submit(sids[0], "behind")
	starting := h.submit(sids[1], "b")
	prepB := one[wire.ExecutionPrepare](t, h.last)
	h.frame(1, prepB.ID, status(wire.StateReady, 1))
	cancelling := h.submit(sids[2], "c")
	h.startedOn(1, h.last)
	h.step(core.CancelTurn{Call: "x", Turn: cancelling})
	cancelDeadline := h.now.Add(15 * time.Second)
	preparing := h.submit(sids[3], "d")
	one[wire.ExecutionPrepare](t, h.last)

	h.restart()
	want := map[string][2]string{
		running:    {string(core.TurnFailed), core.CodeEventStreamIncomplete},
		starting:   {string(core.TurnFailed), core.CodeDeliveryUnknown},
		cancelling: {string(core.TurnFailed), core.CodeCancelUnconfirmed},
		preparing:  {string(core.TurnQueued), ""},
		behind:     {string(core.TurnQueued), ""},
	}
	for id, w := range want {
		v := h.turn(id)
		require.Equal(t, w, [2]string{string(v.State), v.ErrorCode}, id)
	}
	require.Equal(t, core.InputUnknown, h.turn(running).Inputs[0].State)
	rec, _ := h.st.Turn(cancelling)
	require.Equal(t, cancelDeadline, rec.CancelDeadline, "the cancel deadline is durable")
	events := h.st.Events(running)
	require.Len(t, events, 1, "durable events survive")

	// After reconnecting, queued Turns are prepared again; the started
	// ones never get another execution_start.
	effs := h.connect("d1", 7, fullCaps())
	preps := sends[wire.ExecutionPrepare](effs)
	require.Len(t, preps, 2)
	for _, p := range preps {
		for _, old := range []string{"p-1", "p-2", "p-3", "p-4"} {
			require.NotEqual(t, old, p.ID, "preparation IDs continue from the durable counter")
		}
	}
	// Drive both to start; the Run IDs are the queued Turns'.
	var runs []string
	for _, p := range preps {
		runs = append(runs, one[wire.ExecutionStart](t, h.frame(7, p.ID, status(wire.StateReady, 1))).P.RunID)
	}
	require.Equal(t, []string{behind, preparing}, runs)

	// The start that was unconfirmed at the crash counts as started: the
	// Session's next Turn needs native session recovery and asks for the
	// existing native session.
	next := h.submit(sids[1], "next")
	prep := one[wire.ExecutionPrepare](t, h.last)
	require.True(t, prep.P.Configuration.RequireExistingNativeSession, "Turn %s", next)
	sess, _ := h.st.Session(sids[1])
	require.Equal(t, 1, sess.StartedTurns)
	require.Equal(t, "s-5", h.session(defaultAgent()), "session counter survives")
}

func TestNewRefusesPopulatedStore(t *testing.T) {
	h := newRig(t)
	h.session(defaultAgent())
	require.Panics(t, func() { core.New(testConfig(), h.st) })
}

func TestConfigValidate(t *testing.T) {
	require.NoError(t, core.Config{}.Validate())
	require.NoError(t, core.DefaultConfig().Validate())
	require.True(t, core.Config{SteerInputsPerRunMax: 300}.Validate() != nil)
	require.True(t, core.Config{WrittenTimeout: -1}.Validate() != nil)
	require.True(t, core.Config{PreparationsPerConnMax: 65}.Validate() != nil)
	require.Panics(t, func() { core.New(core.Config{DevicesMax: -1}, nil) })
}
