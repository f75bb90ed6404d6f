package linearize

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

func TestLinearizableHistory(t *testing.T) {
	const horizon = 140*ms + 1
	h := newHistory()
	// two clients read concurrently around the transition to running
	h.read("s1", "t1", 10*ms, 20*ms, TurnQueued)
	h.read("s1", "t1", 15*ms, 40*ms, TurnRunning)
	h.read("s1", "t1", 18*ms, 25*ms, TurnPreparing)
	h.read("s1", "t1", 110*ms, 120*ms, TurnCompleted)
	h.read("s1", "t1", 130*ms, 140*ms, TurnCompleted)
	h.settled("s1", "t1", NativeCompleted, 100*ms, horizon)
	// i1 accepted (applied at 45 ms), i2 unknown but applied (at 95 ms),
	// i3 rejected, i4 unknown, never applied
	applied := []string{"i1", "i2"}
	h.steer("s1", "t1", "i1", applied, 30*ms, 50*ms, InputAccepted)
	h.steer("s1", "t1", "i2", applied, 60*ms, horizon, InputUnknown)
	h.steer("s1", "t1", "i3", applied, 70*ms, 80*ms, InputRejected)
	h.steer("s1", "t1", "i4", applied, 90*ms, horizon, InputUnknown)
	h.end("s1", "t1", applied, horizon)
	// a turn cancelled before any run started natively
	h.read("s1", "t2", 10*ms, 20*ms, TurnQueued)
	h.read("s1", "t2", 30*ms, 40*ms, TurnCancelled)
	h.settled("s1", "t2", NativeNone, 0, horizon)
	// a cancel that raced natural completion: the applied cancel receipt
	// decides the public state although the Harness completed the turn
	h.read("s2", "t3", 60*ms, 70*ms, TurnCancelled)
	h.settled("s2", "t3", NativeCompleted, 50*ms, horizon)

	var html bytes.Buffer
	res := Check(h.ops(), Options{HTML: &html})
	if res.Result != porcupine.Ok || len(res.Illegal) != 0 {
		t.Fatalf("want Ok, got %s", res)
	}
	if res.Partitions != 4 || res.Operations != 16 || html.Len() != 0 || res.HTMLWritten {
		t.Fatalf("partitions=%d operations=%d html=%d", res.Partitions, res.Operations, html.Len())
	}
}

// illegalCases are histories of Turn t1 of session s1 without a
// linearization, each in one partition.
func illegalCases() map[string]func(h history) {
	return map[string]func(h history){
		"read regresses": func(h history) {
			h.read("s1", "t1", 10*ms, 20*ms, TurnRunning)
			h.read("s1", "t1", 30*ms, 40*ms, TurnQueued)
		},
		"terminal changes": func(h history) {
			h.read("s1", "t1", 10*ms, 20*ms, TurnCompleted)
			h.read("s1", "t1", 30*ms, 40*ms, TurnFailed)
			h.settled("s1", "t1", NativeCompleted, 5*ms, 40*ms+1)
		},
		"done overrides native cancel": func(h history) {
			h.read("s1", "t1", 10*ms, 20*ms, TurnCompleted)
			h.settled("s1", "t1", NativeCancelled, 5*ms, 20*ms+1)
		},
		"completed before native settlement": func(h history) {
			h.read("s1", "t1", 10*ms, 20*ms, TurnCompleted)
			h.settled("s1", "t1", NativeCompleted, 30*ms, 30*ms+1)
		},
		"accepted never applied": func(h history) {
			h.steer("s1", "t1", "i1", nil, 10*ms, 20*ms, InputAccepted)
			h.end("s1", "t1", nil, 20*ms+1)
		},
		"rejected but applied": func(h history) {
			applied := []string{"i1"}
			h.steer("s1", "t1", "i1", applied, 10*ms, 20*ms, InputRejected)
			h.end("s1", "t1", applied, 20*ms+1)
		},
		"applied out of order": func(h history) {
			applied := []string{"i2", "i1"}
			h.steer("s1", "t1", "i1", applied, 10*ms, 20*ms, InputAccepted)
			h.steer("s1", "t1", "i2", applied, 30*ms, 40*ms, InputAccepted)
			h.end("s1", "t1", applied, 40*ms+1)
		},
		"unknown never applied yet accepted on retry": func(h history) {
			h.steer("s1", "t1", "i1", nil, 10*ms, 40*ms+1, InputUnknown)
			h.steer("s1", "t1", "i1", nil, 30*ms, 40*ms, InputAccepted)
			h.end("s1", "t1", nil, 40*ms+1)
		},
	}
}

