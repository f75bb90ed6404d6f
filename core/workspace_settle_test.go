package core_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

// unknownAtWait writes one byte, acknowledges it, and lets Core's 195 s
// wait end after the commit left: the write is answered unknown.
func unknownAtWait(t *testing.T, h *rig, sid string) string {
	t.Helper()
	begin := one[wire.WorkspaceWrite](t, h.step(core.WriteWorkspace{Call: h.nextCall(), Session: sid, Path: "f", Data: []byte("1")}))
	h.frame(1, begin.ID, wire.WorkspaceWriteResult{Outcome: wire.OutcomeReady})
	one[wire.WorkspaceWrite](t, h.frame(1, begin.ID, wire.WorkspaceWriteResult{Outcome: wire.OutcomeReceived, Offset: 1}))
	var timer core.TimerID
	for _, tv := range h.m.Timers() {
		if strings.HasPrefix(string(tv.Timer), "ws-write:") {
			timer = tv.Timer
			require.Equal(t, h.now.Add(core.WorkspaceWriteWait), tv.At)
		}
	}
	res := apiResultOf(t, h.fire(timer))
	require.Equal(t, core.WorkspaceUnknown, res.Value.(*core.WorkspaceResult).Outcome)
	require.Equal(t, "timeout", res.Value.(*core.WorkspaceResult).Code)
	require.ErrorIs(t, h.api(core.WriteWorkspace{Call: h.nextCall(), Session: sid, Path: "g", Data: []byte("2")}).Err,
		core.ErrWorkspaceMutationPending)
	return begin.ID
}

// TestUnknownWriteSettledByItsLateReceipt: a completed or rejected
// receipt arriving after Core's wait, on the connection the commit left
// on, settles the mutation durably; the next write is admitted.
func TestUnknownWriteSettledByItsLateReceipt(t *testing.T) {
	late := map[string]wire.WorkspaceWriteResult{
		"completed": {Outcome: wire.OutcomeCompleted, SizeBytes: 1},
		"rejected":  {Outcome: wire.OutcomeRejected, ErrorCode: wire.WriteRejected, Reason: wire.WriteReasonUnsafeDestination},
	}
	for name, r := range late {
		h := newRig(t)
		sid := h.workspaceSession()
		id := unknownAtWait(t, h, sid)
		require.Nil(t, apiResultOf(t, h.frame(1, id, r)), name+": the late receipt answered the call again")
		rec, _ := h.st.Session(sid)
		require.Nil(t, rec.Mutation, name+": the late receipt did not settle the mutation durably")
		next := one[wire.WorkspaceWrite](t, h.step(core.WriteWorkspace{Call: h.nextCall(), Session: sid, Path: "g", Data: []byte("2")}))
		require.Equal(t, wire.StepBegin, next.P.Step)
	}
}

// TestUnknownWriteNotSettledByAnythingElse: a late unknown receipt, one
// that fails the validator, one on another connection, or a lost
// connection before it leaves the mutation unsettled, durably; no request
// is replayed.
func TestUnknownWriteNotSettledByAnythingElse(t *testing.T) {
	cases := map[string]func(h *rig, id string){
		"late unknown": func(h *rig, id string) {
			h.frame(1, id, wire.WorkspaceWriteResult{Outcome: wire.OutcomeUnknown, ErrorCode: wire.WriteUnconfirmed})
		},
		"wrong size": func(h *rig, id string) {
			h.frame(1, id, wire.WorkspaceWriteResult{Outcome: wire.OutcomeCompleted, SizeBytes: 2})
		},
		"rejected with a code outside the set": func(h *rig, id string) {
			h.frame(1, id, wire.WorkspaceWriteResult{Outcome: wire.OutcomeRejected, ErrorCode: "nope"})
		},
		"another connection": func(h *rig, id string) {
			h.connect("d2", 2, workspaceCaps())
			h.frame(2, id, wire.WorkspaceWriteResult{Outcome: wire.OutcomeCompleted, SizeBytes: 1})
		},
		"connection lost first": func(h *rig, id string) {
			h.step(core.ConnClosed{Conn: 1})
			h.connect("d1", 3, workspaceCaps())
			h.frame(3, id, wire.WorkspaceWriteResult{Outcome: wire.OutcomeCompleted, SizeBytes: 1})
		},
		"restart first": func(h *rig, id string) {
			h.m = core.Restart(core.Config{}, h.st)
			h.connect("d1", 1, workspaceCaps())
			h.frame(1, id, wire.WorkspaceWriteResult{Outcome: wire.OutcomeCompleted, SizeBytes: 1})
		},
	}
	for name, then := range cases {
		h := newRig(t)
		sid := h.workspaceSession()
		id := unknownAtWait(t, h, sid)
		then(h, id)
		rec, _ := h.st.Session(sid)
		require.NotNil(t, rec.Mutation, name+": settled")
		require.Empty(t, sends[wire.WorkspaceWrite](h.last), name+": a write step was sent")
		require.ErrorIs(t, h.api(core.WriteWorkspace{Call: h.nextCall(), Session: sid, Path: "g", Data: []byte("2")}).Err,
			core.ErrWorkspaceMutationPending, name)
	}
}

