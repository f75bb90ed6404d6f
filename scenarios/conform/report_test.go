package conform

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/scenarios"
)

// TestSkipReason: a scenario of the other side and one that waits longer
// than MaxWait are skipped with their reason; others run.
func TestSkipReason(t *testing.T) {
	o := Options{MaxWait: 10 * time.Second}.withDefaults()
	only := parseIncluding(t, "only core\nCore's own bound.\n----\n\nadvance 1s\n----\n")
	if got := o.skipReason(only, scenarios.Runtime); got != "only core: Core's own bound." {
		t.Errorf("only core on the Runtime side: %q", got)
	}
	if got := o.skipReason(only, scenarios.Core); got != "" {
		t.Errorf("only core on the Core side: %q", got)
	}
	long := parseIncluding(t, "advance 6s\n----\n\nsilence core 5s\n----\n")
	if got := o.skipReason(long, scenarios.Core); !strings.Contains(got, "needs fake time") || !strings.Contains(got, "11s in all (-max-wait 10s)") {
		t.Errorf("11 s of waits: %q", got)
	}
	if got := o.skipReason(parseIncluding(t, "advance 10s\n----\n"), scenarios.Core); got != "" {
		t.Errorf("10 s of waits: %q", got)
	}
}

// TestReportWrite: one line per scenario, reasons and not-checked notes
// indented, a summary counting each status.
func TestReportWrite(t *testing.T) {
	rep := Report{Side: scenarios.Core, Results: []Result{
		{Name: "a", Status: Pass, Elapsed: 1234 * time.Millisecond, NotChecked: []string{"s.txt:3: x"}},
		{Name: "b", Status: Skip, Reason: "needs fake time"},
	}}
	var b bytes.Buffer
	rep.Write(&b)
	want := "PASS  a (1.23s)\n      not checked: s.txt:3: x\nSKIP  b\n      needs fake time\nconform core: 1 passed, 0 failed, 1 skipped\n"
	if b.String() != want {
		t.Fatalf("report %q, want %q", b.String(), want)
	}
	rep.Results = append(rep.Results, Result{Name: "c", Status: Fail, Reason: "s.txt:9: sent x\n  sent {}"})
	b.Reset()
	rep.Write(&b)
	if !strings.HasSuffix(b.String(), "FAIL  c (0s)\n      s.txt:9: sent x\n        sent {}\nconform core: 1 passed, 1 failed, 1 skipped\n") {
		t.Fatalf("report %q", b.String())
	}
}

// TestFailuresKeepTheFirst: a result reports the first failure and how
// many followed.
func TestFailuresKeepTheFirst(t *testing.T) {
	var f failures
	res := f.result("x", 0, []error{errors.New("s.txt:1: first 1"), errors.New("s.txt:2: second")})
	if res.Status != Fail || res.Reason != "s.txt:1: first 1\n(1 later failures not shown)" {
		t.Fatalf("%+v", res)
	}
}

// logged is what a driver logged and no player took yet.
func logged(f *failures) []string {
	var out []string
	for _, e := range f.Failures() {
		out = append(out, e.Error())
	}
	return out
}

// TestQueue: pop waits for a frame, gives up after its wait or once the
// connection ended; drain takes everything queued.
func TestQueue(t *testing.T) {
	q := newQueue()
	if _, ok := q.pop(time.Millisecond); ok {
		t.Fatal("popped from an empty queue")
	}
	go q.push([]byte("a"))
	if b, ok := q.pop(time.Minute); !ok || string(b) != "a" {
		t.Fatalf("pop %q %v", b, ok)
	}
	q.push([]byte("b"))
	q.push([]byte("c"))
	if got := q.drain(); len(got) != 2 || string(got[1]) != "c" {
		t.Fatalf("drain %q", got)
	}
	q.end(nil)
	if _, ok := q.pop(time.Minute); ok {
		t.Fatal("popped after the end")
	}
	if ended, _ := q.waitEnd(time.Minute); !ended {
		t.Fatal("waitEnd did not see the end")
	}
}
