package core_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

func TestRunEventsPersistedInOrder(t *testing.T) {
	h := newRig(t)
	_, tid, runID := h.running()
	var want []string
	for i := 1; i <= 5; i++ {
		h.frame(1, runID, wire.Delta{Delta: itoa(i), Sequence: uint64(i)})
		want = append(want, itoa(i))
	}
	h.frame(1, runID, wire.Done{Content: "12345"})
	evs := h.st.Events(tid)
	require.Len(t, evs, 6)
	for i, ev := range evs[:5] {
		require.EqualValues(t, i+1, ev.Seq)
		require.Equal(t, want[i], ev.Payload.(wire.Delta).Delta)
	}
	require.Equal(t, wire.TypeDone, evs[5].Type)
	require.Empty(t, h.frame(1, runID, wire.Delta{Delta: "late"}), "nothing after done")
	require.Len(t, h.st.Events(tid), 6)
}

func TestRunFramesWithoutRouteDropped(t *testing.T) {
	h := newRig(t)
	_, tid, _ := h.running()
	require.Empty(t, h.frame(1, "", wire.Delta{Delta: "x"}))
	require.Empty(t, h.frame(1, "t-999", wire.Delta{Delta: "x"}))
	require.EqualValues(t, 0, h.turn(tid).Events)
}

func TestOutputBeforeStartedMeansRunning(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	sid := h.session(defaultAgent())
	tid := h.submit(sid, "x")
	prep := one[wire.ExecutionPrepare](t, h.last)
	start := one[wire.ExecutionStart](t, h.frame(1, prep.ID, status(wire.StateReady, 1)))
	h.frame(1, start.P.RunID, wire.Delta{Delta: "early"})
	require.Equal(t, core.TurnRunning, h.turn(tid).State)
	h.frame(1, prep.ID, wire.PreparationStatus{ExecutorID: "exec-1", Handle: "h-1", Revision: 2, State: wire.StateStarted})
	h.frame(1, start.P.RunID, wire.Done{})
	require.Equal(t, core.TurnCompleted, h.turn(tid).State)
}

func TestErrorThenDoneFailsWithEngineClassification(t *testing.T) {
	cases := []struct {
		name       string
		err        wire.RunError
		code       string
		httpStatus int
	}{
		{"connection_failed keeps status", wire.RunError{Error: "x", Code: "connection_failed", HTTPStatus: 503}, "connection_failed", 503},
		{"status out of range dropped", wire.RunError{Error: "x", Code: "connection_failed", HTTPStatus: 99}, "connection_failed", 0},
		{"status only with connection_failed", wire.RunError{Error: "x", Code: "rate_limit_exceeded", HTTPStatus: 429}, "rate_limit_exceeded", 0},
		{"unknown code unclassified", wire.RunError{Error: "x", Code: "weird", HTTPStatus: 500}, "", 0},
		{"no code", wire.RunError{Error: "x"}, "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newRig(t)
			_, tid, runID := h.running()
			h.frame(1, runID, c.err)
			require.Equal(t, core.TurnRunning, h.turn(tid).State, "error alone is not terminal")
			h.frame(1, runID, wire.Done{Content: "partial"})
			v := h.turn(tid)
			require.Equal(t, core.TurnFailed, v.State)
			require.Equal(t, core.CodeEngineFailed, v.ErrorCode)
			require.Equal(t, c.code, v.EngineErrorCode)
			require.Equal(t, c.httpStatus, v.EngineHTTPStatus)
			require.EqualValues(t, 2, v.Events, "error and done both kept")
		})
	}
}

// TestClassificationNeverHidesIncompleteStream: error, then the connection
// drops before done: event_stream_incomplete, no engine classification.
func TestClassificationNeverHidesIncompleteStream(t *testing.T) {
	h := newRig(t)
	_, tid, runID := h.running()
	h.frame(1, runID, wire.RunError{Error: "x", Code: "server_error"})
	h.step(core.ConnClosed{Conn: 1})
	v := h.turn(tid)
	require.Equal(t, core.CodeEventStreamIncomplete, v.ErrorCode)
	require.Equal(t, "", v.EngineErrorCode)
}

// TestClassificationNeverTurnsCancelledIntoFailed: error, done, then the
// applied cancel receipt: cancelled.
func TestClassificationNeverTurnsCancelledIntoFailed(t *testing.T) {
	h := newRig(t)
	_, tid, runID := h.running()
	h.step(core.CancelTurn{Call: "c", Turn: tid})
	h.frame(1, runID, wire.RunError{Error: "x", Code: "server_error"})
	h.frame(1, runID, wire.Done{})
	h.frame(1, runID, wire.InteractionDecisionAck{DeliveryID: "cancel:" + runID, Applied: true, Outcome: &wire.Done{Content: "partial"}})
	v := h.turn(tid)
	require.Equal(t, core.TurnCancelled, v.State)
	require.Equal(t, "", v.EngineErrorCode)
	require.Equal(t, "partial", v.Content)
}

func TestUsageSnapshotsReplaceAndMissingStaysUnknown(t *testing.T) {
	i32 := func(v int32) *int32 { return &v }
	h := newRig(t)
	_, tid, runID := h.running()
	h.frame(1, runID, wire.UsageUpdate{Usage: wire.Usage{InputTokens: i32(10), OutputTokens: i32(1)}})
	h.frame(1, runID, wire.UsageUpdate{Usage: wire.Usage{OutputTokens: i32(5)}})
	u := h.turn(tid).Usage
	require.True(t, u.InputTokens == nil, "a missing measure is unknown, not carried over nor zero")
	require.Equal(t, int32(5), *u.OutputTokens, "replaced, not added")
	h.frame(1, runID, wire.Done{})
	require.Equal(t, int32(5), *h.turn(tid).Usage.OutputTokens, "done without usage keeps the last snapshot")

	h2 := newRig(t)
	_, tid2, run2 := h2.running()
	h2.frame(1, run2, wire.UsageUpdate{Usage: wire.Usage{OutputTokens: i32(5)}})
	h2.frame(1, run2, wire.Done{Usage: &wire.Usage{InputTokens: i32(7)}})
	u = h2.turn(tid2).Usage
	require.Equal(t, int32(7), *u.InputTokens)
	require.True(t, u.OutputTokens == nil)
}

func TestRunEventLimitStopsObservation(t *testing.T) {
	h := newRigCfg(t, core.Config{RunEventsPerTurnMax: 3})
	_, tid, runID := h.running()
	h.step(core.Subscribe{Call: "s", Turn: tid})
	for i := 0; i < 3; i++ {
		h.frame(1, runID, wire.Delta{Delta: "x"})
	}
	obs := observations(h.frame(1, runID, wire.Delta{Delta: "one too many"}))
	v := h.turn(tid)
	require.Equal(t, core.CodeEventPersistenceFailed, v.ErrorCode)
	require.EqualValues(t, 3, v.Events)
	require.Len(t, obs, 1)
	require.ErrorIs(t, obs[0].Err, core.ErrEventLimit)
}
