package check

import (
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// TestWriteReceiptOracle: the daemon's receipt says what the installer
// answered: a refusal is rejected write_rejected with its reason; any
// other receipt (invalid_request, completed) is a violation.
func TestWriteReceiptOracle(t *testing.T) {
	refused := wire.WorkspaceWriteResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.WriteRejected,
		Reason: wire.WriteReasonDestinationDirectory}
	l := NewLedger()
	l.WorkspaceInstallAnswered(ns(time.Second), wsDev, "m1", wire.OutcomeRejected, wire.WriteReasonDestinationDirectory)
	writeAnswer(l, time.Second, "m1", refused)
	l.WorkspaceInstallAnswered(ns(2*time.Second), wsDev, "m2", wire.OutcomeUnknown, "")
	writeAnswer(l, 2*time.Second, "m2", wire.WorkspaceWriteResult{Outcome: wire.OutcomeUnknown, ErrorCode: wire.WriteUnconfirmed})
	wantClean(t, l)
	if l.marks[MarkWriteInstallRefused] != 1 {
		t.Fatalf("marks %v", l.marks)
	}
	for _, bad := range []wire.WorkspaceWriteResult{
		{Outcome: wire.OutcomeRejected, ErrorCode: wire.WriteInvalidRequest},
		{Outcome: wire.OutcomeRejected, ErrorCode: wire.WriteRejected, Reason: wire.WriteReasonUnsafeDestination},
		{Outcome: wire.OutcomeCompleted, SizeBytes: 1},
	} {
		l = NewLedger()
		l.WorkspaceInstallAnswered(ns(time.Second), wsDev, "m1", wire.OutcomeRejected, wire.WriteReasonDestinationDirectory)
		writeAnswer(l, time.Second, "m1", bad)
		wantViolation(t, l, CheckWriteReceipt, "its installer answered rejected destination_directory")
	}
}
