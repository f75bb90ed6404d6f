package core_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

func TestNewerConnectionQuarantinesOlder(t *testing.T) {
	h := newRig(t)
	_, tid, runID := h.running()
	sub := h.api(core.Subscribe{Call: "sub", Turn: tid})
	require.NoError(t, sub.Err)

	effs := h.step(core.ConnOpened{Device: "d1", Conn: 2})
	require.True(t, hasEffect(effs, func(c core.CloseConn) bool { return c.Conn == 1 }), "old connection closed: %v", describeAll(effs))
	v := h.turn(tid)
	require.Equal(t, core.TurnFailed, v.State)
	require.Equal(t, core.CodeEventStreamIncomplete, v.ErrorCode)
	obs := observations(effs)
	require.Len(t, obs, 1)
	require.True(t, obs[0].Closed)
	require.ErrorIs(t, obs[0].Err, core.ErrDisconnected)

	// Nothing is inherited: the new connection has no snapshot and the old
	// Run route is gone on both connections.
	d := h.m.Devices()
	require.Equal(t, core.ConnID(2), d[0].Conn)
	require.False(t, d[0].Known)
	require.Empty(t, h.frame(1, runID, wire.Done{Content: "late"}))
	require.Empty(t, h.frame(2, runID, wire.Done{Content: "late"}))
	require.EqualValues(t, 0, h.turn(tid).Events)
}

func TestCapabilitiesUnknownUntilFirstHeartbeat(t *testing.T) {
	h := newRig(t)
	h.step(core.ConnOpened{Device: "d1", Conn: 1})
	sid := h.session(defaultAgent())
	effs := h.step(core.SubmitTurn{Call: "c", Session: sid, Input: wire.TextInput("x")})
	require.Empty(t, sends[wire.ExecutionPrepare](effs), "nothing dispatched before a heartbeat")
	_, ok := h.m.Snapshot(1, kind)
	require.False(t, ok)
	effs = h.frame(1, "", heartbeat(baseCaps()))
	require.Len(t, sends[wire.ExecutionPrepare](effs), 1)
}

func TestKindMissingFromLaterHeartbeatIsUndeclared(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	h.frame(1, "", wire.Heartbeat{TS: 2})
	_, ok := h.m.Snapshot(1, kind)
	require.False(t, ok, "a kind absent from the last heartbeat is undeclared")
	sid := h.session(defaultAgent())
	tid := h.submit(sid, "x")
	require.Empty(t, sends[wire.ExecutionPrepare](h.last))
	require.Equal(t, core.TurnQueued, h.turn(tid).State, "the Turn waits: nothing inferred, nothing rejected")
}

func TestUnavailableKindIsNotSelected(t *testing.T) {
	h := newRig(t)
	h.step(core.ConnOpened{Device: "d1", Conn: 1})
	h.frame(1, "", wire.Heartbeat{SupportedAgentKinds: []wire.SupportedAgentKind{{Kind: kind, Available: false, Capabilities: fullCaps()}}})
	sid := h.session(defaultAgent())
	h.submit(sid, "x")
	require.Empty(t, sends[wire.ExecutionPrepare](h.last))
}

func TestInvalidHeartbeatClearsSnapshotAndCloses(t *testing.T) {
	incomplete := baseCaps()
	incomplete.Streaming = wire.CapabilityUnspecified
	dup := heartbeat(baseCaps())
	dup.SupportedAgentKinds = append(dup.SupportedAgentKinds, dup.SupportedAgentKinds[0])
	cases := map[string]core.Event{
		"undecodable": core.FrameRejected{Conn: 1, Type: wire.TypeHeartbeat, Err: errors.New("bad")},
		"incomplete":  core.FrameReceived{Conn: 1, Frame: wire.Frame{Payload: heartbeat(incomplete)}},
		"duplicate":   core.FrameReceived{Conn: 1, Frame: wire.Frame{Payload: dup}},
		"empty kind":  core.FrameReceived{Conn: 1, Frame: wire.Frame{Payload: wire.Heartbeat{SupportedAgentKinds: []wire.SupportedAgentKind{{Capabilities: baseCaps()}}}}},
	}
	for name, ev := range cases {
		t.Run(name, func(t *testing.T) {
			h := newRig(t)
			h.connect("d1", 1, baseCaps())
			effs := h.step(ev)
			require.True(t, hasEffect(effs, func(c core.CloseConn) bool { return c.Conn == 1 }), "%v", describeAll(effs))
			_, ok := h.m.Snapshot(1, kind)
			require.False(t, ok)
			require.Equal(t, core.ConnID(0), h.m.Devices()[0].Conn)
		})
	}
}

