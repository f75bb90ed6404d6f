package check

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

func checksNamed(vs []Violation, prefix string) []Violation {
	var out []Violation
	for _, v := range vs {
		if strings.HasPrefix(v.Check, prefix) {
			out = append(out, v)
		}
	}
	return out
}

func newFeed() (*Ledger, wireFeed) {
	var now int64
	l := NewLedger()
	return l, wireFeed{l: l, now: &now}
}

func quiesceFrame(id, env, suspend string) wire.Frame {
	return wire.Frame{ID: id, Payload: wire.EnvironmentQuiesce{EnvironmentID: env, SuspendID: suspend}}
}

func resumeFrame(id, env, suspend string, rollback bool) wire.Frame {
	return wire.Frame{ID: id, Payload: wire.EnvironmentResume{EnvironmentID: env, SuspendID: suspend, Rollback: rollback}}
}

func quiescedFrame(id, env, suspend string, accepted bool, code string) wire.Frame {
	return wire.Frame{ID: id, Payload: wire.EnvironmentQuiesced{EnvironmentID: env, SuspendID: suspend, Accepted: accepted, ErrorCode: code}}
}

func resumedFrame(id, env, suspend string, accepted bool, code string) wire.Frame {
	return wire.Frame{ID: id, Payload: wire.EnvironmentResumed{EnvironmentID: env, SuspendID: suspend, Accepted: accepted, ErrorCode: code}}
}

func TestFencingOracleAcceptsTheProtocol(t *testing.T) {
	l, w := fencedFeed()
	w.coreSends(2, "d1", prepareFrame("p1", "s", goodConfig("s")))
	w.deviceSends(2, "d1", statusFrame("p1", wire.PreparationStatus{State: wire.StateRejected, ErrorCode: "resource_unavailable", Operation: wire.TypeExecutionPrepare}))
	w.coreSends(2, "d1", resumeFrame("r1", "e", "s1", false))
	w.deviceSends(2, "d1", resumedFrame("r1", "e", "s1", true, ""))
	w.coreSends(2, "d1", prepareFrame("p2", "s", goodConfig("s")))
	w.deviceSends(2, "d1", statusFrame("p2", wire.PreparationStatus{Handle: "h", ExecutorID: "x", Revision: 1, State: wire.StatePreparing}))
	if vs := checksNamed(l.AfterStep(1), "fencing"); len(vs) != 0 {
		t.Fatalf("violations: %v", vs)
	}
	if l.marks[MarkQuiesceAccepted] != 1 || l.marks[MarkResumeAccepted] != 1 {
		t.Fatalf("marks %v", l.marks)
	}
}

func TestFencingOracleCatchesBadReplies(t *testing.T) {
	rows := []struct {
		name  string
		reply wire.Frame
		part  string
	}{
		{"wrong type", resumedFrame("q1", "e", "s1", true, ""), "reply type does not match"},
		{"environment not echoed", quiescedFrame("q1", "other", "s1", true, ""), "does not echo both IDs"},
		{"suspend not echoed", quiescedFrame("q1", "e", "s9", false, CodeBusyForTest), "does not echo both IDs"},
		{"accepted with a code", quiescedFrame("q1", "e", "s1", true, "resource_busy"), "accepts q1 with code"},
		{"refused without a code", quiescedFrame("q1", "e", "s1", false, ""), "refuses q1 without a code"},
		{"unknown request", quiescedFrame("q9", "e", "s1", true, ""), "no request of that ID"},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			l, w := newFeed()
			w.open(1, "d1")
			w.coreSends(1, "d1", quiesceFrame("q1", "e", "s1"))
			w.deviceSends(1, "d1", row.reply)
			vs := checksNamed(l.AfterStep(1), "fencing_reply")
			if len(vs) != 1 || !strings.Contains(vs[0].Message, row.part) {
				t.Fatalf("violations %v, want one fencing_reply with %q", vs, row.part)
			}
		})
	}
}

const CodeBusyForTest = "resource_busy"

func TestFencingOracleCatchesWorkWhileQuiesced(t *testing.T) {
	l, w := newFeed()
	w.open(1, "d1")
	w.coreSends(1, "d1", quiesceFrame("q1", "e", "s1"))
	w.deviceSends(1, "d1", quiescedFrame("q1", "e", "s1", true, ""))
	w.coreSends(1, "d1", prepareFrame("p1", "s", goodConfig("s")))
	w.deviceSends(1, "d1", statusFrame("p1", wire.PreparationStatus{Handle: "h", ExecutorID: "x", Revision: 1, State: wire.StatePreparing}))
	vs := checksNamed(l.AfterStep(1), "fencing_quiesced_work")
	if len(vs) != 1 {
		t.Fatalf("violations %v", vs)
	}
	// A daemon restart lifts the fence: the process that held it is gone.
	l.NodeCrashed(*w.now, "d1")
	w.open(2, "d1")
	w.coreSends(2, "d1", prepareFrame("p2", "s", goodConfig("s")))
	w.deviceSends(2, "d1", statusFrame("p2", wire.PreparationStatus{Handle: "h", ExecutorID: "x", Revision: 1, State: wire.StatePreparing}))
	if vs := checksNamed(l.AfterStep(2), "fencing_quiesced_work"); len(vs) != 0 {
		t.Fatalf("violations after restart %v", vs)
	}
}

