package check

import (
	"strings"
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

// TestFencedSelectionWorkspaceWorkIsCaught: an idle read's or export's
// read-only preparation and a workspace_write begin select a device too;
// a write's next steps and an export's begin on its profile do not.
func TestFencedSelectionWorkspaceWorkIsCaught(t *testing.T) {
	l := NewLedger()
	fencedQuiesceSent(l, time.Second)
	l.Wire(wev(WireSent, 1500*time.Millisecond, 1, "core", "d1", "p0",
		wire.ExecutionPrepare{SessionID: "s1", Configuration: wire.ExecutionConfiguration{WorkspaceReadOnly: true}}))
	wantViolation(t, l, CheckFencedSelection, "read-only execution_prepare (a workspace read or export) p0")
	l.Wire(wev(WireSent, 1600*time.Millisecond, 1, "core", "d1", "m-1",
		wire.WorkspaceWrite{Step: wire.StepBegin, EnvironmentID: "env", SessionID: "s1", Path: "f"}))
	if vs := violationsOf(l, CheckFencedSelection); len(vs) != 2 || !strings.Contains(vs[1], "workspace_write begin of mutation m-1") {
		t.Fatalf("want the write begin caught: %v", vs)
	}
	l.Wire(wev(WireSent, 1700*time.Millisecond, 1, "core", "d1", "m-1", wire.WorkspaceWrite{Step: wire.StepCommit}))
	l.Wire(wev(WireSent, 1800*time.Millisecond, 1, "core", "d1", "x-1", wire.WorkspaceExport{Step: wire.StepBegin, Handle: "h", EnvironmentID: "env"}))
	if vs := violationsOf(l, CheckFencedSelection); len(vs) != 2 {
		t.Fatalf("want the prepare and the begin only: %v", vs)
	}
}

func TestFencedSelectionResolvedIsClean(t *testing.T) {
	l := NewLedger()
	fencedQuiesceSent(l, time.Second)
	// Another device is not fenced.
	l.Wire(wev(WireSent, 1600*time.Millisecond, 2, "core", "d2", "p1", wire.ExecutionPrepare{SessionID: "s1"}))
	l.Wire(wev(WireDelivered, 2*time.Second, 1, "d1", "core", "sus-1.q1", wire.EnvironmentQuiesced{EnvironmentID: "env", SuspendID: "sus-1", ErrorCode: "busy"}))
	l.Wire(wev(WireSent, 3*time.Second, 1, "core", "d1", "p2", wire.ExecutionPrepare{SessionID: "s1"}))
	l.Wire(wev(WireSent, 3*time.Second, 1, "core", "d1", "m-2",
		wire.WorkspaceWrite{Step: wire.StepBegin, EnvironmentID: "env", SessionID: "s1", Path: "f"}))
	if vs := violationsOf(l, CheckFencedSelection); len(vs) > 0 {
		t.Fatalf("unexpected: %v", vs)
	}
}
