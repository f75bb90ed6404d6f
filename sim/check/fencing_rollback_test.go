package check

import (
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

func rollbackResume(l *Ledger, at time.Duration, id string, rollback bool) {
	l.Wire(wev(WireSent, at, 1, "core", "d1", id, wire.EnvironmentResume{EnvironmentID: "env", SuspendID: "sus-1", Rollback: rollback}))
}

func TestFencingRollbackMissingAfterUnansweredResumeIsCaught(t *testing.T) {
	l := NewLedger()
	l.Wire(wev(WireSent, time.Second, 1, "core", "d1", "sus-1.q1", wire.EnvironmentQuiesce{EnvironmentID: "env", SuspendID: "sus-1"}))
	l.Wire(wev(WireDelivered, 2*time.Second, 1, "d1", "core", "sus-1.q1", wire.EnvironmentQuiesced{EnvironmentID: "env", SuspendID: "sus-1", Accepted: true}))
	rollbackResume(l, 3*time.Second, "sus-1.r2", false) // answered quiesce: no rollback needed
	rollbackResume(l, 40*time.Second, "sus-1.r3", false)
	wantViolation(t, l, CheckFencingRollback, "no reply to its previous request sus-1.r2")
}

func TestFencingRollbackAfterUnansweredQuiesceIsClean(t *testing.T) {
	l := NewLedger()
	l.Wire(wev(WireSent, time.Second, 1, "core", "d1", "sus-1.q1", wire.EnvironmentQuiesce{EnvironmentID: "env", SuspendID: "sus-1"}))
	rollbackResume(l, 40*time.Second, "sus-1.r2", true)
	l.Wire(wev(WireDelivered, 41*time.Second, 1, "d1", "core", "sus-1.r2", wire.EnvironmentResumed{EnvironmentID: "env", SuspendID: "sus-1", ErrorCode: "busy"}))
	rollbackResume(l, 42*time.Second, "sus-1.r3", false) // the refused resume was answered: not judged
	if vs := violationsOf(l, CheckFencingRollback); len(vs) > 0 {
		t.Fatalf("unexpected: %v", vs)
	}
}
