package core_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

// TestPreparationLateTerminalResultFreesTheConnection: a transfer Core
// gave up on (timeout) keeps other transfers off its connection until the
// Runtime's late terminal result for it arrives there; the step stays
// unknown and nothing is replayed.
func TestPreparationLateTerminalResultFreesTheConnection(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	id := h.prepare(setupStep())
	begin := oneTransfer(t, h.last)
	oneTransfer(t, h.frame(1, begin.ID, wire.RuntimePrepareResult{Outcome: wire.OutcomeReady}))
	h.fire(core.TimerID("transfer:" + begin.ID))
	again := core.PrepareEnvironment{Device: "d1", EnvironmentID: prepEnv, SessionID: prepSession, Steps: []core.PrepareStep{setupStep()}}

	h.frame(1, begin.ID, wire.RuntimePrepareResult{Outcome: wire.OutcomeReceived, Offset: 0})
	again.Call = h.nextCall()
	require.ErrorIs(t, h.api(again).Err, core.ErrTransferBusy, "a late non-terminal result proves nothing")
	h.frame(2, begin.ID, wire.RuntimePrepareResult{Outcome: wire.OutcomeCompleted})
	again.Call = h.nextCall()
	require.ErrorIs(t, h.api(again).Err, core.ErrTransferBusy, "a result on another connection proves nothing")

	h.frame(1, begin.ID, wire.RuntimePrepareResult{Outcome: wire.OutcomeCompleted})
	require.Empty(t, sends[wire.RuntimePrepare](h.last), "the late result drives nothing")
	require.Equal(t, core.PreparationUnknown, h.preparation(id).State, "the step stays unknown")
	again.Call = h.nextCall()
	require.NoError(t, h.api(again).Err, "the Runtime ended the transfer: the connection transfers again")
	require.NotEqual(t, begin.ID, oneTransfer(t, h.last).ID)
}

// TestPreparationIgnoresACopyOfAnEarlierAnswer: a duplicated ready, or a
// replayed received of a confirmed offset, answers nothing new: the
// transfer goes on (it is neither failed nor unknown).
func TestPreparationIgnoresACopyOfAnEarlierAnswer(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	body := make([]byte, wire.ChunkBytesMax+5)
	id := h.prepare(fileStep(body))
	begin := oneTransfer(t, h.last)
	oneTransfer(t, h.frame(1, begin.ID, wire.RuntimePrepareResult{Outcome: wire.OutcomeReady}))
	h.frame(1, begin.ID, wire.RuntimePrepareResult{Outcome: wire.OutcomeReady})
	require.Empty(t, sends[wire.RuntimePrepare](h.last), "a duplicate ready drives nothing")
	require.Equal(t, core.PreparationRunning, h.preparation(id).State)

	next := oneTransfer(t, h.frame(1, begin.ID, wire.RuntimePrepareResult{Outcome: wire.OutcomeReceived, Offset: wire.ChunkBytesMax}))
	require.Equal(t, int64(wire.ChunkBytesMax), next.P.Offset)
	h.frame(1, begin.ID, wire.RuntimePrepareResult{Outcome: wire.OutcomeReceived, Offset: wire.ChunkBytesMax})
	require.Empty(t, sends[wire.RuntimePrepare](h.last), "a replayed receipt drives nothing")
	require.Equal(t, core.PreparationRunning, h.preparation(id).State)

	commit := oneTransfer(t, h.frame(1, begin.ID, wire.RuntimePrepareResult{Outcome: wire.OutcomeReceived, Offset: int64(len(body))}))
	require.Equal(t, wire.StepCommit, commit.P.Step)
	h.frame(1, begin.ID, wire.RuntimePrepareResult{Outcome: wire.OutcomeCompleted, SizeBytes: int64(len(body))})
	require.Equal(t, core.PreparationCompleted, h.preparation(id).State)
}
