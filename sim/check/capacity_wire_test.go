package check

import (
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

func grant(w wireFeed, conn uint64, req, handle string) {
	w.deviceSends(conn, "d1", statusFrame(req, wire.PreparationStatus{ExecutorID: "e-" + req, Handle: handle, Revision: 1, State: wire.StatePreparing}))
}

func capacityLedger() (*Ledger, wireFeed) {
	var now int64
	l := NewLedger()
	w := wireFeed{l: l, now: &now}
	l.DeviceConfigured("d1", DeviceLimits{ActiveMax: 2, ExecutorsMax: 3})
	w.open(1, "d1")
	return l, w
}

func TestCapacityFromTheWire(t *testing.T) {
	// A third grant while two admissions are live exceeds the limit.
	l, w := capacityLedger()
	grant(w, 1, "p1", "h1")
	grant(w, 1, "p2", "h2")
	grant(w, 1, "p3", "h3")
	wantOnly(t, l, CheckCapacity, "while 3 preparations and executions are active (0 closing for their Turn) > 2")

	// Released admissions free their slot; a started Run holds it until the
	// Harness settles its native turn.
	l, w = capacityLedger()
	grant(w, 1, "p1", "h1")
	grant(w, 1, "p2", "h2")
	w.deviceSends(1, "d1", statusFrame("p1", wire.PreparationStatus{Handle: "h1", Revision: 2, State: wire.StateReleased}))
	l.TurnCreated(w.tick(), "d1", "t-2")
	w.deviceSends(1, "d1", statusFrame("p2", wire.PreparationStatus{Handle: "h2", Revision: 2, State: wire.StateStarted, RunID: "t-2"}))
	grant(w, 1, "p3", "h3")
	if vs := framesOnly(l.Violations()); len(vs) > 0 {
		t.Fatalf("freed slot judged: %v", vs)
	}
	grant(w, 1, "p4", "h4")
	wantOnly(t, l, CheckCapacity, "(0 closing for their Turn) > 2")
	l.TurnSettled(w.tick(), "t-2", NativeCompleted)

	// A lost connection retires its admissions; a status republished on
	// the next connection is no grant; a replacing connection retires the
	// old one's.
	l, w = capacityLedger()
	grant(w, 1, "p1", "h1")
	grant(w, 1, "p2", "h2")
	w.close(1, "d1")
	w.open(2, "d1")
	grant(w, 2, "p2", "h2") // republished
	grant(w, 2, "p3", "h3")
	w.open(3, "d1")
	grant(w, 3, "p4", "h4")
	grant(w, 3, "p5", "h5")
	// (the republished status names its executor on connection 2, which
	// executor_connection_bound judges; capacity is the subject here)
	if vs := framesOnly(checkOnly(l, CheckCapacity)); len(vs) > 0 {
		t.Fatalf("retired admissions judged: %v", vs)
	}
}

func TestCapacityLiveExecutorsAndSeedLimits(t *testing.T) {
	l, w := capacityLedger()
	for _, e := range []string{"e1", "e2", "e3", "e4"} {
		l.ExecutorCreated(w.tick(), "d1", e)
	}
	wantOnly(t, l, CheckCapacity, "holds 4 native executors (4 open, 0 being created) > 3")

	// A configuration above the seeds' limits is judged by them.
	var now int64
	l = NewLedger()
	w = wireFeed{l: l, now: &now}
	l.DeviceConfigured("d1", DeviceLimits{ActiveMax: 9, ExecutorsMax: 99})
	w.open(1, "d1")
	for i := range 5 {
		grant(w, 1, "p"+string(rune('0'+i)), "h"+string(rune('0'+i)))
	}
	if got := violationsOf(l, CheckCapacity); len(got) != 1 || !strings.Contains(got[0], "> 4") {
		t.Fatalf("capacity violations %v, want one over the seeds' 4", got)
	}
}

func TestAnExecutorClosingForItsTurnKeepsItsSlot(t *testing.T) {
	l, w := capacityLedger()
	grant(w, 1, "p1", "h1")
	l.ExecutorCreated(w.tick(), "d1", "e-p1")
	l.TurnCreated(w.tick(), "d1", "r1")
	w.deviceSends(1, "d1", statusFrame("p1", wire.PreparationStatus{Handle: "h1", Revision: 2, State: wire.StateStarted, RunID: "r1"}))
	grant(w, 1, "p2", "h2")
	// r1's settlement retires its executor: the slot passes to the close.
	l.TurnSettled(w.tick(), "r1", NativeCompleted)
	l.ExecutorRetired(w.tick(), "d1", "r1", "e-p1")
	grant(w, 1, "p3", "h3")
	wantOnly(t, l, CheckCapacity, "while 3 preparations and executions are active (1 closing for their Turn) > 2")

	// Once the close is confirmed the slot is free.
	l, w = capacityLedger()
	grant(w, 1, "p1", "h1")
	l.ExecutorCreated(w.tick(), "d1", "e-p1")
	l.TurnCreated(w.tick(), "d1", "r1")
	w.deviceSends(1, "d1", statusFrame("p1", wire.PreparationStatus{Handle: "h1", Revision: 2, State: wire.StateStarted, RunID: "r1"}))
	grant(w, 1, "p2", "h2")
	l.TurnSettled(w.tick(), "r1", NativeCompleted)
	l.ExecutorRetired(w.tick(), "d1", "r1", "e-p1")
	l.ExecutorClosed(w.tick(), "d1", "e-p1")
	grant(w, 1, "p3", "h3")
	if vs := framesOnly(l.Violations()); len(vs) > 0 {
		t.Fatalf("a confirmed close freed no slot: %v", vs)
	}
}

func TestTruthCapacityCountsExecutorsNotConfirmedClosed(t *testing.T) {
	l := NewLedger()
	l.DeviceConfigured("d1", DeviceLimits{ActiveMax: 1, ExecutorsMax: 2})
	l.ExecutorCreated(1, "d1", "e1")
	l.ExecutorCreated(2, "d1", "e2")
	only(t, l, "", "")
	// e1's close is pending (no ExecutorClosed): a third executor exceeds.
	l.ExecutorCreated(3, "d1", "e3")
	only(t, l, CheckCapacity, "holds 3 native executors (3 open, 0 being created) > 2")
}

func TestTruthCapacityFreedByConfirmedClose(t *testing.T) {
	l := NewLedger()
	l.DeviceConfigured("d1", DeviceLimits{ActiveMax: 1, ExecutorsMax: 2})
	l.ExecutorCreated(1, "d1", "e1")
	l.ExecutorCreated(2, "d1", "e2")
	l.ExecutorClosed(3, "d1", "e1")
	l.ExecutorCreated(4, "d1", "e3")
	only(t, l, "", "")
}

func TestTruthCapacityActiveTurns(t *testing.T) {
	l := NewLedger()
	l.DeviceConfigured("d1", DeviceLimits{ActiveMax: 1, ExecutorsMax: 4})
	l.TurnCreated(1, "d1", "r1")
	l.TurnSettled(2, "r1", NativeCompleted)
	l.TurnCreated(3, "d1", "r2")
	only(t, l, "", "")
	l.TurnCreated(4, "d1", "r3")
	only(t, l, CheckCapacity, "2 unsettled native turns > active_max 1")
}

func TestShutdownReportCompleteWithClosePending(t *testing.T) {
	l := NewLedger()
	l.ExecutorCreated(1, "d1", "e1")
	l.ShutdownReported(2, "d1", false, 1)
	only(t, l, "", "")
	l.ShutdownReported(3, "d1", true, 0)
	only(t, l, CheckShutdownReport, "still holds executor e1")
}

func TestShutdownReportCompleteWithTurnUnsettled(t *testing.T) {
	l := NewLedger()
	l.TurnCreated(1, "d1", "r1")
	l.ShutdownReported(3, "d1", true, 0)
	only(t, l, CheckShutdownReport, "native turn of run r1")
}

func TestShutdownReportCompleteListingOwned(t *testing.T) {
	l := NewLedger()
	l.ShutdownReported(3, "d1", true, 2)
	only(t, l, CheckShutdownReport, "listing 2 owned")
}

func TestShutdownReportCompleteAfterClosesIsClean(t *testing.T) {
	l := NewLedger()
	l.ExecutorCreated(1, "d1", "e1")
	l.ExecutorCreated(1, "d2", "e1")
	l.TurnCreated(1, "d1", "r1")
	l.TurnSettled(2, "r1", NativeCompleted)
	l.ExecutorClosed(3, "d1", "e1")
	l.ShutdownReported(4, "d1", true, 0)
	only(t, l, "", "")
}

func TestExecutorsBeingCreatedCountAgainstTheLimit(t *testing.T) {
	l := NewLedger()
	l.DeviceConfigured("d1", DeviceLimits{ActiveMax: 1, ExecutorsMax: 2})
	l.ExecutorCreated(1, "d1", "e1")
	l.NativePrepareCalled(2, "d1", "e2")
	only(t, l, "", "")
	// e1 is closing (its close not confirmed) and e2 is being created:
	// a third Prepare exceeds the limit before anything is created.
	l.NativePrepareCalled(3, "d1", "e3")
	only(t, l, CheckCapacity, "holds 3 native executors (1 open, 2 being created) > 2")
}

func TestAFailedOrCrashedPrepareHoldsNoExecutor(t *testing.T) {
	l := NewLedger()
	l.DeviceConfigured("d1", DeviceLimits{ActiveMax: 1, ExecutorsMax: 2})
	l.ExecutorCreated(1, "d1", "e1")
	l.NativePrepareCalled(2, "d1", "e2")
	l.NativePrepareFailed(3, "d1", "e2")
	l.NativePrepareCalled(4, "d1", "e3")
	l.ExecutorCreated(5, "d1", "e3") // created: counted once, as open
	only(t, l, "", "")
	l.NativePrepareCalled(6, "d1", "e4")
	l.NodeCrashed(7, "d1")               // the Harness died with its Prepares and executors
	l.NativePrepareCalled(8, "d1", "e5") // e1 and e3 not yet reported closed
	only(t, l, CheckCapacity, "holds 3 native executors (2 open, 1 being created) > 2")
}
