package core_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

func TestHappyPathTurnCompletes(t *testing.T) {
	h := newRig(t)
	_, tid, runID := h.running()
	require.Equal(t, "t-1", runID)
	require.Equal(t, core.TurnRunning, h.turn(tid).State)
	h.frame(1, runID, wire.Delta{Delta: "hi", Sequence: 1})
	h.frame(1, runID, wire.Done{Content: "hi"})
	v := h.turn(tid)
	require.Equal(t, core.TurnCompleted, v.State)
	require.Equal(t, "hi", v.Content)
	require.EqualValues(t, 2, v.Events)
}
