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
