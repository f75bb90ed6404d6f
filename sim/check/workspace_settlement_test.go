package check

import (
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// settleRig: Core began write m1 of Session s-1 on connection 1 and sent
// its commit at 2 s; no receipt yet.
func settleRig() *Ledger {
	l := NewLedger()
	l.Wire(wev(WireSent, time.Second, 1, CoreNode, wsDev, "m1", wire.WorkspaceWrite{Step: wire.StepBegin, SessionID: "u-1", SizeBytes: 1}))
	l.Wire(wev(WireSent, 2*time.Second, 1, CoreNode, wsDev, "m1", wire.WorkspaceWrite{Step: wire.StepCommit}))
	return l
}

func settleOp(call, ret time.Duration, outcome, mutation string) WorkspaceWriteOp {
	return WorkspaceWriteOp{Call: ns(call), Return: ns(ret), Session: "s-1", Path: "a.txt", Value: "v",
		Outcome: outcome, Mutation: mutation}
}

func settleReceipt(l *Ledger, at time.Duration, outcome string) {
	l.Wire(wev(WireDelivered, at, 1, wsDev, CoreNode, "m1", wire.WorkspaceWriteResult{Outcome: outcome, SizeBytes: 1}))
}

// TestWriteSettlementAnswer: a write whose commit left without a receipt
// is answered unknown; unavailable, or a completed answer no receipt
// backs, is a violation.
func TestWriteSettlementAnswer(t *testing.T) {
	l := settleRig()
	l.WorkspaceWriteCalled(settleOp(0, 196*time.Second, "unknown", "m1"))
	wantClean(t, l)
	for _, bad := range []string{"unavailable", "completed"} {
		l = settleRig()
		l.WorkspaceWriteCalled(settleOp(0, 196*time.Second, bad, "m1"))
		wantViolation(t, l, CheckWriteSettlement, "m1")
	}
	l = settleRig()
	settleReceipt(l, 3*time.Second, wire.OutcomeCompleted)
	l.WorkspaceWriteCalled(settleOp(0, 3*time.Second, "completed", "m1"))
	wantClean(t, l)
	// a completed receipt whose size_bytes is not the begin's settles
	// nothing: completed on it is a violation
	l = settleRig()
	l.Wire(wev(WireDelivered, 3*time.Second, 1, wsDev, CoreNode, "m1", wire.WorkspaceWriteResult{Outcome: wire.OutcomeCompleted, SizeBytes: 2}))
	l.WorkspaceWriteCalled(settleOp(0, 3*time.Second, "completed", "m1"))
	wantViolation(t, l, CheckWriteSettlement, "without a completed receipt")
}

// TestWriteSettlementBlocksSuccessors: after an unknown answer every
// later write of the Session is refused until the exact receipt reached
// Core; a successor admitted before that is a violation.
func TestWriteSettlementBlocksSuccessors(t *testing.T) {
	l := settleRig()
	l.WorkspaceWriteCalled(settleOp(0, 196*time.Second, "unknown", "m1"))
	l.WorkspaceWriteCalled(settleOp(197*time.Second, 197*time.Second, "refused", ""))
	wantClean(t, l)
	if l.marks[MarkWriteBlockedAfterUnknown] != 1 {
		t.Fatalf("marks %v, want %s once", l.marks, MarkWriteBlockedAfterUnknown)
	}
	l.WorkspaceWriteCalled(settleOp(198*time.Second, 199*time.Second, "unavailable", "m2"))
	wantViolation(t, l, CheckWriteSettlement, "is unsettled")

	l = settleRig()
	l.WorkspaceWriteCalled(settleOp(0, 196*time.Second, "unknown", "m1"))
	settleReceipt(l, 200*time.Second, wire.OutcomeCompleted) // the late exact receipt
	l.WorkspaceWriteCalled(settleOp(201*time.Second, 202*time.Second, "completed", ""))
	wantClean(t, l)
}

// TestWriteSettlementReleasesOwner: once the exact receipt of a write
// answered unknown reached Core, a later write of the Session is not
// refused as pending.
func TestWriteSettlementReleasesOwner(t *testing.T) {
	run := func(settle bool) *Ledger {
		l := settleRig()
		l.WorkspaceWriteCalled(settleOp(0, 196*time.Second, "unknown", "m1"))
		if settle {
			settleReceipt(l, 200*time.Second, wire.OutcomeCompleted)
		}
		op := settleOp(201*time.Second, 201*time.Second, "refused", "")
		op.Code = WriteRefusedPending
		l.WorkspaceWriteCalled(op)
		return l
	}
	wantClean(t, run(false))
	wantViolation(t, run(true), CheckWriteSettlement, "refused as pending")
}
