package core_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

// lacking is a declaration without streaming (always required).
func lacking() wire.AgentKindCapabilities {
	return with(baseCaps(), "streaming", wire.CapabilityUnsupported)
}

// A capable device that is reconnecting keeps the queued Turns of its
// kind queued while a connected device lacks a capability; they go to it
// once it is back.
func TestQueuedTurnWaitsForReconnectingCapableDevice(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	h.connect("d2", 2, lacking())
	h.step(core.ConnClosed{Conn: 1, Reason: "network"})
	sid := h.session(defaultAgent())
	tid := h.submit(sid, "x")
	require.Empty(t, sends[wire.ExecutionPrepare](h.last))
	require.Equal(t, core.TurnQueued, h.turn(tid).State)
	h.frame(2, "", heartbeat(lacking())) // a later heartbeat of the lacking device fails nothing
	require.Equal(t, core.TurnQueued, h.turn(tid).State)

	h.step(core.ConnOpened{Device: "d1", Conn: 3})
	require.Empty(t, sends[wire.ExecutionPrepare](h.last), "no declaration before the first heartbeat")
	require.Equal(t, core.TurnQueued, h.turn(tid).State, "a connection without a heartbeat may still serve")
	prep := one[wire.ExecutionPrepare](t, h.frame(3, "", heartbeat(baseCaps())))
	require.Equal(t, core.ConnID(3), prep.Conn, "prepared on the capable device")
}

// The enrolled pool of Config.Devices counts before a device's first
// connection since the start (a Core restart): the lacking device that
// connects first fails nothing.
func TestQueuedTurnWaitsForEnrolledDeviceNotYetConnected(t *testing.T) {
	cfg := testConfig()
	cfg.Devices = []string{"d2", "d1"}
	h := newRigCfg(t, cfg)
	h.connect("d2", 2, lacking())
	tid := h.submit(h.session(defaultAgent()), "x")
	require.Equal(t, core.TurnQueued, h.turn(tid).State)
	require.Empty(t, sends[wire.ExecutionPrepare](h.last))
	prep := one[wire.ExecutionPrepare](t, h.connect("d1", 1, baseCaps()))
	require.Equal(t, core.ConnID(1), prep.Conn)
}

// A device that declares the kind unavailable says it cannot serve it
// now: with the others lacking a capability, the Turn fails.
func TestKindUnavailableDeviceDoesNotKeepTheTurnQueued(t *testing.T) {
	h := newRig(t)
	h.step(core.ConnOpened{Device: "d1", Conn: 1})
	h.frame(1, "", wire.Heartbeat{TS: 1, SupportedAgentKinds: []wire.SupportedAgentKind{{Kind: kind, Available: false, Capabilities: baseCaps()}}})
	h.connect("d2", 2, lacking())
	tid := h.submit(h.session(defaultAgent()), "x")
	require.Empty(t, sends[wire.ExecutionPrepare](h.last))
	require.Equal(t, core.CodeCapabilityUnsupported, h.turn(tid).ErrorCode)
	require.Equal(t, "streaming", h.turn(tid).ErrorDetail)
}

// When every device of the pool is connected and declares the kind
// without a required capability, no device can serve the Turn: it fails
// capability_unsupported naming the first missing capability in device
// order, and nothing is dispatched.
func TestQueuedTurnFailsWhenNoDeviceOfThePoolCanServe(t *testing.T) {
	cfg := testConfig()
	cfg.Devices = []string{"d1", "d2"}
	h := newRigCfg(t, cfg)
	h.connect("d1", 1, with(baseCaps(), "steering", wire.CapabilityUnsupported))
	h.connect("d2", 2, lacking())
	tid := h.submit(h.session(defaultAgent()), "x")
	require.Empty(t, sends[wire.ExecutionPrepare](h.last))
	v := h.turn(tid)
	require.Equal(t, core.TurnFailed, v.State)
	require.Equal(t, core.CodeCapabilityUnsupported, v.ErrorCode)
	require.Equal(t, "steering", v.ErrorDetail)
}

func TestConfigRefusesABadDevicePool(t *testing.T) {
	cfg := testConfig()
	cfg.Devices = []string{"d1", ""}
	require.ErrorContains(t, cfg.Validate(), "empty device ID")
	cfg.Devices = []string{"d1", "d2"}
	cfg.DevicesMax = 1
	require.ErrorContains(t, cfg.Validate(), "more than DevicesMax")
	cfg = testConfig()
	cfg.ReconnectWindow = -time.Second
	require.ErrorContains(t, cfg.Validate(), "negative duration")
}

