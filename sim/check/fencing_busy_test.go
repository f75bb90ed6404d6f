package check

import (
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

func TestQuiesceBusyOracleCatchesAQuiesceAcceptedOverAnOpenTransfer(t *testing.T) {
	l, w := newFeed()
	w.open(1, "d1")
	w.coreSends(1, "d1", beginFrame(xferID, 3))
	w.deviceSends(1, "d1", resultFrame(xferID, wire.RuntimePrepareResult{Outcome: wire.OutcomeReady}))
	w.coreSends(1, "d1", quiesceFrame("q1", "e", "s1"))
	w.deviceSends(1, "d1", quiescedFrame("q1", "e", "s1", true, ""))
	if vs := checksNamed(l.AfterStep(1), "fencing_quiesce_busy"); len(vs) != 1 {
		t.Fatalf("violations: %v", vs)
	}
}

func TestQuiesceBusyOracleAcceptsAQuiesceAfterTheTransferEnded(t *testing.T) {
	l, w := newFeed()
	w.open(1, "d1")
	w.coreSends(1, "d1", beginFrame(xferID, 3))
	w.deviceSends(1, "d1", resultFrame(xferID, wire.RuntimePrepareResult{Outcome: wire.OutcomeReady}))
	w.coreSends(1, "d1", chunkFrame(xferID, 0, "abc"))
	w.deviceSends(1, "d1", resultFrame(xferID, wire.RuntimePrepareResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.TransferInvalidRequest}))
	w.coreSends(1, "d1", quiesceFrame("q1", "e", "s1"))
	w.deviceSends(1, "d1", quiescedFrame("q1", "e", "s1", true, ""))
	if vs := checksNamed(l.AfterStep(1), "fencing"); len(vs) != 0 {
		t.Fatalf("violations: %v", vs)
	}
}

func TestQuiesceBusyOracleCatchesAQuiesceAcceptedOverAnAdmission(t *testing.T) {
	l, w := newFeed()
	w.open(1, "d1")
	w.coreSends(1, "d1", prepareFrame("p1", "s", goodConfig("s")))
	w.deviceSends(1, "d1", statusFrame("p1", wire.PreparationStatus{Handle: "h", ExecutorID: "x", Revision: 1, State: wire.StatePreparing}))
	w.coreSends(1, "d1", quiesceFrame("q1", "e", "s1"))
	w.deviceSends(1, "d1", quiescedFrame("q1", "e", "s1", true, ""))
	if vs := checksNamed(l.AfterStep(1), "fencing_quiesce_busy"); len(vs) != 1 {
		t.Fatalf("violations: %v", vs)
	}
}

func TestQuiesceBusyOracleAcceptsTheRefusalOfABusyQuiesce(t *testing.T) {
	l, w := newFeed()
	w.open(1, "d1")
	w.coreSends(1, "d1", prepareFrame("p1", "s", goodConfig("s")))
	w.deviceSends(1, "d1", statusFrame("p1", wire.PreparationStatus{Handle: "h", ExecutorID: "x", Revision: 1, State: wire.StatePreparing}))
	w.coreSends(1, "d1", quiesceFrame("q1", "e", "s1"))
	w.deviceSends(1, "d1", quiescedFrame("q1", "e", "s1", false, "resource_busy"))
	if vs := checksNamed(l.AfterStep(1), "fencing"); len(vs) != 0 {
		t.Fatalf("violations: %v", vs)
	}
}

func TestResumeOtherOracleCatchesAForeignResumeLiftingTheFence(t *testing.T) {
	l, w := fencedFeed()
	w.forgedDelivery(2, "d1", resumeFrame("r0", "e", "stray", false))
	w.deviceSends(2, "d1", resumedFrame("r0", "e", "stray", true, ""))
	if vs := checksNamed(l.AfterStep(1), "fencing_resume_other"); len(vs) != 1 {
		t.Fatalf("violations: %v", vs)
	}
}

func TestResumeOtherOracleAcceptsTheRefusalOfAForeignResume(t *testing.T) {
	l, w := fencedFeed()
	w.forgedDelivery(2, "d1", resumeFrame("r0", "e", "stray", false))
	w.deviceSends(2, "d1", resumedFrame("r0", "e", "stray", false, "not_suspended"))
	w.coreSends(2, "d1", resumeFrame("r1", "e", "s1", false))
	w.deviceSends(2, "d1", resumedFrame("r1", "e", "s1", true, ""))
	if vs := checksNamed(l.AfterStep(1), "fencing"); len(vs) != 0 {
		t.Fatalf("violations: %v", vs)
	}
}

func TestQuiesceClosesOracleCatchesAFrameAfterAnAcceptedQuiesce(t *testing.T) {
	l, w := newFeed()
	w.open(1, "d1")
	w.coreSends(1, "d1", quiesceFrame("q1", "e", "s1"))
	w.deviceSends(1, "d1", quiescedFrame("q1", "e", "s1", true, ""))
	w.heartbeat(1, "d1")
	if vs := checksNamed(l.AfterStep(1), "fencing_quiesce_closes"); len(vs) != 1 {
		t.Fatalf("violations: %v", vs)
	}
}
