package check

import (
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

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
