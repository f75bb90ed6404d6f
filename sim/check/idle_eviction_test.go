package check

import (
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

// evictionRun: three executors on d1 become idle at 10, 20 and 30 (ex-1
// by a release, ex-2 and ex-3 by their Runs' done); a prepare delivered
// at 40 then makes the Harness receive a close for victim.
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
	if lostTurn {
		l.Wire(WireEvent{At: 25, Kind: WireClosed, Conn: 1, From: "core", To: "d1"})
	} else {
		l.Wire(wf(30, WireSent, 1, "d1", "core", "r3", wire.Done{}))
	}
	l.Wire(wf(40, WireDelivered, 1, "core", "d1", "p-new", wire.ExecutionPrepare{SessionID: "s9"}))
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

func TestEvictionNotJudgedWithUnknownIdleInstant(t *testing.T) {
	// ex-3's Turn belonged to the lost connection: it becomes idle when
	// its Turn settles, unseen on the wire.
	l := evictionRun("ex-2", true)
	only(t, l, "", "")
	if l.marks[MarkIdleEvictionJudged] != 0 {
		t.Fatal("eviction judged with an unknown idle instant")
	}
}

func TestCloseOutsidePrepareIsNotEviction(t *testing.T) {
	l := evictionRun("ex-1", false)
	l.CloseRequested(50, "d1", "ex-3") // idle expiry or shutdown: not judged
	only(t, l, "", "")
}
