package core_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/store"
	"github.com/turnstile-sim/turnstile/wire"
)

func (h *rig) suspension(id string) core.SuspensionRecord {
	h.t.Helper()
	r := h.api(core.ReadSuspension{Call: h.nextCall(), SuspendID: id})
	require.NoError(h.t, r.Err)
	return *r.Value.(*core.SuspensionRecord)
}

func (h *rig) quiesce(device, env string) (string, sent[wire.EnvironmentQuiesce]) {
	h.t.Helper()
	r := h.api(core.QuiesceEnvironment{Call: h.nextCall(), Device: device, EnvironmentID: env})
	require.NoError(h.t, r.Err)
	q := one[wire.EnvironmentQuiesce](h.t, h.last)
	require.Equal(h.t, wire.EnvironmentQuiesce{EnvironmentID: env, SuspendID: r.Value.(core.SuspendRef).Suspend}, q.P)
	return r.Value.(core.SuspendRef).Suspend, q
}

func quiesced(q sent[wire.EnvironmentQuiesce], accepted bool, code string) wire.EnvironmentQuiesced {
	return wire.EnvironmentQuiesced{EnvironmentID: q.P.EnvironmentID, SuspendID: q.P.SuspendID, Accepted: accepted, ErrorCode: code}
}

// TestFencingQuiesceThenResume: the accepted quiesce fences the device
// from selection; after the Runtime closed the connection and came back,
// the resume lifts it and the queued Turn is prepared.
func TestFencingQuiesceThenResume(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	sid, q := h.quiesce("d1", "env-1")
	require.Equal(t, core.ConnID(1), q.Conn)
	require.Equal(t, core.SuspensionQuiescing, h.suspension(sid).State)
	h.frame(1, q.ID, quiesced(q, true, ""))
	require.Equal(t, core.SuspensionQuiesced, h.suspension(sid).State)
	h.step(core.ConnClosed{Conn: 1, Reason: "quiesced"})

	h.connect("d1", 2, baseCaps())
	session := h.session(defaultAgent())
	h.submit(session, "x")
	require.Empty(t, sends[wire.ExecutionPrepare](h.last), "a fenced device is not selected")

	r := h.api(core.ResumeEnvironment{Call: "r", SuspendID: sid})
	require.NoError(t, r.Err)
	res := one[wire.EnvironmentResume](t, h.last)
	require.Equal(t, core.ConnID(2), res.Conn)
	require.Equal(t, wire.EnvironmentResume{EnvironmentID: "env-1", SuspendID: sid}, res.P)
	require.True(t, res.ID != q.ID, "every request has its own Envelope ID")
	effs := h.frame(2, res.ID, wire.EnvironmentResumed{EnvironmentID: "env-1", SuspendID: sid, Accepted: true})
	require.Equal(t, core.SuspensionResumed, h.suspension(sid).State)
	require.Len(t, sends[wire.ExecutionPrepare](effs), 1, "the device is selected again: %v", describeAll(effs))

	r = h.api(core.ResumeEnvironment{Call: "again", SuspendID: sid, Rollback: true})
	require.ErrorIs(t, r.Err, core.ErrSuspensionTerminal)
	require.Empty(t, sends[wire.EnvironmentResume](h.last), "a resumed suspension is never resumed again")
}

// TestFencingRepliesThatProveNothing: a reply of the wrong type, with IDs
// not echoed, accepted with a code, on another connection or another
// Envelope ID leaves the request waiting; its timeout makes it unknown and
// the resume then carries rollback.
func TestFencingRepliesThatProveNothing(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	h.connect("d2", 2, baseCaps())
	sid, q := h.quiesce("d1", "env-1")
	bad := []struct {
		conn core.ConnID
		id   string
		p    wire.Payload
	}{
		{1, q.ID, wire.EnvironmentResumed{EnvironmentID: "env-1", SuspendID: sid, Accepted: true}},
		{1, q.ID, wire.EnvironmentQuiesced{EnvironmentID: "env-2", SuspendID: sid, Accepted: true}},
		{1, q.ID, wire.EnvironmentQuiesced{EnvironmentID: "env-1", SuspendID: "sus-9", Accepted: true}},
		{1, q.ID, wire.EnvironmentQuiesced{EnvironmentID: "env-1", SuspendID: sid, Accepted: true, ErrorCode: "resource_busy"}},
		{2, q.ID, quiesced(q, true, "")},
		{1, "other", quiesced(q, true, "")},
	}
	for _, b := range bad {
		h.frame(b.conn, b.id, b.p)
		require.Equal(t, core.SuspensionQuiescing, h.suspension(sid).State, "%+v", b)
	}
	h.fire(core.TimerID("fence-reply:" + q.ID))
	require.Equal(t, core.SuspensionQuiesceUnknown, h.suspension(sid).State)
	h.frame(1, q.ID, quiesced(q, true, ""))
	require.Equal(t, core.SuspensionQuiesceUnknown, h.suspension(sid).State, "a late reply is not read")

	r := h.api(core.ResumeEnvironment{Call: "r", SuspendID: sid})
	require.NoError(t, r.Err)
	res := one[wire.EnvironmentResume](t, h.last)
	require.True(t, res.P.Rollback, "after an uncertain quiesce the resume carries rollback")
}