// A device away for longer than ReconnectWindow no longer keeps the Turn
// queued: the next step (here a heartbeat of the lacking device) fails
// it. The window of an enrolled device never connected runs from the
// machine's first step.
func TestReconnectWindowBoundsTheWait(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	h.connect("d2", 2, lacking())
	h.step(core.ConnClosed{Conn: 1, Reason: "network"})
	tid := h.submit(h.session(defaultAgent()), "x")
	h.advance(core.DefaultConfig().ReconnectWindow - time.Nanosecond)
	h.frame(2, "", heartbeat(lacking()))
	require.Equal(t, core.TurnQueued, h.turn(tid).State, "still within the window")
	h.advance(time.Nanosecond)
	h.frame(2, "", heartbeat(lacking()))
	require.Equal(t, core.CodeCapabilityUnsupported, h.turn(tid).ErrorCode)

	cfg := testConfig()
	cfg.Devices = []string{"d1"}
	cfg.ReconnectWindow = time.Minute
	h = newRigCfg(t, cfg)
	h.connect("d2", 2, lacking())
	tid = h.submit(h.session(defaultAgent()), "x")
	require.Equal(t, core.TurnQueued, h.turn(tid).State)
	h.advance(time.Minute)
	h.frame(2, "", heartbeat(lacking()))
	require.Equal(t, core.CodeCapabilityUnsupported, h.turn(tid).ErrorCode)
}

// A device's first connection, before any heartbeat, is not yet part of
// the pool: it does not hold a Turn the connected devices cannot serve.
func TestFirstConnectionWithoutHeartbeatHoldsNothing(t *testing.T) {
	h := newRig(t)
	h.connect("d2", 2, lacking())
	h.step(core.ConnOpened{Device: "x", Conn: 3})
	tid := h.submit(h.session(defaultAgent()), "x")
	require.Equal(t, core.CodeCapabilityUnsupported, h.turn(tid).ErrorCode)
}

// A Session that started a Turn without a recorded native session ID
// shows that its next Turn needs native_session_recovery; while a device
// of the pool may still serve it (reconnecting) it stays usable; once
// every device is back and none declares the capability, its state says
// why it is unusable and SubmitTurn refuses with that reason. A device
// declaring the capability makes it usable again.
func TestSessionStateShowsUnrecoverableSession(t *testing.T) {
	h := newRig(t)
	sid, _, runID := h.running() // d1 on conn 1, baseCaps: no native_session_recovery
	st := h.list(sid, "", 0).Session
	require.Equal(t, core.SessionState{}, st, "a running Turn may still record its native session")
	h.step(core.ConnClosed{Conn: 1, Reason: "restart"}) // the Run is lost: no native session ID
	_ = runID
	st = h.list(sid, "", 0).Session
	require.True(t, st.RecoveryRequired)
	require.Empty(t, st.Unrecoverable, "d1 is reconnecting and may declare it")

	h.connect("d1", 2, baseCaps())
	st = h.list(sid, "", 0).Session
	require.True(t, st.RecoveryRequired)
	require.Contains(t, st.Unrecoverable, "native_session_recovery")
	r := h.api(core.SubmitTurn{Call: h.nextCall(), Session: sid, Input: wire.TextInput("again")})
	require.ErrorIs(t, r.Err, core.ErrSessionUnrecoverable)
	require.ErrorContains(t, r.Err, st.Unrecoverable)

	h.connect("d2", 3, with(baseCaps(), "native_session_recovery", wire.CapabilitySupported))
	require.Empty(t, h.list(sid, "", 0).Session.Unrecoverable)
	h.submit(sid, "again")
	prep := one[wire.ExecutionPrepare](t, h.last)
	require.Equal(t, core.ConnID(3), prep.Conn)
	require.True(t, prep.P.Configuration.RequireExistingNativeSession)
}

// A new connection of a device that served the kind, whose first
// declarations lack it (a restarted Runtime still discovering its
// Harnesses), keeps the Turn queued for the reconnect window; the
// window's end is the machine's own timer, so the verdict never comes
// from a peer's frame.
func TestReplacementWithoutTheKindWaitsForTheWindowTimer(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	h.connect("d2", 2, lacking())
	h.step(core.ConnOpened{Device: "d1", Conn: 3}) // replaces conn 1
	h.frame(3, "", wire.Heartbeat{TS: 1})          // declares no kind yet
	tid := h.submit(h.session(defaultAgent()), "x")
	h.frame(3, "", wire.Heartbeat{TS: 2})
	h.frame(2, "", heartbeat(lacking()))
	require.Equal(t, core.TurnQueued, h.turn(tid).State)
	effs := h.fire(core.TimerID("reconnect:d1"))
	require.Equal(t, core.CodeCapabilityUnsupported, h.turn(tid).ErrorCode, "decided on the window's timer")
	require.Empty(t, sends[wire.ExecutionPrepare](effs))
}
