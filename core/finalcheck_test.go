package core_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

var imageInput = wire.MessageInput{{Content: []wire.InputContent{wire.ImagePart("data:image/png;base64,AAAA")}}}

// requireRefusedAtReady: the final check refused the Turn on the device:
// the admission is released, no execution_start leaves and the Turn fails
// capability_unsupported naming capability.
func requireRefusedAtReady(t *testing.T, h *rig, effs []core.Effect, tid, capability string) {
	t.Helper()
	require.Empty(t, sends[wire.ExecutionStart](effs), "%v", describeAll(effs))
	require.Equal(t, "h-1", one[wire.ExecutionRelease](t, effs).P.Handle)
	v := h.turn(tid)
	require.Equal(t, core.TurnFailed, v.State)
	require.Equal(t, core.CodeCapabilityUnsupported, v.ErrorCode)
	require.Equal(t, capability, v.ErrorDetail)
	require.Equal(t, "", v.RunID)
}

// TestFinalCheckEveryRow: for every row of the admission table (the
// conditional ones included: environment type, json_schema, function
// tools, images, MCP, ...), a heartbeat withdrawing the row's capability
// between execution_prepare and `ready` keeps the Turn off the device.
func TestFinalCheckEveryRow(t *testing.T) {
	for _, row := range admissionRows() {
		t.Run(row.name, func(t *testing.T) {
			h := profileHarness(t, row.profile)
			caps := row.base(baseCaps())
			h.connect("d1", 1, caps)
			a := defaultAgent()
			row.agent(&a)
			sid := h.session(a)
			in := row.input
			if in == nil {
				in = wire.TextInput("x")
			}
			r := h.api(core.SubmitTurn{Call: "c", Session: sid, Input: in})
			require.NoError(t, r.Err)
			prep := one[wire.ExecutionPrepare](t, h.last)
			h.frame(1, "", heartbeat(with(caps, row.cap, wire.CapabilityUnsupported)))
			requireRefusedAtReady(t, h, h.frame(1, prep.ID, status(wire.StateReady, 1)), r.Value.(core.TurnSubmitted).Turn, row.cap)
		})
	}
}

// TestFinalCheckNativeSessionRecovery: the Session started a Turn without
// a recorded native session ID; the capability withdrawn before `ready`
// keeps the next Turn off the device.
func TestFinalCheckNativeSessionRecovery(t *testing.T) {
	h := newRig(t)
	caps := with(baseCaps(), "native_session_recovery", wire.CapabilitySupported)
	h.connect("d1", 1, caps)
	sid := h.session(defaultAgent())
	h.submit(sid, "x")
	_, runID := h.startedOn(1, h.last)
	h.frame(1, runID, wire.Done{})
	tid := h.submit(sid, "y")
	prep := one[wire.ExecutionPrepare](t, h.last)
	require.True(t, prep.P.Configuration.RequireExistingNativeSession)
	h.frame(1, "", heartbeat(with(caps, "native_session_recovery", wire.CapabilityUnsupported)))
	requireRefusedAtReady(t, h, h.frame(1, prep.ID, status(wire.StateReady, 10)), tid, "native_session_recovery")
}

// TestFinalCheckImageSteerQueuedBeforeClaim: an image carried only by an
// active input queued before the claim needs message_images at the final
// check, whether the device never declared it or withdrew it.
func TestFinalCheckImageSteerQueuedBeforeClaim(t *testing.T) {
	for _, withdrawn := range []bool{false, true} {
		h := newRig(t)
		caps := baseCaps()
		if withdrawn {
			caps = with(caps, "message_images", wire.CapabilitySupported)
		}
		h.connect("d1", 1, caps)
		sid := h.session(defaultAgent())
		tid := h.submit(sid, "text only")
		prep := one[wire.ExecutionPrepare](t, h.last)
		require.NoError(t, h.api(core.SteerInput{Call: "s", Turn: tid, Input: imageInput}).Err)
		if withdrawn {
			h.frame(1, "", heartbeat(with(caps, "message_images", wire.CapabilityUnsupported)))
		}
		requireRefusedAtReady(t, h, h.frame(1, prep.ID, status(wire.StateReady, 1)), tid, "message_images")
	}
}

