package core_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

func TestSubscribeDurableReplaysThenLiveThenCloses(t *testing.T) {
	h := newRig(t)
	_, tid, runID := h.running()
	h.frame(1, runID, wire.Delta{Delta: "a", Sequence: 1})
	effs := h.step(core.Subscribe{Call: "s1", Turn: tid})
	require.NoError(t, effs[0].(core.APIResult).Err)
	obs := observations(effs)
	require.Len(t, obs, 1)
	require.EqualValues(t, 1, obs[0].Event.Seq)
	obs = observations(h.frame(1, runID, wire.Delta{Delta: "b", Sequence: 2}))
	require.Len(t, obs, 1)
	require.EqualValues(t, 2, obs[0].Event.Seq)
	obs = observations(h.frame(1, runID, wire.Done{}))
	require.Len(t, obs, 2)
	require.Equal(t, wire.TypeDone, obs[0].Event.Type)
	require.True(t, obs[1].Closed)
	require.NoError(t, obs[1].Err)
	require.Empty(t, h.m.Subscribers())

	// A late subscriber gets the whole durable stream and the close.
	obs = observations(h.step(core.Subscribe{Call: "s2", Turn: tid}))
	require.Len(t, obs, 4)
	require.True(t, obs[3].Closed)
}

// TestDisconnectClosesWithObservationErrorNeverFabricates: no error or
// done appears that the Runtime did not send.
func TestDisconnectClosesWithObservationErrorNeverFabricates(t *testing.T) {
	h := newRig(t)
	_, tid, runID := h.running()
	h.step(core.Subscribe{Call: "s1", Turn: tid})
	h.frame(1, runID, wire.Delta{Delta: "a", Sequence: 1})
	obs := observations(h.step(core.ConnClosed{Conn: 1}))
	require.Len(t, obs, 1)
	require.True(t, obs[0].Closed)
	require.ErrorIs(t, obs[0].Err, core.ErrDisconnected)
	for _, ev := range h.st.Events(tid) {
		require.Equal(t, wire.TypeDelta, ev.Type)
	}
	obs = observations(h.step(core.Subscribe{Call: "s2", Turn: tid}))
	require.ErrorIs(t, obs[len(obs)-1].Err, core.ErrDisconnected)
}

func TestSubscriberOverflowCloses(t *testing.T) {
	h := newRig(t)
	_, tid, runID := h.running()
	h.step(core.Subscribe{Call: "s1", Turn: tid})
	h.step(core.Subscribe{Call: "s2", Turn: tid})
	obs := observations(h.step(core.SubscriberOverflow{Subscriber: "s1"}))
	require.Len(t, obs, 1)
	require.ErrorIs(t, obs[0].Err, core.ErrSubscriberOverflow)
	obs = observations(h.frame(1, runID, wire.Delta{Delta: "a"}))
	require.Len(t, obs, 1)
	require.Equal(t, core.CallID("s2"), obs[0].Subscriber)
	require.Empty(t, h.step(core.SubscriberOverflow{Subscriber: "s1"}))
}

func TestSubscribeRejections(t *testing.T) {
	h := newRigCfg(t, core.Config{SubscribersPerTurnMax: 1})
	_, tid, _ := h.running()
	require.ErrorIs(t, h.api(core.Subscribe{Call: "a", Turn: "t-404"}).Err, core.ErrUnknownTurn)
	require.NoError(t, h.api(core.Subscribe{Call: "b", Turn: tid}).Err)
	require.ErrorIs(t, h.api(core.Subscribe{Call: "b", Turn: tid}).Err, core.ErrDuplicateSubscriber)
	require.ErrorIs(t, h.api(core.Subscribe{Call: "c", Turn: tid}).Err, core.ErrSubscriberLimit)
}

func TestReadTurn(t *testing.T) {
	h := newRig(t)
	_, tid, _ := h.running()
	r := h.api(core.ReadTurn{Call: "r", Turn: tid})
	require.Equal(t, core.TurnRunning, r.Value.(*core.TurnView).State)
	require.ErrorIs(t, h.api(core.ReadTurn{Call: "r2", Turn: "t-9"}).Err, core.ErrUnknownTurn)
}
