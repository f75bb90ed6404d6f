package check

import (
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// prepRefusedBehind: script runs from 0.5 s on (a suspension's frames),
// then Core prepares session s1 at 1 s and is refused
// preparation_capacity at 2 s; no retry follows.
func prepRefusedBehind(script func(l *Ledger)) *Ledger {
	l := NewLedger()
	l.TurnSubmitted(0, "s1", "t1")
	script(l)
	l.Wire(wev(WireSent, time.Second, 1, "core", "d1", "p1", wire.ExecutionPrepare{SessionID: "s1"}))
	l.Wire(wev(WireDelivered, 2*time.Second, 1, "d1", "core", "p1", wire.PreparationStatus{State: wire.StateRejected,
		ErrorCode: wire.PrepPreparationCapacity, Operation: wire.TypeExecutionPrepare}))
	tick(l, 5*time.Second)
	return l
}

func quiesceSent(l *Ledger, at time.Duration) {
	l.Wire(wev(WireSent, at, 2, "core", "d2", "q1", wire.EnvironmentQuiesce{EnvironmentID: "e", SuspendID: "sus-1"}))
}

// TestPrepareRetryExcusedWhileASuspensionFences: a prepare retry Core
// holds back while a device is fenced is excused; once the suspension
// ended for Core (a refused quiesce or an accepted resume reaching it)
// the retry is owed again.
func TestPrepareRetryExcusedWhileASuspensionFences(t *testing.T) {
	t.Run("quiesce unanswered", func(t *testing.T) {
		wantClean(t, prepRefusedBehind(func(l *Ledger) { quiesceSent(l, 500*time.Millisecond) }))
	})
	t.Run("quiesce accepted, no resume", func(t *testing.T) {
		wantClean(t, prepRefusedBehind(func(l *Ledger) {
			quiesceSent(l, 500*time.Millisecond)
			l.Wire(wev(WireDelivered, 600*time.Millisecond, 2, "d2", "core", "q1", wire.EnvironmentQuiesced{EnvironmentID: "e", SuspendID: "sus-1", Accepted: true}))
		}))
	})
	t.Run("quiesce refused", func(t *testing.T) {
		l := prepRefusedBehind(func(l *Ledger) {
			quiesceSent(l, 500*time.Millisecond)
			l.Wire(wev(WireDelivered, 600*time.Millisecond, 2, "d2", "core", "q1", wire.EnvironmentQuiesced{EnvironmentID: "e", SuspendID: "sus-1", ErrorCode: "resource_busy"}))
		})
		wantViolation(t, l, CheckTimingPrepareRetry, "did not send execution_prepare of session s1 again at 3s")
	})
	t.Run("resumed", func(t *testing.T) {
		l := prepRefusedBehind(func(l *Ledger) {
			quiesceSent(l, 500*time.Millisecond)
			l.Wire(wev(WireDelivered, 600*time.Millisecond, 2, "d2", "core", "q1", wire.EnvironmentQuiesced{EnvironmentID: "e", SuspendID: "sus-1", Accepted: true}))
			l.Wire(wev(WireSent, 700*time.Millisecond, 3, "core", "d2", "r1", wire.EnvironmentResume{EnvironmentID: "e", SuspendID: "sus-1"}))
			l.Wire(wev(WireDelivered, 800*time.Millisecond, 3, "d2", "core", "r1", wire.EnvironmentResumed{EnvironmentID: "e", SuspendID: "sus-1", Accepted: true}))
		})
		wantViolation(t, l, CheckTimingPrepareRetry, "did not send execution_prepare of session s1 again at 3s")
	})
}
