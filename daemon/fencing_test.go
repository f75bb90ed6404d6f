package daemon

import (
	"reflect"
	"testing"

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
				t.Fatalf("unexpected send %s", v.Describe())
			}
			if _, err := wire.Encode(v.Frame); err != nil {
				t.Fatalf("reply is not a valid frame: %v", err)
			}
			if closed {
				t.Fatal("reply sent after the close")
			}
			got = append(got, p)
		case CloseConn:
			if v.Conn != r.gen || v.Reason != "quiesced" {
				t.Fatalf("close %+v", v)
			}
			closed = true
		}
	}
	if len(got) != 1 {
		t.Fatalf("want one reply, got %d: %s", len(got), describeAll(r.out))
		return zero, false
	}
	return got[0], closed
}

func TestQuiesceAcceptedClosesAndFencesNewWork(t *testing.T) {
	r := newRig(t)
	r.recv("q1", quiesce("env", "s1"))
	rep, closed := fenceReply[wire.EnvironmentQuiesced](t, r, "q1")
	eq(t, rep, wire.EnvironmentQuiesced{EnvironmentID: "env", SuspendID: "s1", Accepted: true}, "accepted, IDs echoed, no code")
	eq(t, closed, true, "a successful quiesce closes the connection")
	eq(t, rep.ValidateAgainst(quiesce("env", "s1")), nil, "reply validates against the request")

	r.step(ConnClosed{Conn: r.gen})
	r.connect() // the fence survives the reconnect
	r.recv("p1", prepareFor("s1"))
	st := oneStatus(r)
	eq(t, st.State, wire.StateRejected, "quiesced Runtime refuses new work")
	eq(t, st.ErrorCode, CodeResourceUnavailable, "code")
	eq(t, len(r.calls()), 0, "no native call")

	r.recv("r1", resume("env", "s1", false))
	res, closed := fenceReply[wire.EnvironmentResumed](t, r, "r1")
	eq(t, res, wire.EnvironmentResumed{EnvironmentID: "env", SuspendID: "s1", Accepted: true}, "resumed")
	eq(t, closed, false, "resume keeps the connection")
	r.recv("p2", prepareFor("s1"))
	eq(t, oneStatus(r).State, wire.StatePreparing, "work accepted after resume")
}

func TestQuiesceRetryAndFencing(t *testing.T) {
	r := newRig(t)
	r.recv("q1", quiesce("env", "s1"))
	r.recv("q1", quiesce("env", "s1"))
	rep, closed := fenceReply[wire.EnvironmentQuiesced](t, r, "q1")
	eq(t, rep.Accepted && closed, true, "the same quiesce repeated is accepted again")

	r.recv("q2", quiesce("env", "s2"))
	rep, closed = fenceReply[wire.EnvironmentQuiesced](t, r, "q2")
	eq(t, rep, wire.EnvironmentQuiesced{EnvironmentID: "env", SuspendID: "s2", ErrorCode: CodeResourceBusy}, "another suspension is refused")
	eq(t, closed, false, "a refused quiesce keeps the connection")

	r.recv("r2", resume("env", "s2", false))
	res, _ := fenceReply[wire.EnvironmentResumed](t, r, "r2")
	eq(t, res.ErrorCode, CodeNotSuspended, "a stale suspend_id cannot resume")
	r.recv("r3", resume("other", "s1", true))
	res, _ = fenceReply[wire.EnvironmentResumed](t, r, "r3")
	eq(t, res.ErrorCode, CodeNotSuspended, "another environment cannot resume, rollback or not")
	eq(t, r.m.quiesced(), true, "still quiesced")

	r.recv("r1", resume("env", "s1", false))
	res, _ = fenceReply[wire.EnvironmentResumed](t, r, "r1")
	eq(t, res.Accepted, true, "the quiescing suspension resumes")
	r.recv("r1", resume("env", "s1", false))
	res, _ = fenceReply[wire.EnvironmentResumed](t, r, "r1")
	eq(t, res, wire.EnvironmentResumed{EnvironmentID: "env", SuspendID: "s1", Accepted: true}, "a repeated resume is accepted without effect")
}

func TestResumeWithoutQuiesce(t *testing.T) {
	r := newRig(t)
	r.recv("r1", resume("env", "s1", false))
	res, _ := fenceReply[wire.EnvironmentResumed](t, r, "r1")
	eq(t, res, wire.EnvironmentResumed{EnvironmentID: "env", SuspendID: "s1", ErrorCode: CodeNotSuspended}, "not suspended")
	r.recv("r2", resume("env", "s1", true))
	res, _ = fenceReply[wire.EnvironmentResumed](t, r, "r2")
	eq(t, res, wire.EnvironmentResumed{EnvironmentID: "env", SuspendID: "s1", Accepted: true}, "rollback allows a no-op resume")
	eq(t, r.m.quiesced(), false, "nothing fenced")
}

func TestQuiesceRefusedWhileWorkIsActive(t *testing.T) {
	r := newRig(t)
	r.ready("p1", "s1")
	before := r.m.Snapshot()
	r.recv("q1", quiesce("env", "s1"))
	rep, closed := fenceReply[wire.EnvironmentQuiesced](t, r, "q1")
	eq(t, rep.ErrorCode, CodeResourceBusy, "a ready admission is active work")
	eq(t, closed || rep.Accepted, false, "nothing fenced")
	if after := r.m.Snapshot(); !reflect.DeepEqual(before, after) {
		t.Fatalf("refusal changed state")
	}

	r2 := newRig(t)
	r2.started("p1", "s1", "run")
	r2.recv("q1", quiesce("env", "s1"))
	rep, _ = fenceReply[wire.EnvironmentQuiesced](t, r2, "q1")
	eq(t, rep.ErrorCode, CodeResourceBusy, "a running Turn is active work")
	eq(t, r2.m.quiesced(), false, "not fenced")
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
			t.Fatalf("%+v: want no effect, got %s", c, describeAll(out))
		}
	}
	eq(t, r.m.quiesced(), false, "nothing fenced")
}