// TestImageSteerQueuedBeforeSelection: an image steer queued while the
// Turn waits for a device counts at selection too.
func TestImageSteerQueuedBeforeSelection(t *testing.T) {
	for _, supported := range []bool{false, true} {
		h := newRig(t)
		sid := h.session(defaultAgent())
		tid := h.submit(sid, "text only")
		require.NoError(t, h.api(core.SteerInput{Call: "s", Turn: tid, Input: imageInput}).Err)
		caps := baseCaps()
		if supported {
			caps = with(caps, "message_images", wire.CapabilitySupported)
		}
		effs := h.connect("d1", 1, caps)
		if supported {
			one[wire.ExecutionPrepare](t, effs)
			continue
		}
		require.Empty(t, sends[wire.ExecutionPrepare](effs))
		require.Equal(t, "message_images", h.turn(tid).ErrorDetail)
	}
}

// TestReadyWithoutExecutorID: `ready` naming no executor cannot be
// started: the admission is released and the Turn fails.
func TestReadyWithoutExecutorID(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	sid := h.session(defaultAgent())
	tid := h.submit(sid, "x")
	prep := one[wire.ExecutionPrepare](t, h.last)
	effs := h.frame(1, prep.ID, wire.PreparationStatus{Handle: "h-1", Revision: 1, State: wire.StateReady})
	require.Empty(t, sends[wire.ExecutionStart](effs))
	require.Equal(t, "h-1", one[wire.ExecutionRelease](t, effs).P.Handle)
	v := h.turn(tid)
	require.Equal(t, core.TurnFailed, v.State)
	require.Equal(t, core.CodePreparationStartFailed, v.ErrorCode)
	require.Equal(t, "ready without executor_id", v.ErrorDetail)
}

// TestFinalCheckKindGoneRequeues: the kind undeclared or unavailable at
// the final check means wait, as at selection: the admission is released,
// the Turn stays queued and unclaimed, and it is prepared afresh once the
// kind is available again.
func TestFinalCheckKindGoneRequeues(t *testing.T) {
	gone := map[string]wire.Heartbeat{
		"undeclared":  {TS: 3},
		"unavailable": {TS: 3, SupportedAgentKinds: []wire.SupportedAgentKind{{Kind: kind, Available: false, Capabilities: baseCaps()}}},
	}
	for _, name := range []string{"undeclared", "unavailable"} {
		t.Run(name, func(t *testing.T) {
			h := newRig(t)
			h.connect("d1", 1, baseCaps())
			sid := h.session(defaultAgent())
			tid := h.submit(sid, "x")
			prep := one[wire.ExecutionPrepare](t, h.last)
			h.frame(1, "", gone[name])
			effs := h.frame(1, prep.ID, status(wire.StateReady, 1))
			require.Empty(t, sends[wire.ExecutionStart](effs))
			require.Empty(t, sends[wire.ExecutionPrepare](effs), "nothing admissible: wait")
			require.Equal(t, "h-1", one[wire.ExecutionRelease](t, effs).P.Handle)
			v := h.turn(tid)
			require.Equal(t, core.TurnQueued, v.State)
			require.Equal(t, "", v.ErrorCode)
			require.Equal(t, 0, v.Attempt)
			require.Empty(t, h.m.Preparations())

			again := one[wire.ExecutionPrepare](t, h.frame(1, "", heartbeat(baseCaps())))
			require.NotEqual(t, prep.ID, again.ID, "a new admission, not a replay")
			start := one[wire.ExecutionStart](t, h.frame(1, again.ID, status(wire.StateReady, 1)))
			require.Equal(t, tid, start.P.RunID)
		})
	}
}

// TestFinalCheckKindGoneMovesToAnotherDevice: the requeued Turn may be
// prepared at once on another device declaring the kind.
func TestFinalCheckKindGoneMovesToAnotherDevice(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	sid := h.session(defaultAgent())
	tid := h.submit(sid, "x")
	prep := one[wire.ExecutionPrepare](t, h.last)
	h.connect("d2", 2, baseCaps())
	h.frame(1, "", wire.Heartbeat{TS: 3})
	effs := h.frame(1, prep.ID, status(wire.StateReady, 1))
	require.Equal(t, core.ConnID(1), one[wire.ExecutionRelease](t, effs).Conn)
	require.Equal(t, core.ConnID(2), one[wire.ExecutionPrepare](t, effs).Conn)
	require.Equal(t, core.TurnQueued, h.turn(tid).State)
}
