package check

import (
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// prepare_failure_cleanup: the Harness created e1 for the preparation and
// still holds it when the daemon fails the admission.
func TestPrepareCleanupFailedWithExecutorLeftIsCaught(t *testing.T) {
	l := NewLedger()
	l.ExecutorCreated(ns(time.Second), "d1", "e1")
	l.Wire(wev(WireSent, time.Second, 1, "d1", "core", "p1",
		wire.PreparationStatus{State: wire.StateFailed, ErrorCode: "preparation_failed", ExecutorID: "e1", Handle: "h1", Revision: 2}))
	wantViolation(t, l, CheckPrepareCleanup, "still holds its executor e1")
}

func TestPrepareCleanupUnconfirmedOrNothingLeftIsClean(t *testing.T) {
	l := NewLedger()
	l.ExecutorCreated(ns(time.Second), "d1", "e1")
	l.Wire(wev(WireSent, time.Second, 1, "d1", "core", "p1",
		wire.PreparationStatus{State: wire.StateFailed, ErrorCode: "executor_cleanup_unconfirmed", ExecutorID: "e1", Handle: "h1", Revision: 2}))
	l.Wire(wev(WireSent, time.Second, 1, "d1", "core", "p2",
		wire.PreparationStatus{State: wire.StateFailed, ErrorCode: "preparation_failed", ExecutorID: "e2", Handle: "h2", Revision: 2}))
	l.ExecutorClosed(ns(2*time.Second), "d1", "e1")
	l.Wire(wev(WireSent, 2*time.Second, 1, "d1", "core", "p3",
		wire.PreparationStatus{State: wire.StateFailed, ErrorCode: "preparation_failed", ExecutorID: "e1", Handle: "h3", Revision: 2}))
	if vs := violationsOf(l, CheckPrepareCleanup); len(vs) > 0 {
		t.Fatalf("unexpected: %v", vs)
	}
}
