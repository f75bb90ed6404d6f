package check

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

const ms = int64(time.Millisecond)

// turnWithRun submits turn t in session s and starts run r natively.
func turnWithRun(l *Ledger, s, t, r string) {
	l.TurnSubmitted(0, s, t)
	l.RunStartSent(1, t, r, "d1", "c1", "h-"+r)
	l.TurnCreated(2, "d1", r)
}

func TestLinearizableHistory(t *testing.T) {
	l := NewLedger()
	turnWithRun(l, "s1", "t1", "r1")
	// two clients read concurrently around the transition to running
	l.ReadTurn(10*ms, 20*ms, "s1", "t1", TurnQueued)
	l.ReadTurn(15*ms, 40*ms, "s1", "t1", TurnRunning)
	l.ReadTurn(18*ms, 25*ms, "s1", "t1", TurnPreparing)
	// i1 accepted, i2 unknown but applied, i3 rejected, i4 unknown, never applied
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
	l.ReadTurn(60*ms, 70*ms, "s2", "t3", TurnCancelled)

	var html bytes.Buffer
	res := Linearize(l, LinearizeOptions{HTML: &html})
	if res.Result != porcupine.Ok || !res.Passed() {
		t.Fatalf("want Ok, got %s", res)
	}
	if res.Partitions != 4 || html.Len() != 0 {
		t.Fatalf("partitions=%d html=%d", res.Partitions, html.Len())
	}
	if _, bad := res.Violation(1); bad {
		t.Fatal("Ok result produced a violation")
	}
}

func illegalCases() map[string]func(l *Ledger) {
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

func TestIllegalHistoriesWriteAnnotatedHTML(t *testing.T) {
	cases := illegalCases()
	for _, name := range sortedKeys(cases) {
		t.Run(name, func(t *testing.T) {
			l := NewLedger()
			turnWithRun(l, "s1", "t1", "r1")
			cases[name](l)
			var html bytes.Buffer
			faults := []FaultEvent{{At: 12 * ms, Until: 18 * ms, Kind: "connection_loss", Detail: "d1 conn c1 dropped"}}
			res := Linearize(l, LinearizeOptions{HTML: &html, Faults: faults})
			if res.Result != porcupine.Illegal || res.Passed() {
				t.Fatalf("want Illegal, got %s", res)
			}
			if len(res.Illegal) != 1 {
				t.Fatalf("illegal partitions: %v", res.Illegal)
			}
			v, bad := res.Violation(99)
			if !bad || v.Check != CheckLinearizability || !strings.Contains(v.Message, "s1/t1") {
				t.Fatalf("violation: %v %v", v, bad)
			}
			if !res.HTMLWritten || html.Len() == 0 {
				t.Fatalf("no HTML written (err %v)", res.HTMLError)
			}
			for _, want := range []string{"connection_loss", "d1 conn c1 dropped"} {
				if !strings.Contains(html.String(), want) {
					t.Fatalf("HTML lacks annotation %q", want)
				}
			}
		})
	}
}

func TestIllegalNamesOnlyTheBadPartition(t *testing.T) {
	l := NewLedger()
	turnWithRun(l, "s1", "t1", "r1")
	turnWithRun(l, "s2", "t2", "r2")
	l.ReadTurn(10*ms, 20*ms, "s1", "t1", TurnRunning)
	l.ReadTurn(10*ms, 20*ms, "s2", "t2", TurnRunning)
	l.ReadTurn(30*ms, 40*ms, "s2", "t2", TurnPreparing)
	l.SteerInput(10*ms, 20*ms, "s1", "t1", "i1", InputAccepted)
	l.InputApplied(15*ms, "r1", "i1")
	res := Linearize(l, LinearizeOptions{})
	if res.Result != porcupine.Illegal || fmt.Sprint(res.Illegal) != "[turn s2/t2]" {
		t.Fatalf("got %s", res)
	}
	if res.HTMLWritten {
		t.Fatal("HTML written without a writer")
	}
}

// pathological builds one input partition where n open steers of inputs
// that were never applied can be linearized in 2^n subsets, while an
// applied input whose only steer was rejected makes the end unreachable:
// the search is exponential before it can answer Illegal.
func pathological(n int) *Ledger {
	l := NewLedger()
	turnWithRun(l, "s1", "t1", "r1")
	for i := 0; i < n; i++ {
		l.SteerInput(10*ms, 0, "s1", "t1", fmt.Sprintf("u%02d", i), InputUnknown)
	}
	l.SteerInput(10*ms, 20*ms, "s1", "t1", "x", InputRejected)
	l.InputApplied(15*ms, "r1", "x")
	return l
}

func TestTimeoutIsUnknownNotPass(t *testing.T) {
	res := Linearize(pathological(48), LinearizeOptions{Timeout: 20 * time.Millisecond})
	if res.Result != porcupine.Unknown {
		t.Fatalf("want Unknown from a 2^48 search in 20ms, got %s", res)
	}
	if res.Passed() {
		t.Fatal("Unknown counted as a pass")
	}
	if _, bad := res.Violation(1); bad {
		t.Fatal("Unknown reported as a violation; it is its own result")
	}
	if !strings.Contains(res.String(), "Unknown") {
		t.Fatalf("summary hides Unknown: %s", res)
	}
	// the same shape, small enough to finish, is Illegal: the timeout is
	// what made the big one Unknown
	if small := Linearize(pathological(4), LinearizeOptions{}); small.Result != porcupine.Illegal {
		t.Fatalf("small pathological history: %s", small)
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
		var b strings.Builder
		for _, op := range l.History() {
			fmt.Fprintf(&b, "%d %d %d %s\n", op.ClientId, op.Call, op.Return, describeOperation(op.Input, op.Output))
		}
		return b.String()
	}
	first := describe()
	if !strings.HasPrefix(first, "0 1000000 9000000 read t1 -> running") {
		t.Fatalf("partitions not sorted:\n%s", first)
	}
	for i := 0; i < 5; i++ {
		if describe() != first {
			t.Fatal("history differs between identical ledgers")
		}
	}
}
