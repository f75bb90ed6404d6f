package check

import (
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// idleAfterDone: executor e1 on d1 serves run r1, whose done at 5 s parks
// it; d1's idle bound is 20 s.
func idleAfterDone() *Ledger {
	l := NewLedger()
	l.TimerConfigured("d1", TimerIdleExecutor, 20*time.Second)
	l.Wire(wev(WireDelivered, time.Second, 1, "core", "d1", "p1", wire.ExecutionStart{ExecutorID: "e1", RunID: "r1", Handle: "h1"}))
	l.Wire(wev(WireSent, 5*time.Second, 1, "d1", "core", "r1", wire.Done{}))
	return l
}

func TestIdleExecutorClosedAtItsBound(t *testing.T) {
	l := idleAfterDone()
	l.CloseCalled(ns(25*time.Second), "d1", "e1")
	tick(l, 30*time.Second)
	wantClean(t, l)
	wantDecided(t, l, TimerIdleExecutor, 1)
}

func TestIdleExecutorClosedEarlyIsCaught(t *testing.T) {
	l := idleAfterDone()
	l.CloseCalled(ns(15*time.Second), "d1", "e1")
	tick(l, 16*time.Second)
	wantViolation(t, l, CheckTimingIdleExecutor, "before its 20s idle bound")
}

func TestIdleExecutorNotClosedIsCaught(t *testing.T) {
	l := idleAfterDone()
	tick(l, 26*time.Second)
	wantViolation(t, l, CheckTimingIdleExecutor, "was not closed at 25s")
}

func TestIdleExecutorClosedLateIsCaught(t *testing.T) {
	l := idleAfterDone()
	l.CloseCalled(ns(30*time.Second), "d1", "e1")
	if got := violationsOf(l, CheckTimingIdleExecutor); len(got) == 0 {
		t.Fatal("a close 5 s after the idle bound went unnoticed")
	}
}

func TestIdleExecutorClosedEarlyWithReason(t *testing.T) {
	cases := map[string]func(l *Ledger){
		"shutdown": func(l *Ledger) {
			l.ShutdownRequested(ns(8*time.Second), "d1")
			l.CloseCalled(ns(8*time.Second), "d1", "e1")
		},
		"evicted when another executor went idle": func(l *Ledger) {
			l.Wire(wev(WireDelivered, 6*time.Second, 1, "core", "d1", "p2", wire.ExecutionStart{ExecutorID: "e2", RunID: "r2", Handle: "h2"}))
			l.CloseCalled(ns(9*time.Second), "d1", "e1")
			l.Wire(wev(WireSent, 9*time.Second, 1, "d1", "core", "r2", wire.Done{}))
			l.CloseCalled(ns(29*time.Second), "d1", "e2")
		},
		"evicted when another executor went idle, the next record a later creation": func(l *Ledger) {
			// e3's admission ended while it was preparing: its creation at
			// 10 s parks it, the first record after the eviction at 9 s.
			l.Wire(wev(WireSent, 6*time.Second, 1, "d1", "core", "p3", wire.PreparationStatus{ExecutorID: "e3", Handle: "h3", Revision: 1, State: wire.StatePreparing}))
			l.Wire(wev(WireSent, 7*time.Second, 1, "d1", "core", "p3", wire.PreparationStatus{ExecutorID: "e3", Handle: "h3", Revision: 2, State: wire.StateReleased}))
			l.Wire(wev(WireSent, 8*time.Second, 1, "d1", "core", "p2", wire.PreparationStatus{ExecutorID: "e2", Handle: "h2", Revision: 1, State: wire.StateReady}))
			l.Wire(wev(WireSent, 9*time.Second, 1, "d1", "core", "p2", wire.PreparationStatus{ExecutorID: "e2", Handle: "h2", Revision: 2, State: wire.StateReleased}))
			l.CloseCalled(ns(9*time.Second), "d1", "e1")
			l.ExecutorCreated(ns(10*time.Second), "d1", "e3")
			l.CloseCalled(ns(29*time.Second), "d1", "e2")
			l.CloseCalled(ns(30*time.Second), "d1", "e3")
		},
		"evicted for a preparation": func(l *Ledger) {
			l.Wire(wev(WireDelivered, 9*time.Second, 1, "core", "d1", "p3", wire.ExecutionPrepare{SessionID: "s3"}))
			l.CloseCalled(ns(9*time.Second), "d1", "e1")
		},
		"reused": func(l *Ledger) {
			l.Wire(wev(WireSent, 9*time.Second, 1, "d1", "core", "p4", wire.PreparationStatus{ExecutorID: "e1", Reused: true, Handle: "h4", Revision: 1, State: wire.StateReady}))
		},
		"daemon crashed": func(l *Ledger) { l.NodeCrashed(ns(9*time.Second), "d1") },
	}
	for name, script := range cases {
		t.Run(name, func(t *testing.T) {
			l := idleAfterDone()
			script(l)
			tick(l, 60*time.Second)
			wantClean(t, l)
		})
	}
}

func TestIdleExecutorAfterExpiredPreparation(t *testing.T) {
	l := NewLedger()
	l.TimerConfigured("d1", TimerIdleExecutor, 20*time.Second)
	l.Wire(wev(WireSent, time.Second, 1, "d1", "core", "p1", wire.PreparationStatus{ExecutorID: "e1", Handle: "h1", Revision: 1, State: wire.StatePreparing}))
	l.Wire(wev(WireSent, 3*time.Second, 1, "d1", "core", "p1", wire.PreparationStatus{ExecutorID: "e1", Handle: "h1", Revision: 2, State: wire.StateExpired}))
	l.ExecutorCreated(ns(7*time.Second), "d1", "e1") // idle from here
	tick(l, 28*time.Second)
	wantViolation(t, l, CheckTimingIdleExecutor, "idle since 7s was not closed at 27s")
}

// A native write whose budget ends at the close's instant may end its Turn
// then (its connection gone, no done on the wire) and park its executor:
// the early close of another idle executor is an eviction. A close at any
// other instant is still judged.
func TestIdleExecutorEvictedWhenAWriteBudgetEnds(t *testing.T) {
	l := idleAfterDone()
	l.WriteCalled(ns(time.Second), "d1", "r9", "1")
	l.CloseCalled(ns(11*time.Second), "d1", "e1") // 1 s + the documented 10 s
	tick(l, 60*time.Second)
	if got := violationsOf(l, CheckTimingIdleExecutor); len(got) != 0 {
		t.Fatalf("eviction at a write's budget judged early: %v", got)
	}
	l = idleAfterDone()
	l.WriteCalled(ns(time.Second), "d1", "r9", "1")
	l.CloseCalled(ns(12*time.Second), "d1", "e1")
	tick(l, 60*time.Second)
	if got := violationsOf(l, CheckTimingIdleExecutor); len(got) != 1 {
		t.Fatalf("early close not at a write's budget: got %v", got)
	}
}

// Regression: seed 700990. An executor reused for a new admission (h2)
// whose earlier admission's expired status (h1) was republished in the
// same instant was taken as idle from then, though h2 held it.
func TestIdleExecutorRepublishedEndOfAnEarlierAdmission(t *testing.T) {
	l := NewLedger()
	l.TimerConfigured("d1", TimerIdleExecutor, 20*time.Second)
	l.Wire(wev(WireSent, time.Second, 1, "d1", "core", "p1", wire.PreparationStatus{ExecutorID: "e1", Handle: "h1", Revision: 1, State: wire.StateReady}))
	l.Wire(wev(WireSent, 2*time.Second, 1, "d1", "core", "p1", wire.PreparationStatus{ExecutorID: "e1", Handle: "h1", Revision: 2, State: wire.StateExpired}))
	l.Wire(wev(WireSent, 5*time.Second, 1, "d1", "core", "p2", wire.PreparationStatus{ExecutorID: "e1", Handle: "h2", Revision: 1, State: wire.StateReady, Reused: true}))
	l.Wire(wev(WireSent, 5*time.Second, 1, "d1", "core", "p1", wire.PreparationStatus{ExecutorID: "e1", Handle: "h1", Revision: 2, State: wire.StateExpired}))
	tick(l, 40*time.Second)
	if got := violationsOf(l, CheckTimingIdleExecutor); len(got) != 0 {
		t.Fatalf("idle timing judged an executor a later admission holds: %v", got)
	}
}

func TestShutdownClosesIdleExecutorsAtOnce(t *testing.T) {
	l := idleAfterDone()
	l.ShutdownRequested(ns(8*time.Second), "d1")
	l.CloseCalled(ns(8*time.Second), "d1", "e1")
	tick(l, 60*time.Second)
	wantClean(t, l)
}

func TestShutdownLeavingAnIdleExecutorOpenIsCaught(t *testing.T) {
	l := idleAfterDone()
	l.ShutdownRequested(ns(8*time.Second), "d1")
	tick(l, 9*time.Second)
	wantViolation(t, l, CheckShutdownClosesIdle, "did not close executor e1 (idle since 5s) at 8s")
}

// An executor whose Run ends after the shutdown request is closed in the
// step that ends the Run, not parked; a close called before the done
// leaves it is as good.
func TestShutdownClosesAnExecutorItsRunFrees(t *testing.T) {
	start := func() *Ledger {
		l := NewLedger()
		l.TimerConfigured("d1", TimerIdleExecutor, 20*time.Second)
		l.Wire(wev(WireDelivered, time.Second, 1, "core", "d1", "p1", wire.ExecutionStart{ExecutorID: "e1", RunID: "r1", Handle: "h1"}))
		l.ShutdownRequested(ns(2*time.Second), "d1")
		return l
	}
	l := start()
	l.CloseCalled(ns(5*time.Second), "d1", "e1")
	l.Wire(wev(WireSent, 5*time.Second, 1, "d1", "core", "r1", wire.Done{}))
	tick(l, 60*time.Second)
	wantClean(t, l)

	l = start()
	l.Wire(wev(WireSent, 5*time.Second, 1, "d1", "core", "r1", wire.Done{}))
	l.CloseCalled(ns(25*time.Second), "d1", "e1") // parked for its idle bound
	tick(l, 60*time.Second)
	wantViolation(t, l, CheckShutdownClosesIdle, "did not close executor e1 (went idle after shutdown was requested) at 5s")
}

// A daemon that crashed in the shutdown's instant took its executors with
// it: nothing is owed.
func TestShutdownThenCrashOwesNoClose(t *testing.T) {
	l := idleAfterDone()
	l.ShutdownRequested(ns(8*time.Second), "d1")
	l.NodeCrashed(ns(8*time.Second), "d1")
	tick(l, 60*time.Second)
	wantClean(t, l)
}
