package check

import (
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

func fencedQuiesceSent(l *Ledger, at time.Duration) {
	l.Wire(wev(WireSent, at, 1, "core", "d1", "sus-1.q1", wire.EnvironmentQuiesce{EnvironmentID: "env", SuspendID: "sus-1"}))
}

func TestFencedSelectionPrepareToQuiescedDeviceIsCaught(t *testing.T) {
	l := NewLedger()
	fencedQuiesceSent(l, time.Second)
	l.Wire(wev(WireDelivered, 2*time.Second, 1, "d1", "core", "sus-1.q1", wire.EnvironmentQuiesced{EnvironmentID: "env", SuspendID: "sus-1", Accepted: true}))
	l.Wire(wev(WireSent, 3*time.Second, 1, "core", "d1", "p1", wire.ExecutionPrepare{SessionID: "s1"}))
	wantViolation(t, l, CheckFencedSelection, "unresolved suspension sus-1")
}

func TestFencedSelectionResolvedOrReadOnlyIsClean(t *testing.T) {
	l := NewLedger()
	fencedQuiesceSent(l, time.Second)
	// A read-only preparation is no device selection.
	l.Wire(wev(WireSent, 1500*time.Millisecond, 1, "core", "d1", "p0",
		wire.ExecutionPrepare{SessionID: "s1", Configuration: wire.ExecutionConfiguration{WorkspaceReadOnly: true}}))
	// Another device is not fenced.
	l.Wire(wev(WireSent, 1600*time.Millisecond, 2, "core", "d2", "p1", wire.ExecutionPrepare{SessionID: "s1"}))
	l.Wire(wev(WireDelivered, 2*time.Second, 1, "d1", "core", "sus-1.q1", wire.EnvironmentQuiesced{EnvironmentID: "env", SuspendID: "sus-1", ErrorCode: "busy"}))
	l.Wire(wev(WireSent, 3*time.Second, 1, "core", "d1", "p2", wire.ExecutionPrepare{SessionID: "s1"}))
	if vs := violationsOf(l, CheckFencedSelection); len(vs) > 0 {
		t.Fatalf("unexpected: %v", vs)
	}
}