func TestFencingOracleCatchesDoubleResumeAndTooManyInFlight(t *testing.T) {
	l, w := newFeed()
	w.open(1, "d1")
	w.coreSends(1, "d1", resumeFrame("r1", "e", "s1", true))
	w.deviceSends(1, "d1", resumedFrame("r1", "e", "s1", true, ""))
	w.coreSends(1, "d1", resumeFrame("r2", "e", "s1", true))
	if vs := checksNamed(l.AfterStep(1), "fencing_double_resume"); len(vs) != 1 {
		t.Fatalf("double resume: %v", vs)
	}
	w.coreSends(1, "d1", quiesceFrame("q1", "a", "s2"))
	w.coreSends(1, "d1", quiesceFrame("q2", "b", "s3")) // r2, q1, q2 unanswered
	vs := checksNamed(l.AfterStep(2), "fencing_in_flight")
	if len(vs) != 1 || !strings.Contains(vs[0].Message, "3 fencing requests") {
		t.Fatalf("in flight: %v", vs)
	}
	w.coreSends(1, "d1", quiesceFrame("q3", "", "s4"))
	if vs := checksNamed(l.AfterStep(3), "fencing_in_flight"); len(vs) != 2 {
		t.Fatalf("missing IDs: %v", vs)
	}
}

// forgedDelivery reports a hostile proxy's copy of a Core frame reaching
// device (Core never sent it).
func (w wireFeed) forgedDelivery(conn uint64, device string, f wire.Frame) {
	w.l.Wire(WireEvent{At: w.tick(), Kind: WireDelivered, Conn: conn, From: CoreNode, To: device, Raw: []byte("x"), Frame: f, Forged: true})
}

func TestFencingOracleJudgesRepliesByWhatReachedTheDaemon(t *testing.T) {
	t.Run("a replayed copy is answered again", func(t *testing.T) {
		l, w := newFeed()
		w.open(1, "d1")
		w.coreSends(1, "d1", quiesceFrame("q1", "e", "s1"))
		w.deviceSends(1, "d1", quiescedFrame("q1", "e", "s1", false, CodeBusyForTest))
		w.forgedDelivery(1, "d1", quiesceFrame("q1", "e", "s1"))
		w.deviceSends(1, "d1", quiescedFrame("q1", "e", "s1", false, CodeBusyForTest))
		if vs := checksNamed(l.AfterStep(1), "fencing"); len(vs) != 0 {
			t.Fatalf("violations: %v", vs)
		}
	})
	t.Run("a request in flight when Core closed the connection", func(t *testing.T) {
		l, w := newFeed()
		w.open(1, "d1")
		f := quiesceFrame("q1", "e", "s1")
		w.l.Wire(WireEvent{At: w.tick(), Kind: WireSent, Conn: 1, From: CoreNode, To: "d1", Raw: []byte("x"), Frame: f})
		w.l.Wire(WireEvent{At: w.tick(), Kind: WireClosed, Conn: 1, From: CoreNode, To: CoreNode, Reason: "replaced by a newer connection"})
		w.l.Wire(WireEvent{At: w.tick(), Kind: WireDelivered, Conn: 1, From: CoreNode, To: "d1", Raw: []byte("x"), Frame: f})
		w.l.Wire(WireEvent{At: w.tick(), Kind: WireSent, Conn: 1, From: "d1", To: CoreNode, Raw: []byte("x"), Frame: quiescedFrame("q1", "e", "s1", false, CodeBusyForTest)})
		if vs := checksNamed(l.AfterStep(1), "fencing"); len(vs) != 0 {
			t.Fatalf("violations: %v", vs)
		}
	})
	t.Run("each delivery is answered once", func(t *testing.T) {
		l, w := newFeed()
		w.open(1, "d1")
		w.coreSends(1, "d1", quiesceFrame("q1", "e", "s1"))
		w.deviceSends(1, "d1", quiescedFrame("q1", "e", "s1", false, CodeBusyForTest))
		w.deviceSends(1, "d1", quiescedFrame("q1", "e", "s1", false, CodeBusyForTest))
		vs := checksNamed(l.AfterStep(1), "fencing_reply")
		if len(vs) != 1 || !strings.Contains(vs[0].Message, "no request of that ID") {
			t.Fatalf("violations: %v", vs)
		}
	})
	t.Run("a forged copy's IDs are the ones to echo", func(t *testing.T) {
		l, w := newFeed()
		w.open(1, "d1")
		w.forgedDelivery(1, "d1", quiesceFrame("x-q", "e2", "s2"))
		w.deviceSends(1, "d1", quiescedFrame("x-q", "e", "s1", false, CodeBusyForTest))
		vs := checksNamed(l.AfterStep(1), "fencing_reply")
		if len(vs) != 1 || !strings.Contains(vs[0].Message, "does not echo both IDs") {
			t.Fatalf("violations: %v", vs)
		}
	})
	t.Run("a copy on another connection is no request here", func(t *testing.T) {
		l, w := newFeed()
		w.open(1, "d1")
		w.open(2, "d1")
		w.forgedDelivery(2, "d1", quiesceFrame("q1", "e", "s1"))
		w.deviceSends(1, "d1", quiescedFrame("q1", "e", "s1", false, CodeBusyForTest))
		if vs := checksNamed(l.AfterStep(1), "fencing_reply"); len(vs) != 1 {
			t.Fatalf("violations: %v", vs)
		}
	})
}

