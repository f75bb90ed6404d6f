package check

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/turnstile-sim/turnstile/sim/linearize"
)

const ms = int64(time.Millisecond)

// turnWithRun submits turn t in session s and starts run r natively.
func turnWithRun(l *Ledger, s, t, r string) {
	l.TurnSubmitted(0, s, t)
	l.RunStartSent(1, t, r, "d1", "c1", "h-"+r)
	l.TurnCreated(2, "d1", r)
}

// describeHistory renders l's History one operation a line: lane, call,
// return, partition and the operation in words.
func describeHistory(l *Ledger) string {
	var b strings.Builder
	for _, op := range l.History() {
		fmt.Fprintf(&b, "%d %d %d %s: %s\n", op.ClientId, op.Call, op.Return, op.Input.(linearize.Input).Part,
			linearize.Model().DescribeOperation(op.Input, op.Output))
	}
	return b.String()
}

// History turns the ledger's reads, steers, settlements and applied
// inputs into operations: a truth per settlement open to the horizon (or
// "none" over the whole history for a turn no run of which became
// native), unknown steers open to the horizon, the applied log restricted
// to steered inputs, and an end at the horizon; each family's partitions
// sorted, the turn family first. The history has a linearization.
func TestHistoryOperations(t *testing.T) {
	l := NewLedger()
	turnWithRun(l, "s1", "t1", "r1")
	// two clients read concurrently around the transition to running
	l.ReadTurn(10*ms, 20*ms, "s1", "t1", TurnQueued)
	l.ReadTurn(15*ms, 40*ms, "s1", "t1", TurnRunning)
	l.ReadTurn(18*ms, 25*ms, "s1", "t1", TurnPreparing)
	// i1 accepted, i2 unknown but applied, i3 rejected, i4 unknown, never
	// applied; i0 applied without a steer (an initial input)
	l.InputApplied(5*ms, "r1", "i0")
	l.SteerInput(30*ms, 50*ms, "s1", "t1", "i1", InputAccepted)
	l.InputApplied(45*ms, "r1", "i1")
	l.SteerInput(60*ms, 0, "s1", "t1", "i2", InputUnknown)
	l.InputApplied(95*ms, "r1", "i2")
	l.SteerInput(70*ms, 80*ms, "s1", "t1", "i3", InputRejected)
	l.SteerInput(90*ms, 0, "s1", "t1", "i4", InputUnknown)
	l.TurnSettled(100*ms, "r1", NativeCompleted)
	l.ReadTurn(110*ms, 120*ms, "s1", "t1", TurnCompleted)
	l.ReadTurn(130*ms, 140*ms, "s1", "t1", TurnCompleted)
	// a turn cancelled before any run started natively
	l.TurnSubmitted(0, "s1", "t2")
	l.ReadTurn(10*ms, 20*ms, "s1", "t2", TurnQueued)
	l.ReadTurn(30*ms, 40*ms, "s1", "t2", TurnCancelled)
	// a cancel that raced natural completion: the applied cancel receipt
	// decides the public state although the Harness completed the turn
	turnWithRun(l, "s2", "t3", "r3")
	l.TurnSettled(50*ms, "r3", NativeCompleted)
	l.ReadTurn(60*ms, 70*ms, "", "t3", TurnCancelled) // the session defaults to the turn's

	want := `0 10000000 20000000 turn s1/t1: read t1 -> queued
1 15000000 40000000 turn s1/t1: read t1 -> running
2 18000000 25000000 turn s1/t1: read t1 -> preparing
1 110000000 120000000 turn s1/t1: read t1 -> completed
1 130000000 140000000 turn s1/t1: read t1 -> completed
0 100000000 140000001 turn s1/t1: native settlement of t1: completed
1 10000000 20000000 turn s1/t2: read t2 -> queued
1 30000000 40000000 turn s1/t2: read t2 -> cancelled
0 0 140000001 turn s1/t2: native settlement of t2: none
1 60000000 70000000 turn s2/t3: read t3 -> cancelled
0 50000000 140000001 turn s2/t3: native settlement of t3: completed
0 30000000 50000000 inputs s1/t1: steer i1 on t1 -> accepted
0 60000000 140000001 inputs s1/t1: steer i2 on t1 -> unknown
1 70000000 80000000 inputs s1/t1: steer i3 on t1 -> rejected
1 90000000 140000001 inputs s1/t1: steer i4 on t1 -> unknown
2 140000001 140000001 inputs s1/t1: end of t1: applied [i1 i2]
`
	if got := describeHistory(l); got != want {
		t.Fatalf("history:\n%s\nwant:\n%s", got, want)
	}
	res := linearize.Check(l.History(), linearize.Options{})
	if res.Result != porcupine.Ok || res.Partitions != 4 {
		t.Fatalf("want Ok over 4 partitions, got %s", res)
	}
	if _, bad := LinearizeViolation(res, 1); bad {
		t.Fatal("Ok result produced a violation")
	}
}

