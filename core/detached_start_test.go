package core_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

// startingTurn drives a Turn of a new session on conn 1 to starting: it
// returns the Turn ID, the preparation request ID and the Run ID.
func (h *rig) startingTurn() (tid, prepID, runID string) {
	h.t.Helper()
	sid := h.session(defaultAgent())
	tid = h.submit(sid, "hello")
	prep := one[wire.ExecutionPrepare](h.t, h.last)
	h.frame(1, prep.ID, status(wire.StatePreparing, 1))
	start := one[wire.ExecutionStart](h.t, h.frame(1, prep.ID, status(wire.StateReady, 2)))
	h.frame(1, prep.ID, wire.PreparationStatus{ExecutorID: "exec-1", Handle: "h-1", Revision: 3,
		State: wire.StateStarting, RunID: start.P.RunID})
	require.Equal(h.t, core.TurnStarting, h.turn(tid).State)
	return tid, prep.ID, start.P.RunID
}

// TestTurnEndedWhileStartingKeepsTheStream: a Turn that ends while its
// Run is still starting (the cancel went unconfirmed) leaves its
// preparation stream open on the wire, with no terminal state delivered.
// Core sends no execution_release (the start was sent) and keeps counting
// the stream against the connection's preparation streams until a
// terminal status closes it; only then may another Turn prepare there.
func TestTurnEndedWhileStartingKeepsTheStream(t *testing.T) {
	h := newRigCfg(t, core.Config{PreparationsPerConnMax: 1})
	h.connect("d1", 1, baseCaps())
	tid, prepID, runID := h.startingTurn()
	h.step(core.CancelTurn{Call: h.nextCall(), Turn: tid})
	effs := h.fire(core.TimerID("cancel:" + tid))
	require.Equal(t, core.TurnFailed, h.turn(tid).State)
	require.Equal(t, core.CodeCancelUnconfirmed, h.turn(tid).ErrorCode)
	require.Empty(t, sends[wire.ExecutionRelease](effs), "released after the start was sent")
	ps := h.m.Preparations()
	require.Len(t, ps, 1, "the starting Run's stream was forgotten while still open")
	require.Equal(t, prepID, ps[0].RequestID)
	require.Empty(t, ps[0].Turn)

	h.submit(h.session(defaultAgent()), "waits for the stream")
	require.Empty(t, sends[wire.ExecutionPrepare](h.last), "a second stream opened on a connection limited to one")

	effs = h.frame(1, prepID, wire.PreparationStatus{ExecutorID: "exec-1", Handle: "h-1", Revision: 4,
		State: wire.StateStarted, RunID: runID})
	require.Empty(t, sends[wire.ExecutionRelease](effs))
	require.Len(t, sends[wire.ExecutionPrepare](effs), 1, "the waiting Turn is prepared once the stream closed")
	for _, p := range h.m.Preparations() {
		require.NotEqual(t, prepID, p.RequestID, "the closed stream still counts")
	}
	require.Equal(t, core.TurnFailed, h.turn(tid).State, "terminal states never change")
}

// TestDetachedStreamEnds: a detached started stream stays counted through
// non-terminal statuses and refusals of other operations, and ends on a
// refused start or a terminal state.
func TestDetachedStreamEnds(t *testing.T) {
	cases := []struct {
		name string
		end  wire.PreparationStatus
	}{
		{"refused start", wire.PreparationStatus{State: wire.StateRejected, ErrorCode: "executor_unavailable",
			Operation: wire.TypeExecutionStart}},
		{"expired", wire.PreparationStatus{ExecutorID: "exec-1", Handle: "h-1", Revision: 4, State: wire.StateExpired}},
		{"failed", wire.PreparationStatus{ExecutorID: "exec-1", Handle: "h-1", Revision: 4, State: wire.StateFailed}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newRig(t)
			h.connect("d1", 1, baseCaps())
			tid, prepID, _ := h.startingTurn()
			h.step(core.CancelTurn{Call: h.nextCall(), Turn: tid})
			h.fire(core.TimerID("cancel:" + tid))
			require.Len(t, h.m.Preparations(), 1)

			h.frame(1, prepID, wire.PreparationStatus{State: wire.StateRejected, ErrorCode: "not_found",
				Operation: wire.TypeExecutionRelease})
			h.frame(1, prepID, wire.PreparationStatus{ExecutorID: "exec-1", Handle: "h-other", Revision: 9,
				State: wire.StateReleased})
			require.Len(t, h.m.Preparations(), 1, "the stream ended on a status that does not close it")

			effs := h.frame(1, prepID, tc.end)
			require.Empty(t, sends[wire.ExecutionRelease](effs))
			require.Empty(t, h.m.Preparations(), "the ended stream still counts")
		})
	}
}
