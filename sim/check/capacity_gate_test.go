package check

import (
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

func capRefusal() wire.PreparationStatus {
	return wire.PreparationStatus{State: wire.StateRejected, ErrorCode: wire.PrepPreparationCapacity, Operation: wire.TypeExecutionPrepare}
}

// gatedAt2s: p1 (session s1, sent at 1 s) is refused preparation_capacity
// at 2 s on conn 1: no Turn preparation goes on conn 1 before 3 s.
func gatedAt2s() *Ledger {
	l := NewLedger()
	l.TurnSubmitted(0, "s1", "t1")
	l.TurnSubmitted(0, "s2", "t2")
	l.Wire(wev(WireSent, time.Second, 1, "core", "d1", "p1", wire.ExecutionPrepare{SessionID: "s1"}))
	l.Wire(wev(WireDelivered, 2*time.Second, 1, "d1", "core", "p1", capRefusal()))
	return l
}

func TestCapacityGateEarlySendIsCaught(t *testing.T) {
	l := gatedAt2s()
	l.Wire(wev(WireSent, 2500*time.Millisecond, 1, "core", "d1", "p2", wire.ExecutionPrepare{SessionID: "s2"}))
	wantViolation(t, l, CheckCapacityGate, "before its capacity wait ended at 3s")
}

func TestCapacityGateProbeAtTheWaitsEnd(t *testing.T) {
	l := gatedAt2s()
	l.Wire(wev(WireSent, 3*time.Second, 1, "core", "d1", "p2", wire.ExecutionPrepare{SessionID: "s1"}))
	tick(l, 5*time.Second)
	wantClean(t, l)
}

// A refused probe doubles the wait; a refusal of a preparation sent
// before the wait began changes nothing.
func TestCapacityGateWaitDoubles(t *testing.T) {
	l := NewLedger()
	l.TurnSubmitted(0, "s1", "t1")
	l.TurnSubmitted(0, "s2", "t2")
	l.Wire(wev(WireSent, time.Second, 1, "core", "d1", "p1", wire.ExecutionPrepare{SessionID: "s1"}))
	l.Wire(wev(WireSent, 1500*time.Millisecond, 1, "core", "d1", "p0", wire.ExecutionPrepare{SessionID: "s2"}))
	l.Wire(wev(WireDelivered, 2*time.Second, 1, "d1", "core", "p1", capRefusal()))
	l.Wire(wev(WireDelivered, 2500*time.Millisecond, 1, "d1", "core", "p0", capRefusal())) // during the wait
	l.Wire(wev(WireSent, 3*time.Second, 1, "core", "d1", "p2", wire.ExecutionPrepare{SessionID: "s1"}))
	l.Wire(wev(WireDelivered, 4*time.Second, 1, "d1", "core", "p2", capRefusal()))
	l.Wire(wev(WireSent, 5*time.Second, 1, "core", "d1", "p3", wire.ExecutionPrepare{SessionID: "s1"}))
	wantViolation(t, l, CheckCapacityGate, "before its capacity wait ended at 6s (2 consecutive")
	if vs := violationsOf(l, CheckCapacityGate); len(vs) != 1 {
		t.Fatalf("want only the send at 5s judged early: %v", vs)
	}
}

// A heartbeat of the connection ends the wait.
func TestCapacityGateHeartbeatEndsTheWait(t *testing.T) {
	l := gatedAt2s()
	l.Wire(wev(WireDelivered, 2200*time.Millisecond, 1, "d1", "core", "", wire.Heartbeat{TS: 1}))
	l.Wire(wev(WireSent, 2200*time.Millisecond, 1, "core", "d1", "p2", wire.ExecutionPrepare{SessionID: "s2"}))
	if vs := violationsOf(l, CheckCapacityGate); len(vs) > 0 {
		t.Fatalf("unexpected: %v", vs)
	}
}

// capacity_gate_probe: after the wait ends at 3 s, p2 is the probe; p3
// goes out while p2 is unanswered.
func TestCapacityProbeSecondPreparationIsCaught(t *testing.T) {
	l := gatedAt2s()
	l.Wire(wev(WireSent, 3*time.Second, 1, "core", "d1", "p2", wire.ExecutionPrepare{SessionID: "s1"}))
	l.Wire(wev(WireSent, 3100*time.Millisecond, 1, "core", "d1", "p3", wire.ExecutionPrepare{SessionID: "s2"}))
	wantViolation(t, l, CheckCapacityProbe, "while its capacity probe p2 was unanswered")
}

func TestCapacityProbeAnsweredOpensTheNext(t *testing.T) {
	l := gatedAt2s()
	l.Wire(wev(WireSent, 3*time.Second, 1, "core", "d1", "p2", wire.ExecutionPrepare{SessionID: "s1"}))
	l.Wire(wev(WireDelivered, 3050*time.Millisecond, 1, "d1", "core", "p2",
		wire.PreparationStatus{State: wire.StatePreparing, Handle: "h2", Revision: 1, ExecutorID: "e2"}))
	l.Wire(wev(WireSent, 3100*time.Millisecond, 1, "core", "d1", "p3", wire.ExecutionPrepare{SessionID: "s2"}))
	if vs := violationsOf(l, CheckCapacityProbe); len(vs) > 0 {
		t.Fatalf("unexpected: %v", vs)
	}
}

// releasedReadProfile: Core prepared a read profile p0 on conn 1 (ready
// at 0.8 s) and released it at 1.2 s; its released status reaches Core at
// 1.5 s when confirmed, else never. Then s1's p1 (sent at 1 s) is refused
// preparation_capacity at 2 s: conn 1 is gated until 3 s, when s1's retry
// is due.
func releasedReadProfile(confirmed bool) *Ledger {
	l := NewLedger()
	l.TurnSubmitted(0, "s1", "t1")
	l.Wire(wev(WireSent, 500*time.Millisecond, 1, "core", "d1", "p0", wire.ExecutionPrepare{SessionID: "s9",
		Configuration: wire.ExecutionConfiguration{WorkspaceReadOnly: true}}))
	l.Wire(wev(WireDelivered, 800*time.Millisecond, 1, "d1", "core", "p0",
		wire.PreparationStatus{State: wire.StateReady, Handle: "h0", Revision: 2}))
	l.Wire(wev(WireSent, time.Second, 1, "core", "d1", "p1", wire.ExecutionPrepare{SessionID: "s1"}))
	l.Wire(wev(WireSent, 1200*time.Millisecond, 1, "core", "d1", "p0", wire.ExecutionRelease{Handle: "h0"}))
	if confirmed {
		l.Wire(wev(WireDelivered, 1500*time.Millisecond, 1, "d1", "core", "p0",
			wire.PreparationStatus{State: wire.StateReleased, Handle: "h0", Revision: 3}))
	}
	l.Wire(wev(WireDelivered, 2*time.Second, 1, "d1", "core", "p1", capRefusal()))
	return l
}

// Core may count a stream it released until its final status arrives (an
// idle read's profile does): the gate's probe, s1's retry, waits for it.
func TestPrepareRetryWaitsForAReleasedStreamsFinalStatus(t *testing.T) {
	l := releasedReadProfile(false)
	tick(l, 3500*time.Millisecond)
	if vs := violationsOf(l, CheckTimingPrepareRetry); len(vs) > 0 {
		t.Fatalf("unexpected: %v", vs)
	}
}

// With the released status at Core before the refusal, nothing holds the
// gate at the wait's end: s1's retry is owed at 3 s.
func TestPrepareRetryOwedOnceTheReleasedStatusArrived(t *testing.T) {
	l := releasedReadProfile(true)
	tick(l, 3500*time.Millisecond)
	wantViolation(t, l, CheckTimingPrepareRetry, "did not send execution_prepare of session s1 again at 3s")
}
