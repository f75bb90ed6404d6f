package check

import (
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

// evictionRun: three executors on d1 become idle at 10, 20 and 30 (ex-1
// by a release, ex-2 and ex-3 by their Runs' done); a prepare delivered
// at 40 then makes the Harness receive a close for victim. With
// lostTurn, the connection is lost at 25 while ex-3 runs: the daemon
// closes the idle ex-1 and ex-2 then (executor_connection_bound), and
// ex-3 is closed once its Turn settles; the prepare comes on connection 2.
func evictionRun(victim string, lostTurn bool) *Ledger {
	l := NewLedger()
	st := func(at int64, ex, state, run string) {
		l.Wire(wf(at, WireSent, 1, "d1", "core", "p-"+ex, wire.PreparationStatus{ExecutorID: ex, Handle: "h-" + ex,
			Revision: 1, State: state, RunID: run}))
	}
	for _, ex := range []string{"ex-1", "ex-2", "ex-3"} {
		st(1, ex, wire.StatePreparing, "")
		l.ExecutorCreated(2, "d1", ex)
		st(2, ex, wire.StateReady, "")
	}
	st(10, "ex-1", wire.StateReleased, "")
	st(11, "ex-2", wire.StateStarted, "r2")
	st(11, "ex-3", wire.StateStarted, "r3")
	l.Wire(wf(20, WireSent, 1, "d1", "core", "r2", wire.Done{}))
	conn := uint64(1)
	if lostTurn {
		l.Wire(WireEvent{At: 25, Kind: WireClosed, Conn: 1, From: "core", To: "d1"})
		for _, ex := range []string{"ex-1", "ex-2"} {
			l.CloseRequested(25, "d1", ex)
			l.CloseCalled(25, "d1", ex)
		}
		conn = 2
	} else {
		l.Wire(wf(30, WireSent, 1, "d1", "core", "r3", wire.Done{}))
	}
	l.Wire(wf(40, WireDelivered, conn, "core", "d1", "p-new", wire.ExecutionPrepare{SessionID: "s9"}))
	l.CloseRequested(40, "d1", victim)
	return l
}

func TestEvictionOfLongestIdleIsClean(t *testing.T) {
	l := evictionRun("ex-1", false)
	only(t, l, "", "")
	if l.marks[MarkIdleEvictionJudged] != 1 {
		t.Fatalf("eviction not judged: marks %v", l.Marks())
	}
}

func TestEvictionOfNewerIdle(t *testing.T) {
	only(t, evictionRun("ex-3", false), CheckIdleEviction, "evicted executor ex-3 (idle since 30ns) while executor ex-1 was idle longer (since 10ns)")
}

func TestEvictionTieGoesToFirstCreated(t *testing.T) {
	l := NewLedger()
	for _, ex := range []string{"ex-1", "ex-2"} {
		l.Wire(wf(1, WireSent, 1, "d1", "core", "p-"+ex, wire.PreparationStatus{ExecutorID: ex, Handle: "h-" + ex, Revision: 1, State: wire.StatePreparing}))
		l.Wire(wf(2, WireSent, 1, "d1", "core", "p-"+ex, wire.PreparationStatus{ExecutorID: ex, Handle: "h-" + ex, Revision: 2, State: wire.StateExpired}))
		l.ExecutorCreated(3, "d1", ex)
	}
	l.Wire(wf(9, WireDelivered, 1, "core", "d1", "p-new", wire.ExecutionPrepare{SessionID: "s9"}))
	l.CloseRequested(9, "d1", "ex-2")
	only(t, l, CheckIdleEviction, "executor ex-1 was idle longer")
}

func TestNoEvictionOfALostConnectionsExecutors(t *testing.T) {
	// The lost connection's executors are closing (ex-1, ex-2) or closed
	// once ex-3's Turn settles: none is idle, so no close is an eviction.
	for _, victim := range []string{"ex-2", "ex-3"} {
		l := evictionRun(victim, true)
		only(t, l, "", "")
		if l.marks[MarkIdleEvictionJudged] != 0 {
			t.Fatalf("eviction of %s judged among a lost connection's executors", victim)
		}
	}
}

func TestCloseOutsidePrepareIsNotEviction(t *testing.T) {
	l := evictionRun("ex-1", false)
	l.CloseRequested(50, "d1", "ex-3") // idle expiry or shutdown: not judged
	only(t, l, "", "")
}

// resumeRun: ex-1 (Session s1) and ex-2 (Session s2) go idle at 10 and 20;
// ex-2 was prepared naming resume2 (none: a new root) and its Run's done
// names doneNative. A prepare for s2 naming n2 then makes the Harness
// receive a close for ex-2.
func resumeRun(resume2, doneNative string) *Ledger {
	l := NewLedger()
	prep := func(at int64, ex, session, resume string) {
		p := wire.ExecutionPrepare{SessionID: session}
		p.Configuration.AgentSessionID = resume
		l.Wire(wf(at, WireDelivered, 1, "core", "d1", "p-"+ex, p))
		l.Wire(wf(at, WireSent, 1, "d1", "core", "p-"+ex, wire.PreparationStatus{ExecutorID: ex, Handle: "h-" + ex, Revision: 1, State: wire.StatePreparing}))
		l.ExecutorCreated(at+1, "d1", ex)
		l.Wire(wf(at+1, WireSent, 1, "d1", "core", "p-"+ex, wire.PreparationStatus{ExecutorID: ex, Handle: "h-" + ex, Revision: 2, State: wire.StateReady}))
	}
	prep(1, "ex-1", "s1", "")
	prep(3, "ex-2", "s2", resume2)
	l.Wire(wf(10, WireSent, 1, "d1", "core", "p-ex-1", wire.PreparationStatus{ExecutorID: "ex-1", Handle: "h-ex-1", Revision: 3, State: wire.StateReleased}))
	l.Wire(wf(11, WireSent, 1, "d1", "core", "p-ex-2", wire.PreparationStatus{ExecutorID: "ex-2", Handle: "h-ex-2", Revision: 4, State: wire.StateStarted, RunID: "r2"}))
	done := wire.Done{}
	if doneNative != "" {
		done.Metadata = &wire.DoneMetadata{AgentSessionID: doneNative}
	}
	l.Wire(wf(20, WireSent, 1, "d1", "core", "r2", done))
	p := wire.ExecutionPrepare{SessionID: "s2"}
	p.Configuration.AgentSessionID = "n2"
	l.Wire(wf(40, WireDelivered, 1, "core", "d1", "p-new", p))
	l.CloseRequested(40, "d1", "ex-2")
	return l
}

// evictionViolations are l's idle_eviction violations (the prepares of
// resumeRun are bare: other checks of their content are not its subject).
func evictionViolations(l *Ledger) []Violation { return checkOnly(l, CheckIdleEviction) }

func TestResumeReplacingARootlessExecutorIsNotEviction(t *testing.T) {
	l := resumeRun("", "")
	if vs := evictionViolations(l); len(vs) > 0 {
		t.Fatalf("unexpected violations:\n%s", Render(vs))
	}
	if l.marks[MarkResumeReplacedExecutor] != 1 || l.marks[MarkIdleEvictionJudged] != 0 {
		t.Fatalf("replacement not told apart from eviction: marks %v", l.Marks())
	}
}

func TestResumeClosingAnExecutorPreparedToResumeIsEviction(t *testing.T) {
	vs := evictionViolations(resumeRun("n2", ""))
	if len(vs) != 1 || !strings.Contains(vs[0].Message, "evicted executor ex-2 (idle since 20ns) while executor ex-1 was idle longer (since 10ns)") {
		t.Fatalf("want one wrong-order eviction, got:\n%s", Render(vs))
	}
}

func TestResumeClosingAnExecutorWhoseDoneNamedItsSessionIsEviction(t *testing.T) {
	vs := evictionViolations(resumeRun("", "n2"))
	if len(vs) != 1 || !strings.Contains(vs[0].Message, "evicted executor ex-2") {
		t.Fatalf("want one wrong-order eviction, got:\n%s", Render(vs))
	}
}

// An admission that was starting when its connection went may still start
// its native Turn: its executor is closed once that Turn settles, never
// idle, so a later close of it is no eviction.
func TestEvictionNotJudgedAfterConnectionLostWhileStarting(t *testing.T) {
	l := NewLedger()
	for _, ex := range []string{"ex-1", "ex-2"} {
		l.Wire(wf(1, WireSent, 1, "d1", "core", "p-"+ex, wire.PreparationStatus{ExecutorID: ex, Handle: "h-" + ex, Revision: 1, State: wire.StatePreparing}))
		l.ExecutorCreated(2, "d1", ex)
		l.Wire(wf(2, WireSent, 1, "d1", "core", "p-"+ex, wire.PreparationStatus{ExecutorID: ex, Handle: "h-" + ex, Revision: 2, State: wire.StateReady}))
	}
	l.Wire(wf(3, WireSent, 1, "d1", "core", "p-ex-1", wire.PreparationStatus{ExecutorID: "ex-1", Handle: "h-ex-1", Revision: 3, State: wire.StateStarting, RunID: "r1"}))
	l.Wire(WireEvent{At: 4, Kind: WireClosed, Conn: 1, From: "core", To: "d1"})
	l.CloseRequested(4, "d1", "ex-2") // ready: closed with its connection
	l.CloseCalled(4, "d1", "ex-2")
	l.Wire(wf(9, WireDelivered, 2, "core", "d1", "p-new", wire.ExecutionPrepare{SessionID: "s9"}))
	l.CloseRequested(9, "d1", "ex-1")
	only(t, l, "", "")
	if l.marks[MarkIdleEvictionJudged] != 0 {
		t.Fatal("eviction judged although ex-1's Turn may run unseen")
	}
}

// A daemon that crashes loses its executors with its Harness, and the
// restarted daemon numbers its own from ex-1 again: an executor known
// before the crash must not lend its Session to the new one of the same
// ID. Here the old ex-2 served s1; after the restart ex-2 serves s2,
// rootless, and a resume of s2 replaces it.
func TestCrashForgetsTheExecutorsOfTheOldProcess(t *testing.T) {
	l := NewLedger()
	prep := func(at int64, conn uint64, ex, session string) {
		l.Wire(wf(at, WireDelivered, conn, "core", "d1", "p-"+session+ex, wire.ExecutionPrepare{SessionID: session}))
		l.Wire(wf(at, WireSent, conn, "d1", "core", "p-"+session+ex, wire.PreparationStatus{ExecutorID: ex, Handle: "h-" + ex, Revision: 1, State: wire.StatePreparing}))
	}
	prep(1, 1, "ex-1", "s0")
	prep(1, 1, "ex-2", "s1") // its Harness prepare never finishes
	l.NodeCrashed(5, "d1")
	prep(10, 2, "ex-1", "s3")
	prep(10, 2, "ex-2", "s2")
	for _, ex := range []string{"ex-1", "ex-2"} {
		l.ExecutorCreated(11, "d1", ex)
	}
	l.Wire(wf(12, WireSent, 2, "d1", "core", "p-s3ex-1", wire.PreparationStatus{ExecutorID: "ex-1", Handle: "h-ex-1", Revision: 2, State: wire.StateReleased}))
	l.Wire(wf(12, WireSent, 2, "d1", "core", "p-s2ex-2", wire.PreparationStatus{ExecutorID: "ex-2", Handle: "h-ex-2", Revision: 2, State: wire.StateReleased}))
	p := wire.ExecutionPrepare{SessionID: "s2"}
	p.Configuration.AgentSessionID = "n2"
	l.Wire(wf(20, WireDelivered, 2, "core", "d1", "p-new", p))
	l.CloseRequested(20, "d1", "ex-2")
	if vs := evictionViolations(l); len(vs) > 0 {
		t.Fatalf("unexpected violations:\n%s", Render(vs))
	}
	if l.marks[MarkResumeReplacedExecutor] != 1 {
		t.Fatalf("replacement of the restarted daemon's ex-2 not recognised: marks %v", l.Marks())
	}
}

func TestARoguesPreparesTellItsExecutorsApart(t *testing.T) {
	// The same replacement as TestResumeReplacingARootlessExecutorIsNotEviction,
	// every prepare forged by a rogue on Core's side: the daemon acts on
	// them all the same, so the close still replaces, not evicts.
	l := NewLedger()
	forged := func(ev WireEvent) WireEvent { ev.Forged = true; return ev }
	prep := func(at int64, ex, session string) {
		l.Wire(forged(wf(at, WireDelivered, 1, "core", "d1", "x-p-"+ex, wire.ExecutionPrepare{SessionID: session})))
		l.Wire(wf(at, WireSent, 1, "d1", "core", "x-p-"+ex, wire.PreparationStatus{ExecutorID: ex, Handle: "h-" + ex, Revision: 1, State: wire.StatePreparing}))
		l.ExecutorCreated(at+1, "d1", ex)
		l.Wire(wf(at+1, WireSent, 1, "d1", "core", "x-p-"+ex, wire.PreparationStatus{ExecutorID: ex, Handle: "h-" + ex, Revision: 2, State: wire.StateReady}))
	}
	prep(1, "ex-1", "s1")
	prep(3, "ex-2", "s2")
	l.Wire(wf(10, WireSent, 1, "d1", "core", "x-p-ex-1", wire.PreparationStatus{ExecutorID: "ex-1", Handle: "h-ex-1", Revision: 3, State: wire.StateReleased}))
	l.Wire(wf(20, WireSent, 1, "d1", "core", "x-p-ex-2", wire.PreparationStatus{ExecutorID: "ex-2", Handle: "h-ex-2", Revision: 3, State: wire.StateReleased}))
	p := wire.ExecutionPrepare{SessionID: "s2"}
	p.Configuration.AgentSessionID = "n2"
	l.Wire(forged(wf(40, WireDelivered, 1, "core", "d1", "x-p-new", p)))
	l.CloseRequested(40, "d1", "ex-2")
	if vs := evictionViolations(l); len(vs) > 0 {
		t.Fatalf("a rogue's replacement judged as an eviction:\n%s", Render(vs))
	}
	if l.marks[MarkResumeReplacedExecutor] != 1 {
		t.Fatalf("replacement not seen: marks %v", l.Marks())
	}
}