func TestRejectedNonHeartbeatFrameKeepsConnection(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	effs := h.step(core.FrameRejected{Conn: 1, Type: wire.TypeDelta, Err: errors.New("bad")})
	require.Empty(t, effs)
	_, ok := h.m.Snapshot(1, kind)
	require.True(t, ok)
}

func TestIdleConnectionClosedAfterTimeout(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	h.advance(50 * time.Second)
	h.frame(1, "", heartbeat(baseCaps()))
	effs := h.fire("idle:1")
	require.False(t, hasEffect(effs, func(core.CloseConn) bool { return true }), "inbound frame at 50s extends the deadline")
	require.Equal(t, []core.TimerView{{Timer: "idle:1", At: t0.Add(110 * time.Second)}}, h.m.Timers())
	effs = h.fire("idle:1")
	require.True(t, hasEffect(effs, func(c core.CloseConn) bool { return c.Conn == 1 }))
}

func TestConnectionLossWhileStartingIsDeliveryUnknown(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	sid := h.session(defaultAgent())
	tid := h.submit(sid, "x")
	prep := one[wire.ExecutionPrepare](t, h.last)
	one[wire.ExecutionStart](t, h.frame(1, prep.ID, status(wire.StateReady, 1)))
	h.step(core.ConnClosed{Conn: 1, Reason: "network"})
	v := h.turn(tid)
	require.Equal(t, core.TurnFailed, v.State)
	require.Equal(t, core.CodeDeliveryUnknown, v.ErrorCode)

	// Reconnecting replays nothing.
	effs := h.connect("d1", 2, baseCaps())
	require.Empty(t, sends[wire.ExecutionStart](effs))
	require.Empty(t, sends[wire.ExecutionPrepare](effs))
}

func TestConnectionLossWhilePreparingRequeuesUnclaimedTurn(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	sid := h.session(defaultAgent())
	tid := h.submit(sid, "x")
	first := one[wire.ExecutionPrepare](t, h.last)
	h.frame(1, first.ID, status(wire.StatePreparing, 1))
	h.step(core.ConnClosed{Conn: 1})
	require.Equal(t, core.TurnQueued, h.turn(tid).State)
	second := one[wire.ExecutionPrepare](t, h.connect("d1", 2, baseCaps()))
	require.NotEqual(t, first.ID, second.ID, "a new preparation request, not a replay")
	require.Equal(t, core.ConnID(2), second.Conn)
}

func TestDeviceChoiceIsDeterministic(t *testing.T) {
	h := newRig(t)
	h.connect("d-b", 2, baseCaps())
	h.connect("d-a", 1, baseCaps())
	s1 := h.session(defaultAgent())
	s2 := h.session(defaultAgent())
	h.submit(s1, "x")
	require.Equal(t, core.ConnID(1), one[wire.ExecutionPrepare](t, h.last).Conn, "ties go to the lowest device ID")
	h.submit(s2, "y")
	require.Equal(t, core.ConnID(2), one[wire.ExecutionPrepare](t, h.last).Conn, "then the least loaded device")
}

func TestFramesFromUnknownConnectionIgnored(t *testing.T) {
	h := newRig(t)
	require.Empty(t, h.frame(9, "", heartbeat(baseCaps())))
	require.Empty(t, h.step(core.ConnClosed{Conn: 9}))
	require.Empty(t, h.m.Devices())
}