func TestFencingRefusals(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	sid, q := h.quiesce("d1", "env-1")
	h.frame(1, q.ID, quiesced(q, false, "resource_busy"))
	rec := h.suspension(sid)
	require.Equal(t, core.SuspensionRefused, rec.State)
	require.Equal(t, "resource_busy", rec.ErrorCode)
	require.ErrorIs(t, h.api(core.ResumeEnvironment{Call: "r", SuspendID: sid}).Err, core.ErrSuspensionTerminal)

	sid, q = h.quiesce("d1", "env-1") // a refused suspension no longer holds the environment
	h.frame(1, q.ID, quiesced(q, true, ""))
	require.NoError(t, h.api(core.ResumeEnvironment{Call: "r2", SuspendID: sid}).Err)
	res := one[wire.EnvironmentResume](t, h.last)
	h.frame(1, res.ID, wire.EnvironmentResumed{EnvironmentID: "env-1", SuspendID: sid, ErrorCode: "not_suspended"})
	rec = h.suspension(sid)
	require.Equal(t, core.SuspensionQuiesced, rec.State, "a refused resume returns to the prior state")
	require.Equal(t, "not_suspended", rec.ErrorCode)
}

func TestFencingAPIRejections(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	writes := h.st.Writes()
	for _, c := range []struct {
		ev   core.Event
		want error
	}{
		{core.QuiesceEnvironment{Call: "a", Device: "nope", EnvironmentID: "e"}, core.ErrDeviceNotConnected},
		{core.QuiesceEnvironment{Call: "b", Device: "d1"}, core.ErrInvalidConfig},
		{core.QuiesceEnvironment{Call: "c", EnvironmentID: "e"}, core.ErrInvalidConfig},
		{core.ResumeEnvironment{Call: "d", SuspendID: "sus-1"}, core.ErrUnknownSuspension},
		{core.ReadSuspension{Call: "e", SuspendID: "sus-1"}, core.ErrUnknownSuspension},
	} {
		require.ErrorIs(t, h.api(c.ev).Err, c.want)
		require.Empty(t, sends[wire.EnvironmentQuiesce](h.last))
	}
	require.Equal(t, writes, h.st.Writes(), "rejected calls changed durable state")

	sid, _ := h.quiesce("d1", "env-1")
	require.ErrorIs(t, h.api(core.QuiesceEnvironment{Call: "f", Device: "d1", EnvironmentID: "env-1"}).Err, core.ErrSuspensionConflict)
	require.ErrorIs(t, h.api(core.ResumeEnvironment{Call: "g", SuspendID: sid}).Err, core.ErrSuspensionPending)
	h.quiesce("d1", "env-2")
	r := h.api(core.QuiesceEnvironment{Call: "h", Device: "d1", EnvironmentID: "env-3"})
	require.ErrorIs(t, r.Err, core.ErrSuspensionsInFlight)
	require.Empty(t, sends[wire.EnvironmentQuiesce](h.last), "at most two in flight per connection")

	plain := struct{ core.Store }{store.NewMemory()}
	h2 := &rig{t: t, m: core.New(testConfig(), plain), now: t0}
	h2.connect("d1", 1, baseCaps())
	require.ErrorIs(t, h2.api(core.QuiesceEnvironment{Call: "x", Device: "d1", EnvironmentID: "e"}).Err, core.ErrFencingUnavailable)
}

// TestFencingConnectionLossAndRestart: requests in flight when the
// connection or Core is lost become unknown durably; a restart sends
// nothing and never resumes on its own.
func TestFencingConnectionLossAndRestart(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	a, qa := h.quiesce("d1", "env-a")
	h.frame(1, qa.ID, quiesced(qa, true, ""))
	require.NoError(t, h.api(core.ResumeEnvironment{Call: "r", SuspendID: a}).Err)
	h.step(core.ConnClosed{Conn: 1, Reason: "lost"})
	require.Equal(t, core.SuspensionResumeUnknown, h.suspension(a).State)

	h.connect("d1", 2, baseCaps())
	b, _ := h.quiesce("d1", "env-b")
	c, qc := h.quiesce("d1", "env-c")
	h.frame(2, qc.ID, quiesced(qc, true, ""))
	require.NoError(t, h.api(core.ResumeEnvironment{Call: "rc", SuspendID: c}).Err)
	resC := one[wire.EnvironmentResume](t, h.last)
	h.frame(2, resC.ID, wire.EnvironmentResumed{EnvironmentID: "env-c", SuspendID: c, Accepted: true})

	h.m = core.Restart(testConfig(), h.st)
	require.Equal(t, core.SuspensionQuiesceUnknown, h.suspension(b).State)
	require.Equal(t, core.SuspensionResumeUnknown, h.suspension(a).State)
	require.Equal(t, core.SuspensionResumed, h.suspension(c).State)
	h.connect("d1", 3, baseCaps())
	require.Empty(t, sends[wire.EnvironmentResume](h.last), "a restart resumes nothing on its own")
	require.ErrorIs(t, h.api(core.ResumeEnvironment{Call: "rc2", SuspendID: c}).Err, core.ErrSuspensionTerminal)

	require.NoError(t, h.api(core.ResumeEnvironment{Call: "ra", SuspendID: a}).Err)
	res := one[wire.EnvironmentResume](t, h.last)
	require.True(t, res.P.Rollback, "an unknown resume is retried with rollback")
	require.Equal(t, a+".r3", res.ID, "attempts continue from the durable count")
}
