package check

import (
	"fmt"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// steerRefusedAt2s delivers input 2 of run r1 at 1 s; it is refused busy at
// 2 s, so Core owes the same input again at 3 s.
func steerRefusedAt2s(code string) *Ledger {
	l := NewLedger()
	l.Wire(wev(WireSent, time.Second, 1, "core", "d1", "r1", wire.PromptSteer{InputID: "2", DurableReceipt: true}))
	l.Wire(wev(WireDelivered, 2*time.Second, 1, "d1", "core", "r1", wire.PromptSteerAck{InputID: "2", ErrorCode: code}))
	return l
}

func resendSteer(l *Ledger, at time.Duration) {
	l.Wire(wev(WireSent, at, 1, "core", "d1", "r1", wire.PromptSteer{InputID: "2", DurableReceipt: true}))
}

func TestSteerRetryAtRefusalPlus1s(t *testing.T) {
	for _, code := range []string{wire.SteerBusy, wire.SteerNotReady} {
		l := steerRefusedAt2s(code)
		resendSteer(l, 3*time.Second)
		tick(l, 5*time.Second)
		wantClean(t, l)
		wantDecided(t, l, TimerSteerRetry, 1)
	}
}

func TestSteerRetryEarlyIsCaught(t *testing.T) {
	l := steerRefusedAt2s(wire.SteerBusy)
	resendSteer(l, 2500*time.Millisecond)
	wantViolation(t, l, CheckTimingSteerRetry, "before its 1s retry delay ended")
}

func TestSteerRetryMissingIsCaught(t *testing.T) {
	l := steerRefusedAt2s(wire.SteerBusy)
	tick(l, 4*time.Second)
	wantViolation(t, l, CheckTimingSteerRetry, "did not send input 2 of run r1 again at 3s")
}

func TestSteerRefusalFailingTheTurnIsCaught(t *testing.T) {
	l := steerRefusedAt2s(wire.SteerBusy)
	l.TurnFinished(ns(2*time.Second), "t1", "r1", TurnFailed, "input_busy")
	tick(l, 5*time.Second)
	wantViolation(t, l, CheckTimingSteerRetry, "on the busy receipt of input 2")
}

func TestSteerRetryExcused(t *testing.T) {
	cases := map[string]func(l *Ledger){
		"cancel sent": func(l *Ledger) {
			l.Wire(wev(WireSent, 2500*time.Millisecond, 1, "core", "d1", "r1", wire.PromptCancel{DeliveryID: "cancel:r1"}))
		},
		"connection closed": func(l *Ledger) {
			l.Wire(WireEvent{At: ns(2500 * time.Millisecond), Kind: WireClosed, Conn: 1, From: "d1", To: "core"})
		},
		"turn finished": func(l *Ledger) { l.TurnFinished(ns(2500*time.Millisecond), "t1", "r1", TurnCancelled, "") },
		"core crashed":  func(l *Ledger) { l.NodeCrashed(ns(2500*time.Millisecond), "core") },
	}
	for name, script := range cases {
		t.Run(name, func(t *testing.T) {
			l := steerRefusedAt2s(wire.SteerBusy)
			script(l)
			tick(l, 5*time.Second)
			if vs := violationsOf(l, CheckTimingSteerRetry); len(vs) > 0 {
				t.Fatalf("unexpected: %v", vs)
			}
			wantDecided(t, l, TimerSteerRetry, 0)
		})
	}
}

func TestSteerRefusalAfterWrittenOrAtItsWindowOwesNothing(t *testing.T) {
	l := NewLedger()
	l.Wire(wev(WireSent, time.Second, 1, "core", "d1", "r1", wire.PromptSteer{InputID: "2", DurableReceipt: true}))
	l.Wire(wev(WireDelivered, 2*time.Second, 1, "d1", "core", "r1", wire.PromptSteerAck{InputID: "2", Written: true}))
	l.Wire(wev(WireDelivered, 3*time.Second, 1, "d1", "core", "r1", wire.PromptSteerAck{InputID: "2", ErrorCode: wire.SteerBusy}))
	// a refusal of another input, 30.5 s after its first send: unknown by its retry
	l.Wire(wev(WireSent, 4*time.Second, 1, "core", "d1", "r1", wire.PromptSteer{InputID: "3", DurableReceipt: true}))
	l.Wire(wev(WireDelivered, 34500*time.Millisecond, 1, "d1", "core", "r1", wire.PromptSteerAck{InputID: "3", ErrorCode: wire.SteerBusy}))
	tick(l, 40*time.Second)
	if vs := violationsOf(l, CheckTimingSteerRetry); len(vs) > 0 {
		t.Fatalf("unexpected: %v", vs)
	}
}

// A refusal arriving after Core finished the Turn (its run event limit
// failed it while the steer was out) owes no retry, of a steer or a
// cancel.
func TestRefusalAfterTheTurnFinishedOwesNothing(t *testing.T) {
	l := NewLedger()
	l.Wire(wev(WireSent, time.Second, 1, "core", "d1", "r1", wire.PromptSteer{InputID: "2", DurableReceipt: true}))
	l.Wire(wev(WireSent, time.Second, 1, "core", "d1", "r2", wire.PromptCancel{DeliveryID: "cancel:r2"}))
	l.TurnFinished(ns(1500*time.Millisecond), "t1", "r1", TurnFailed, codeEventPersistenceFailed)
	l.TurnFinished(ns(1500*time.Millisecond), "t2", "r2", TurnFailed, codeEventPersistenceFailed)
	l.Wire(wev(WireDelivered, 2*time.Second, 1, "d1", "core", "r1", wire.PromptSteerAck{InputID: "2", ErrorCode: wire.SteerBusy}))
	l.Wire(wev(WireDelivered, 2*time.Second, 1, "d1", "core", "r2", wire.InteractionDecisionAck{DeliveryID: "cancel:r2", ErrorCode: wire.CancelNotReady}))
	tick(l, 5*time.Second)
	for _, c := range []string{CheckTimingSteerRetry, CheckTimingCancelRetry} {
		if vs := violationsOf(l, c); len(vs) > 0 {
			t.Fatalf("unexpected: %v", vs)
		}
	}
}

// cancelRefusedNotReady sends the first prompt_cancel of r1 at 1 s,
// refused not_ready at 2 s: the next attempt is owed at 3 s.
func cancelRefusedNotReady() *Ledger {
	l := NewLedger()
	l.RunStartSent(0, "t1", "r1", "d1", "c1", "h1")
	l.Wire(wev(WireSent, time.Second, 1, "core", "d1", "r1", wire.PromptCancel{DeliveryID: "cancel:r1"}))
	l.Wire(wev(WireDelivered, 2*time.Second, 1, "d1", "core", "r1", wire.InteractionDecisionAck{DeliveryID: "cancel:r1", ErrorCode: wire.CancelNotReady}))
	return l
}

func resendCancel(l *Ledger, at time.Duration) {
	l.Wire(wev(WireSent, at, 1, "core", "d1", "r1", wire.PromptCancel{DeliveryID: "cancel:r1:2"}))
	l.Wire(wev(WireDelivered, at+time.Second, 1, "d1", "core", "r1", wire.InteractionDecisionAck{DeliveryID: "cancel:r1:2", Applied: true}))
	l.TurnFinished(ns(at+time.Second), "t1", "r1", TurnCancelled, "")
}

func TestCancelRetryAtRefusalPlus1s(t *testing.T) {
	l := cancelRefusedNotReady()
	resendCancel(l, 3*time.Second)
	tick(l, 20*time.Second)
	wantClean(t, l)
	wantDecided(t, l, TimerCancelRetry, 1)
}

func TestCancelRetryEarlyIsCaught(t *testing.T) {
	l := cancelRefusedNotReady()
	resendCancel(l, 2*time.Second+500*time.Millisecond)
	wantViolation(t, l, CheckTimingCancelRetry, "before its 1s retry delay ended")
}

func TestCancelRetryEarlyOnACancelCall(t *testing.T) {
	l := cancelRefusedNotReady()
	l.CancelCalled(ns(2500*time.Millisecond), "t1")
	resendCancel(l, 2500*time.Millisecond)
	tick(l, 20*time.Second)
	wantClean(t, l)
}

func TestCancelRetryMissingIsCaught(t *testing.T) {
	l := cancelRefusedNotReady()
	tick(l, 4*time.Second)
	wantViolation(t, l, CheckTimingCancelRetry, "did not send prompt_cancel of run r1 again at 3s")
}

func TestCancelNotReadyNearTheDeadlineOwesNothing(t *testing.T) {
	l := NewLedger()
	l.Wire(wev(WireSent, time.Second, 1, "core", "d1", "r1", wire.PromptCancel{DeliveryID: "cancel:r1"}))
	// at 15 s the retry (16 s) would be at the deadline (16 s): none is sent
	l.Wire(wev(WireDelivered, 15*time.Second, 1, "d1", "core", "r1", wire.InteractionDecisionAck{DeliveryID: "cancel:r1", ErrorCode: wire.CancelNotReady}))
	l.TurnFinished(ns(16*time.Second), "t1", "r1", TurnFailed, codeCancelUnconfirmed)
	tick(l, 20*time.Second)
	wantClean(t, l)
}

// prepRefused: Core prepares session s1 at 1 s with request p1; it is
// refused preparation_capacity at 2 s, so the next prepare is owed at 3 s.
func prepRefused() *Ledger { return prepRefusedAfter(func(*Ledger) {}) }

// prepRefusedAfter is prepRefused with before's events (all before 1 s)
// first.
func prepRefusedAfter(before func(l *Ledger)) *Ledger {
	l := NewLedger()
	l.TurnSubmitted(0, "s1", "t1")
	before(l)
	l.Wire(wev(WireSent, time.Second, 1, "core", "d1", "p1", wire.ExecutionPrepare{SessionID: "s1"}))
	l.Wire(wev(WireDelivered, 2*time.Second, 1, "d1", "core", "p1", wire.PreparationStatus{State: wire.StateRejected,
		ErrorCode: wire.PrepPreparationCapacity, Operation: wire.TypeExecutionPrepare}))
	return l
}

func prepareAgain(l *Ledger, at time.Duration) {
	l.Wire(wev(WireSent, at, 1, "core", "d1", "p2", wire.ExecutionPrepare{SessionID: "s1"}))
}

func TestPrepareRetryAtRefusalPlus1s(t *testing.T) {
	l := prepRefused()
	prepareAgain(l, 3*time.Second)
	tick(l, 5*time.Second)
	wantClean(t, l)
	wantDecided(t, l, TimerPrepareRetry, 1)
}

func TestPrepareRetryEarlyIsCaught(t *testing.T) {
	l := prepRefused()
	prepareAgain(l, 2*time.Second)
	wantViolation(t, l, CheckTimingPrepareRetry, "after the refusal at 2s: before its 1s retry delay ended")
}

func TestPrepareRetryMissingIsCaught(t *testing.T) {
	l := prepRefused()
	tick(l, 3500*time.Millisecond)
	wantViolation(t, l, CheckTimingPrepareRetry, "did not send execution_prepare of session s1 again at 3s")
}

// prepRefusedWhileEnvironmentPrepares: Core began an Environment
// preparation on conn 2 at 0.5 s (begin answered ready, commit sent at
// 0.6 s, its result still out) before the refusal of prepRefused.
func prepRefusedWhileEnvironmentPrepares() *Ledger {
	l := NewLedger()
	l.TurnSubmitted(0, "s1", "t1")
	l.Wire(wev(WireSent, 500*time.Millisecond, 2, "core", "d2", "x1",
		wire.RuntimePrepare{Step: wire.StepBegin, Action: wire.PrepareActionInitialize}))
	l.Wire(wev(WireDelivered, 600*time.Millisecond, 2, "d2", "core", "x1", wire.RuntimePrepareResult{Outcome: wire.OutcomeReady}))
	l.Wire(wev(WireSent, 600*time.Millisecond, 2, "core", "d2", "x1", wire.RuntimePrepare{Step: wire.StepCommit}))
	l.Wire(wev(WireSent, time.Second, 1, "core", "d1", "p1", wire.ExecutionPrepare{SessionID: "s1"}))
	l.Wire(wev(WireDelivered, 2*time.Second, 1, "d1", "core", "p1", wire.PreparationStatus{State: wire.StateRejected,
		ErrorCode: wire.PrepPreparationCapacity, Operation: wire.TypeExecutionPrepare}))
	return l
}

// TestPrepareRetryWaitsForARunningEnvironmentPreparation: the retry may
// pick a connection where the Session's Environment preparation, begun
// before the refusal, still runs; the Turn waits for it (core/doc.go), so
// a later prepare is no lateness.
func TestPrepareRetryWaitsForARunningEnvironmentPreparation(t *testing.T) {
	l := prepRefusedWhileEnvironmentPrepares()
	tick(l, 3500*time.Millisecond)
	prepareAgain(l, 4*time.Second)
	tick(l, 5*time.Second)
	if vs := violationsOf(l, CheckTimingPrepareRetry); len(vs) > 0 {
		t.Fatalf("unexpected: %v", vs)
	}
}

// TestPrepareRetryMissingAfterAnEndedEnvironmentPreparationIsCaught: an
// Environment preparation that ended before the due instant holds
// nothing back.
func TestPrepareRetryMissingAfterAnEndedEnvironmentPreparationIsCaught(t *testing.T) {
	l := prepRefusedWhileEnvironmentPrepares()
	l.Wire(wev(WireDelivered, 2500*time.Millisecond, 2, "d2", "core", "x1", wire.RuntimePrepareResult{Outcome: wire.OutcomeCompleted}))
	tick(l, 3500*time.Millisecond)
	wantViolation(t, l, CheckTimingPrepareRetry, "did not send execution_prepare of session s1 again at 3s")
}

func TestCapacityRefusalFailingTheTurnIsCaught(t *testing.T) {
	l := prepRefused()
	l.TurnFinished(ns(2*time.Second), "t1", "", TurnFailed, codePreparationStartFailed)
	tick(l, 5*time.Second)
	wantViolation(t, l, CheckTimingPrepareRetry, "on a preparation_capacity refusal that leaves it queued")
}

func TestPrepareRetryExcused(t *testing.T) {
	cases := map[string]func(l *Ledger){
		"workspace write": func(l *Ledger) {
			l.Wire(wev(WireSent, 2500*time.Millisecond, 1, "core", "d1", "w1", wire.WorkspaceWrite{}))
		},
		"read-only prepare of the session": func(l *Ledger) {
			l.Wire(wev(WireSent, 2500*time.Millisecond, 1, "core", "d1", "p9",
				wire.ExecutionPrepare{SessionID: "s1", Configuration: wire.ExecutionConfiguration{WorkspaceReadOnly: true}}))
		},
		"kinds changed": func(l *Ledger) {
			l.Wire(wev(WireDelivered, 1500*time.Millisecond, 1, "d1", "core", "", wire.Heartbeat{SupportedAgentKinds: []wire.SupportedAgentKind{{Kind: "k", Available: true}}}))
			l.Wire(wev(WireDelivered, 2500*time.Millisecond, 1, "d1", "core", "", wire.Heartbeat{SupportedAgentKinds: []wire.SupportedAgentKind{{Kind: "k"}}}))
		},
		"turn cancelled": func(l *Ledger) { l.TurnFinished(ns(2500*time.Millisecond), "t1", "", TurnCancelled, "") },
		"every stream open at Core after the daemon crashed": func(l *Ledger) {
			// the daemon's side ends at 2.2 s; Core, not knowing yet,
			// holds the 60 streams opened before and loses 4 more into
			// the broken connection
			for i := range 60 {
				l.Wire(wev(WireSent, 1500*time.Millisecond, 1, "core", "d1", fmt.Sprintf("q%d", i), wire.ExecutionPrepare{SessionID: fmt.Sprintf("s%d", i+10)}))
			}
			l.Wire(WireEvent{At: ns(2200 * time.Millisecond), Kind: WireClosed, Conn: 1, From: "d1", To: "d1"})
			for i := 60; i < DocumentedPreparationsPerConn; i++ {
				ev := wev(WireLost, 2500*time.Millisecond, 1, "core", "d1", fmt.Sprintf("q%d", i), wire.ExecutionPrepare{SessionID: fmt.Sprintf("s%d", i+10)})
				ev.Reason = lostOnSend
				l.Wire(ev)
			}
		},
		"every preparation stream of the connection open": func(l *Ledger) {
			for i := range DocumentedPreparationsPerConn {
				l.Wire(wev(WireSent, 2500*time.Millisecond, 1, "core", "d1", fmt.Sprintf("q%d", i), wire.ExecutionPrepare{SessionID: fmt.Sprintf("s%d", i+10)}))
			}
		},
	}
	for name, script := range cases {
		t.Run(name, func(t *testing.T) {
			l := prepRefused()
			script(l)
			tick(l, 5*time.Second)
			if vs := violationsOf(l, CheckTimingPrepareRetry); len(vs) > 0 {
				t.Fatalf("unexpected: %v", vs)
			}
		})
	}
}

func TestRefusalOfAnAbandonedPrepareOwesNothing(t *testing.T) {
	l := NewLedger()
	l.TurnSubmitted(0, "s1", "t1")
	l.Wire(wev(WireSent, time.Second, 1, "core", "d1", "p1", wire.ExecutionPrepare{SessionID: "s1"}))
	l.TurnFinished(ns(1500*time.Millisecond), "t1", "", TurnCancelled, "")
	l.Wire(wev(WireDelivered, 2*time.Second, 1, "d1", "core", "p1", wire.PreparationStatus{State: wire.StateRejected,
		ErrorCode: wire.PrepPreparationCapacity, Operation: wire.TypeExecutionPrepare}))
	tick(l, 5*time.Second)
	wantClean(t, l)
}

// initializeOpen: Core begins an initialize transfer x1 on d2's connection
// 2 at 0.5 s, d2 answers ready and Core commits at 0.7 s; the commit (a
// setup that runs long) is not answered before 1 s.
func initializeOpen(l *Ledger) {
	l.Wire(wev(WireSent, 500*time.Millisecond, 2, "core", "d2", "x1", wire.RuntimePrepare{Step: wire.StepBegin,
		EnvironmentID: xferEnv, SessionID: xferEnv, Action: wire.PrepareActionInitialize}))
	l.Wire(wev(WireSent, 600*time.Millisecond, 2, "d2", "core", "x1", wire.RuntimePrepareResult{Outcome: wire.OutcomeReady}))
	l.Wire(wev(WireDelivered, 600*time.Millisecond, 2, "d2", "core", "x1", wire.RuntimePrepareResult{Outcome: wire.OutcomeReady}))
	l.Wire(wev(WireSent, 700*time.Millisecond, 2, "core", "d2", "x1", wire.RuntimePrepare{Step: wire.StepCommit}))
}

// A transfer Core began before the refusal and that is still open at the
// retry instant holds its connection (one transfer per connection): a
// Session that needs its Environment prepared there first waits for it,
// and the wire does not say which connection Core picked.
func TestPrepareRetryHeldByAnOpenTransfer(t *testing.T) {
	l := prepRefusedAfter(initializeOpen)
	tick(l, 5*time.Second)
	if vs := violationsOf(l, CheckTimingPrepareRetry); len(vs) > 0 {
		t.Fatalf("unexpected: %v", vs)
	}
}

// Core recording the transfer unknown does not free its connection: the
// Runtime may still hold it open.
func TestPrepareRetryHeldByATransferRecordedUnknown(t *testing.T) {
	l := prepRefusedAfter(func(l *Ledger) {
		initializeOpen(l)
		l.PreparationStepUnknown(ns(800*time.Millisecond), "x1")
	})
	tick(l, 5*time.Second)
	if vs := violationsOf(l, CheckTimingPrepareRetry); len(vs) > 0 {
		t.Fatalf("unexpected: %v", vs)
	}
}

// A transfer that ended before the retry instant holds nothing back.
func TestPrepareRetryMissingAfterTheTransferEndedIsCaught(t *testing.T) {
	for name, outcome := range map[string]wire.RuntimePrepareResult{
		"completed": {Outcome: wire.OutcomeCompleted},
		"failed":    {Outcome: wire.OutcomeFailed, ErrorCode: wire.TransferFailed},
	} {
		t.Run(name, func(t *testing.T) {
			l := prepRefusedAfter(func(l *Ledger) {
				initializeOpen(l)
				l.Wire(wev(WireSent, 900*time.Millisecond, 2, "d2", "core", "x1", outcome))
				l.Wire(wev(WireDelivered, 900*time.Millisecond, 2, "d2", "core", "x1", outcome))
			})
			tick(l, 3500*time.Millisecond)
			wantViolation(t, l, CheckTimingPrepareRetry, "did not send execution_prepare of session s1 again at 3s")
		})
	}
}