// TestRejectedFrameChangesNoDurableState: an undecodable non-heartbeat
// frame, a frame on an unknown connection and a status for an unknown
// stream leave the store untouched.
func TestRejectedFrameChangesNoDurableState(t *testing.T) {
	h := newRig(t)
	_, tid, runID := h.running()
	w := h.st.Writes()
	h.step(core.FrameRejected{Conn: 1, Type: wire.TypeDone, Err: errors.New("bad")})
	h.step(core.FrameRejected{Conn: 1, Type: "", Err: errors.New("not json")})
	h.frame(9, runID, wire.Done{})
	h.frame(1, "p-77", status(wire.StateReady, 9))
	h.frame(1, runID, wire.PromptSteerAck{InputID: "5", Accepted: true})
	h.frame(1, runID, wire.InteractionDecisionAck{DeliveryID: "cancel:" + runID, Applied: true})
	require.Equal(t, w, h.st.Writes())
	require.Equal(t, core.TurnRunning, h.turn(tid).State)
}

func TestConnOpenedRejections(t *testing.T) {
	h := newRigCfg(t, core.Config{DevicesMax: 1})
	require.Empty(t, h.step(core.ConnOpened{Device: "", Conn: 1}), "no device")
	require.Empty(t, h.step(core.ConnOpened{Device: "d1", Conn: 0}), "connection zero")
	h.step(core.ConnOpened{Device: "d1", Conn: 1})
	require.Empty(t, h.step(core.ConnOpened{Device: "d2", Conn: 1}), "connection ID in use")
	effs := h.step(core.ConnOpened{Device: "d2", Conn: 2})
	require.Equal(t, []core.Effect{core.CloseConn{Conn: 2, Reason: "device limit reached"}}, effs)
	require.Len(t, h.m.Devices(), 1)
	require.Empty(t, h.step(core.TimerFired{Timer: "idle:9"}), "unarmed timer")
}

// TestStaleConnectionGenerationClosed: a ConnOpened older than (or equal
// to) a generation already opened for the device arrives late: it is
// closed at once and the current connection keeps its routes.
func TestStaleConnectionGenerationClosed(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 2, baseCaps())
	sid := h.session(defaultAgent())
	tid := h.submit(sid, "x")
	_, runID := h.startedOn(2, h.last)

	effs := h.step(core.ConnOpened{Device: "d1", Conn: 1})
	require.Len(t, effs, 1, "%v", describeAll(effs))
	require.Equal(t, core.CloseConn{Conn: 1, Reason: "stale connection"}, effs[0])
	d := h.m.Devices()
	require.Equal(t, core.ConnID(2), d[0].Conn)
	require.True(t, d[0].Known)
	require.Equal(t, core.TurnRunning, h.turn(tid).State)
	require.Empty(t, h.frame(1, "", heartbeat(baseCaps())), "the stale connection is not routed")
	h.frame(2, runID, wire.Delta{Delta: "still here"})
	require.EqualValues(t, 1, h.turn(tid).Events)

	// A closed generation reopened is stale too; a newer one replaces.
	h.step(core.ConnClosed{Conn: 2})
	effs = h.step(core.ConnOpened{Device: "d1", Conn: 2})
	require.True(t, hasEffect(effs, func(c core.CloseConn) bool { return c.Conn == 2 && c.Reason == "stale connection" }))
	require.Equal(t, core.ConnID(0), h.m.Devices()[0].Conn)
	h.step(core.ConnOpened{Device: "d1", Conn: 3})
	require.Equal(t, core.ConnID(3), h.m.Devices()[0].Conn)
}

func TestDeviceViewIdleDeadlineFollowsInboundFrames(t *testing.T) {
	h := newRig(t)
	idle := core.DefaultConfig().ConnIdleTimeout
	h.step(core.ConnOpened{Device: "d1", Conn: 1})
	require.Equal(t, t0.Add(idle), h.m.Devices()[0].IdleDeadline)
	h.advance(7 * time.Second)
	h.frame(1, "", heartbeat(baseCaps()))
	require.Equal(t, t0.Add(7*time.Second+idle), h.m.Devices()[0].IdleDeadline)
	h.step(core.ConnClosed{Conn: 1})
	require.Equal(t, time.Time{}, h.m.Devices()[0].IdleDeadline, "no deadline without a connection")
}