// illegalLedgers are records of Turn t1 of session s1 (run r1 started
// natively) whose history has no linearization.
func illegalLedgers() map[string]func(l *Ledger) {
	return map[string]func(l *Ledger){
		"read regresses": func(l *Ledger) {
			l.ReadTurn(10*ms, 20*ms, "s1", "t1", TurnRunning)
			l.ReadTurn(30*ms, 40*ms, "s1", "t1", TurnQueued)
		},
		"terminal changes": func(l *Ledger) {
			l.TurnSettled(5*ms, "r1", NativeCompleted)
			l.ReadTurn(10*ms, 20*ms, "s1", "t1", TurnCompleted)
			l.ReadTurn(30*ms, 40*ms, "s1", "t1", TurnFailed)
		},
		"done overrides native cancel": func(l *Ledger) {
			l.TurnSettled(5*ms, "r1", NativeCancelled)
			l.ReadTurn(10*ms, 20*ms, "s1", "t1", TurnCompleted)
		},
		"completed before native settlement": func(l *Ledger) {
			l.ReadTurn(10*ms, 20*ms, "s1", "t1", TurnCompleted)
			l.TurnSettled(30*ms, "r1", NativeCompleted)
		},
		"accepted never applied": func(l *Ledger) {
			l.SteerInput(10*ms, 20*ms, "s1", "t1", "i1", InputAccepted)
		},
		"rejected but applied": func(l *Ledger) {
			l.SteerInput(10*ms, 20*ms, "s1", "t1", "i1", InputRejected)
			l.InputApplied(15*ms, "r1", "i1")
		},
		"applied out of order": func(l *Ledger) {
			l.SteerInput(10*ms, 20*ms, "s1", "t1", "i1", InputAccepted)
			l.SteerInput(30*ms, 40*ms, "s1", "t1", "i2", InputAccepted)
			l.InputApplied(15*ms, "r1", "i2")
			l.InputApplied(16*ms, "r1", "i1")
		},
		"unknown never applied yet accepted on retry": func(l *Ledger) {
			l.SteerInput(10*ms, 0, "s1", "t1", "i1", InputUnknown)
			l.SteerInput(30*ms, 40*ms, "s1", "t1", "i1", InputAccepted)
		},
	}
}

// An illegal history of the ledger is a linearizability violation naming
// its partition; Ok and Unknown results are none.
func TestLinearizeViolation(t *testing.T) {
	cases := illegalLedgers()
	for _, name := range slices.Sorted(maps.Keys(cases)) {
		t.Run(name, func(t *testing.T) {
			l := NewLedger()
			turnWithRun(l, "s1", "t1", "r1")
			cases[name](l)
			res := linearize.Check(l.History(), linearize.Options{})
			v, bad := LinearizeViolation(res, 99)
			if !bad || v.Check != CheckLinearizability || v.At != 99 || !strings.HasPrefix(v.Message, "no linearization for ") ||
				!strings.Contains(v.Message, "s1/t1") {
				t.Fatalf("%s: violation %v %v", res, v, bad)
			}
		})
	}
	for _, r := range []porcupine.CheckResult{porcupine.Ok, porcupine.Unknown} {
		if v, bad := LinearizeViolation(linearize.Result{Result: r}, 1); bad {
			t.Errorf("%s reported as a violation: %v", r, v)
		}
	}
}

func TestHistoryIsDeterministic(t *testing.T) {
	describe := func() string {
		l := NewLedger()
		for _, turn := range []string{"t3", "t1", "t2"} {
			turnWithRun(l, "s-"+turn, turn, "r-"+turn)
			l.ReadTurn(1*ms, 9*ms, "", turn, TurnRunning)
			l.SteerInput(2*ms, 0, "", turn, "i-"+turn, InputUnknown)
		}
		return describeHistory(l)
	}
	first := describe()
	if !strings.HasPrefix(first, "0 1000000 9000000 turn s-t1/t1: read t1 -> running") {
		t.Fatalf("partitions not sorted:\n%s", first)
	}
	for i := 0; i < 5; i++ {
		if describe() != first {
			t.Fatal("history differs between identical ledgers")
		}
	}
}