// TestFencingOracleForgetsRequestsPastTheirReplyWait: a request whose 30 s
// reply wait ended is no longer in flight, and an accepted resume reaching
// Core after the wait does not forbid another resume; within the wait the
// same frames are violations.
func TestFencingOracleForgetsRequestsPastTheirReplyWait(t *testing.T) {
	wait := int64(30 * time.Second)
	for _, late := range []bool{false, true} {
		l, w := newFeed()
		w.open(1, "d1")
		w.coreSends(1, "d1", quiesceFrame("q1", "e", "s1"))
		w.coreSends(1, "d1", resumeFrame("r1", "e", "s2", true))
		if late {
			*w.now += wait
		}
		w.deviceSends(1, "d1", resumedFrame("r1", "e", "s2", true, ""))
		w.coreSends(1, "d1", resumeFrame("r2", "e", "s2", true))
		w.coreSends(1, "d1", quiesceFrame("q2", "e2", "s3"))
		vs := checksNamed(l.AfterStep(1), "fencing")
		if late {
			// q1's and r1's waits ended: only r2 and q2 are in flight
			if len(vs) != 0 {
				t.Fatalf("late: %v", vs)
			}
			continue
		}
		// in time: r2 resumes s2 again, and q1, r2, q2 are in flight
		if len(vs) != 2 || vs[0].Check != "fencing_double_resume" || vs[1].Check != "fencing_in_flight" {
			t.Fatalf("in time: %v", vs)
		}
	}
}

// TestFencingOracleCatchesWriteBeginWhileQuiesced: a fenced daemon answers
// a workspace_write begin that reached it after its quiesce only with a
// refusal (the refusal is the rule at work).
func TestFencingOracleCatchesWriteBeginWhileQuiesced(t *testing.T) {
	l, w := newFeed()
	w.open(1, "d1")
	w.coreSends(1, "d1", quiesceFrame("q1", "e", "s1"))
	w.deviceSends(1, "d1", quiescedFrame("q1", "e", "s1", true, ""))
	begin := wire.WorkspaceWrite{Step: wire.StepBegin, EnvironmentID: "e", SessionID: "s", Path: "f", SizeBytes: 1}
	w.coreSends(1, "d1", wire.Frame{ID: "m-1", Payload: begin})
	w.deviceSends(1, "d1", wire.Frame{ID: "m-1", Payload: wire.WorkspaceWriteResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.WriteResourceUnavail}})
	if vs := checksNamed(l.AfterStep(1), "fencing_quiesced_work"); len(vs) != 0 {
		t.Fatalf("a refusal is lawful: %v", vs)
	}
	if !slices.ContainsFunc(l.Marks(), func(m MarkCount) bool { return m.Mark == MarkQuiescedWriteRefused }) {
		t.Fatalf("refusal not marked: %v", l.Marks())
	}
	w.coreSends(1, "d1", wire.Frame{ID: "m-2", Payload: begin})
	w.deviceSends(1, "d1", wire.Frame{ID: "m-2", Payload: wire.WorkspaceWriteResult{Outcome: wire.OutcomeReady}})
	vs := checksNamed(l.AfterStep(2), "fencing_quiesced_work")
	if len(vs) != 1 || !strings.Contains(vs[0].Message, "new workspace write m-2") {
		t.Fatalf("violations %v", vs)
	}
}
