package daemon

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/wire"
)

func quiesce(env, suspend string) wire.EnvironmentQuiesce {
	return wire.EnvironmentQuiesce{EnvironmentID: env, SuspendID: suspend}
}

func resume(env, suspend string, rollback bool) wire.EnvironmentResume {
	return wire.EnvironmentResume{EnvironmentID: env, SuspendID: suspend, Rollback: rollback}
}

// fenceReply returns the single reply of the last step, checks it is a
// valid frame on id and reports whether the transport was closed after it.
func fenceReply[P wire.Payload](t *testing.T, r *rig, id string) (P, bool) {
	t.Helper()
	var zero P
	var got []P
	closed := false
	for _, e := range r.out {
		switch v := e.(type) {
		case Send:
			p, ok := v.Frame.Payload.(P)
			if !ok || v.Frame.ID != id {
				require.Fail(t, fmt.Sprintf("unexpected send %s", v.Describe()))
			}
			_, err := wire.Encode(v.Frame)
			require.NoErrorf(t, err, "reply is not a valid frame: %v", err)
			require.False(t, closed, "reply sent after the close")
			got = append(got, p)
		case CloseConn:
			require.Equalf(t, r.gen, v.Conn, "close %+v", v)
			require.Equalf(t, "quiesced", v.Reason, "close %+v", v)
			closed = true
		}
	}
	if len(got) != 1 {
		require.Fail(t, fmt.Sprintf("want one reply, got %d: %s", len(got), describeAll(r.out)))
		return zero, false
	}
	return got[0], closed
}

func TestQuiesceAcceptedClosesAndFencesNewWork(t *testing.T) {
	r := newRig(t)
	r.recv("q1", quiesce("env", "s1"))
	rep, closed := fenceReply[wire.EnvironmentQuiesced](t, r, "q1")
	require.Equal(t, wire.EnvironmentQuiesced{EnvironmentID: "env", SuspendID: "s1", Accepted: true}, rep, "accepted, IDs echoed, no code")
	require.True(t, closed, "a successful quiesce closes the connection")
	require.NoError(t, rep.ValidateAgainst(quiesce("env", "s1")), "reply validates against the request")

	r.step(ConnClosed{Conn: r.gen})
	r.connect() // the fence survives the reconnect
	r.recv("p1", prepareFor("s1"))
	st := oneStatus(r)
	require.Equal(t, wire.StateRejected, st.State, "quiesced Runtime refuses new work")
	require.Equal(t, CodeResourceUnavailable, st.ErrorCode, "code")
	require.Empty(t, r.calls(), "no native call")

	r.recv("r1", resume("env", "s1", false))
	res, closed := fenceReply[wire.EnvironmentResumed](t, r, "r1")
	require.Equal(t, wire.EnvironmentResumed{EnvironmentID: "env", SuspendID: "s1", Accepted: true}, res, "resumed")
	require.False(t, closed, "resume keeps the connection")
	r.recv("p2", prepareFor("s1"))
	require.Equal(t, wire.StatePreparing, oneStatus(r).State, "work accepted after resume")
}

func TestQuiesceRetryAndFencing(t *testing.T) {
	r := newRig(t)
	r.recv("q1", quiesce("env", "s1"))
	r.recv("q1", quiesce("env", "s1"))
	rep, closed := fenceReply[wire.EnvironmentQuiesced](t, r, "q1")
	require.True(t, rep.Accepted && closed, "the same quiesce repeated is accepted again")

	r.recv("q2", quiesce("env", "s2"))
	rep, closed = fenceReply[wire.EnvironmentQuiesced](t, r, "q2")
	require.Equal(t, wire.EnvironmentQuiesced{EnvironmentID: "env", SuspendID: "s2", ErrorCode: CodeResourceBusy}, rep, "another suspension is refused")
	require.False(t, closed, "a refused quiesce keeps the connection")

	r.recv("r2", resume("env", "s2", false))
	res, _ := fenceReply[wire.EnvironmentResumed](t, r, "r2")
	require.Equal(t, CodeNotSuspended, res.ErrorCode, "a stale suspend_id cannot resume")
	r.recv("r3", resume("other", "s1", true))
	res, _ = fenceReply[wire.EnvironmentResumed](t, r, "r3")
	require.Equal(t, CodeNotSuspended, res.ErrorCode, "another environment cannot resume, rollback or not")
	require.True(t, r.m.quiesced(), "still quiesced")

	r.recv("r1", resume("env", "s1", false))
	res, _ = fenceReply[wire.EnvironmentResumed](t, r, "r1")
	require.True(t, res.Accepted, "the quiescing suspension resumes")
	r.recv("r1", resume("env", "s1", false))
	res, _ = fenceReply[wire.EnvironmentResumed](t, r, "r1")
	require.Equal(t, wire.EnvironmentResumed{EnvironmentID: "env", SuspendID: "s1", Accepted: true}, res, "a repeated resume is accepted without effect")
}

func TestResumeWithoutQuiesce(t *testing.T) {
	r := newRig(t)
	r.recv("r1", resume("env", "s1", false))
	res, _ := fenceReply[wire.EnvironmentResumed](t, r, "r1")
	require.Equal(t, wire.EnvironmentResumed{EnvironmentID: "env", SuspendID: "s1", ErrorCode: CodeNotSuspended}, res, "not suspended")
	r.recv("r2", resume("env", "s1", true))
	res, _ = fenceReply[wire.EnvironmentResumed](t, r, "r2")
	require.Equal(t, wire.EnvironmentResumed{EnvironmentID: "env", SuspendID: "s1", Accepted: true}, res, "rollback allows a no-op resume")
	require.False(t, r.m.quiesced(), "nothing fenced")
}

func TestQuiesceRefusedWhileWorkIsActive(t *testing.T) {
	r := newRig(t)
	r.ready("p1", "s1")
	before := r.m.Snapshot()
	r.recv("q1", quiesce("env", "s1"))
	rep, closed := fenceReply[wire.EnvironmentQuiesced](t, r, "q1")
	require.Equal(t, CodeResourceBusy, rep.ErrorCode, "a ready admission is active work")
	require.False(t, closed || rep.Accepted, "nothing fenced")
	if after := r.m.Snapshot(); !reflect.DeepEqual(before, after) {
		require.Fail(t, "refusal changed state")
	}

	r2 := newRig(t)
	r2.started("p1", "s1", "run")
	r2.recv("q1", quiesce("env", "s1"))
	rep, _ = fenceReply[wire.EnvironmentQuiesced](t, r2, "q1")
	require.Equal(t, CodeResourceBusy, rep.ErrorCode, "a running Turn is active work")
	require.False(t, r2.m.quiesced(), "not fenced")
}

func TestFencingRequestWithoutIdentityIsDropped(t *testing.T) {
	r := newRig(t)
	for _, c := range []struct {
		id string
		p  wire.Payload
	}{
		{"", quiesce("env", "s")},
		{"q", quiesce("", "s")},
		{"q", quiesce("env", "")},
		{"r", resume("env", "", true)},
		{"", resume("env", "s", true)},
	} {
		if out := r.recv(c.id, c.p); len(out) != 0 {
			require.Fail(t, fmt.Sprintf("%+v: want no effect, got %s", c, describeAll(out)))
		}
	}
	require.False(t, r.m.quiesced(), "nothing fenced")
}