// TestInvalidReceiptThenExactSettles: a completed receipt with the wrong
// size_bytes right after the commit leaves the write unknown; the exact
// receipt arriving next settles the mutation and the next write is
// admitted.
func TestInvalidReceiptThenExactSettles(t *testing.T) {
	h := newRig(t)
	sid := h.workspaceSession()
	begin := one[wire.WorkspaceWrite](t, h.step(core.WriteWorkspace{Call: h.nextCall(), Session: sid, Path: "f", Data: []byte("1")}))
	h.frame(1, begin.ID, wire.WorkspaceWriteResult{Outcome: wire.OutcomeReady})
	one[wire.WorkspaceWrite](t, h.frame(1, begin.ID, wire.WorkspaceWriteResult{Outcome: wire.OutcomeReceived, Offset: 1}))
	res := apiResultOf(t, h.frame(1, begin.ID, wire.WorkspaceWriteResult{Outcome: wire.OutcomeCompleted, SizeBytes: 2}))
	require.Equal(t, core.WorkspaceUnknown, res.Value.(*core.WorkspaceResult).Outcome)
	require.Nil(t, apiResultOf(t, h.frame(1, begin.ID, wire.WorkspaceWriteResult{Outcome: wire.OutcomeCompleted, SizeBytes: 1})))
	rec, _ := h.st.Session(sid)
	require.Nil(t, rec.Mutation, "the exact receipt did not settle the mutation")
	next := one[wire.WorkspaceWrite](t, h.step(core.WriteWorkspace{Call: h.nextCall(), Session: sid, Path: "g", Data: []byte("2")}))
	require.Equal(t, wire.StepBegin, next.P.Step)
}

// TestAmbiguousLateReceiptsKeepListening: after the write went unknown, a
// late unknown receipt or one with the wrong size proves nothing; the
// exact receipt arriving after them still settles the mutation.
func TestAmbiguousLateReceiptsKeepListening(t *testing.T) {
	h := newRig(t)
	sid := h.workspaceSession()
	id := unknownAtWait(t, h, sid)
	h.frame(1, id, wire.WorkspaceWriteResult{Outcome: wire.OutcomeReceived, Offset: 1})
	h.frame(1, id, wire.WorkspaceWriteResult{Outcome: wire.OutcomeCompleted, SizeBytes: 2})
	h.frame(1, id, wire.WorkspaceWriteResult{Outcome: wire.OutcomeUnknown, ErrorCode: wire.WriteUnconfirmed})
	rec, _ := h.st.Session(sid)
	require.NotNil(t, rec.Mutation, "an ambiguous late receipt settled the mutation")
	require.Nil(t, apiResultOf(t, h.frame(1, id, wire.WorkspaceWriteResult{Outcome: wire.OutcomeCompleted, SizeBytes: 1})))
	rec, _ = h.st.Session(sid)
	require.Nil(t, rec.Mutation, "the exact receipt after ambiguous ones did not settle the mutation")
	next := one[wire.WorkspaceWrite](t, h.step(core.WriteWorkspace{Call: h.nextCall(), Session: sid, Path: "g", Data: []byte("2")}))
	require.Equal(t, wire.StepBegin, next.P.Step)
}