func TestIllegalHistoriesWriteAnnotatedHTML(t *testing.T) {
	cases := illegalCases()
	for _, name := range slices.Sorted(maps.Keys(cases)) {
		t.Run(name, func(t *testing.T) {
			h := newHistory()
			cases[name](h)
			var html bytes.Buffer
			faults := []Fault{{At: 12 * ms, Until: 18 * ms, Kind: "connection_loss", Detail: "d1 conn c1 dropped"}}
			res := Check(h.ops(), Options{HTML: &html, Faults: faults})
			if res.Result != porcupine.Illegal {
				t.Fatalf("want Illegal, got %s", res)
			}
			if len(res.Illegal) != 1 || !strings.HasSuffix(res.Illegal[0], " s1/t1") {
				t.Fatalf("illegal partitions: %v", res.Illegal)
			}
			if !res.HTMLWritten || res.HTMLError != nil || html.Len() == 0 {
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
	const horizon = 40*ms + 1
	h := newHistory()
	h.read("s1", "t1", 10*ms, 20*ms, TurnRunning)
	h.read("s2", "t2", 10*ms, 20*ms, TurnRunning)
	h.read("s2", "t2", 30*ms, 40*ms, TurnPreparing)
	applied := []string{"i1"}
	h.steer("s1", "t1", "i1", applied, 10*ms, 20*ms, InputAccepted)
	h.end("s1", "t1", applied, horizon)
	res := Check(h.ops(), Options{})
	if res.Result != porcupine.Illegal || fmt.Sprint(res.Illegal) != "[turn s2/t2]" {
		t.Fatalf("got %s", res)
	}
	if res.HTMLWritten {
		t.Fatal("HTML written without a writer")
	}
	if got, want := res.String(), "linearizability Illegal (3 partitions, 5 operations): turn s2/t2"; got != want {
		t.Fatalf("summary %q, want %q", got, want)
	}
}

// pathological builds one input partition where n open steers of inputs
// that were never applied can be linearized in 2^n subsets, while an
// applied input whose only steer was rejected makes the end unreachable:
// the search is exponential before it can answer Illegal.
func pathological(n int) []porcupine.Operation {
	const horizon = 20*ms + 1
	h := newHistory()
	applied := []string{"x"}
	for i := 0; i < n; i++ {
		h.steer("s1", "t1", fmt.Sprintf("u%02d", i), applied, 10*ms, horizon, InputUnknown)
	}
	h.steer("s1", "t1", "x", applied, 10*ms, 20*ms, InputRejected)
	h.end("s1", "t1", applied, horizon)
	return h.ops()
}

func TestTimeoutIsUnknownNotPass(t *testing.T) {
	res := Check(pathological(48), Options{Timeout: 20 * time.Millisecond})
	if res.Result != porcupine.Unknown {
		t.Fatalf("want Unknown from a 2^48 search in 20ms, got %s", res)
	}
	if len(res.Illegal) != 0 || res.HTMLWritten {
		t.Fatalf("Unknown named illegal partitions %v: it is its own result, not a violation", res.Illegal)
	}
	if !strings.Contains(res.String(), "Unknown") {
		t.Fatalf("summary hides Unknown: %s", res)
	}
	// the same shape, small enough to finish, is Illegal: the timeout is
	// what made the big one Unknown
	if small := Check(pathological(4), Options{}); small.Result != porcupine.Illegal {
		t.Fatalf("small pathological history: %s", small)
	}
}

// Partitions emits its partitions sorted by key, each in the order its
// operations were added, and gives each operation the lowest lane free
// at its call.
func TestPartitionsSortedWithLanes(t *testing.T) {
	h := newHistory()
	for _, turn := range []string{"t3", "t1", "t2"} {
		h.read("s", turn, 1*ms, 9*ms, TurnRunning)
		h.read("s", turn, 2*ms, 5*ms, TurnRunning) // overlaps the first: lane 1
		h.read("s", turn, 6*ms, 7*ms, TurnRunning) // after the second returned: lane 1 again
	}
	var b strings.Builder
	for _, op := range h.ops() {
		fmt.Fprintf(&b, "%d %d %d %s\n", op.ClientId, op.Call/ms, op.Return/ms, describeOperation(op.Input, op.Output))
	}
	var want strings.Builder
	for _, turn := range []string{"t1", "t2", "t3"} {
		fmt.Fprintf(&want, "0 1 9 read %[1]s -> running\n1 2 5 read %[1]s -> running\n1 6 7 read %[1]s -> running\n", turn)
	}
	if b.String() != want.String() {
		t.Fatalf("operations:\n%s\nwant:\n%s", b.String(), want.String())
	}
}
