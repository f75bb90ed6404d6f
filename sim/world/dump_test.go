package world

import (
	"slices"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/sim"
)

// TestFailingRunEndsWithAStateDump: the first violation dumps every
// machine's state and the ground truth of the run it names, as the last
// lines of the trace; a passing run dumps nothing.
func TestFailingRunEndsWithAStateDump(t *testing.T) {
	cfg := Config{Faults: []sim.FaultKind{}, Bugs: Bugs{DaemonAcceptsBeforeApply: true}}
	o := RunKeepTrace(3, cfg)
	if !o.Result.Failed() || o.Result.Violations[0].Check != "accepted_without_ground_truth" {
		t.Fatalf("seed 3 with the planted bug must fail: %v", o.Result.Violations)
	}
	dump := o.Result.Dump
	for _, want := range []string{"state at step ", "core up", "core turn t-1 session=s-1 state=running",
		" input1=delivering", "d1 connected=true", "d1 turn t-1 run=t-1", "inputs=[1=accepted]",
		"d1 truth turn t-1 run=t-1"} {
		if !slices.ContainsFunc(dump, func(l string) bool { return strings.Contains(l, want) }) {
			t.Errorf("the dump lacks %q:\n%s", want, strings.Join(dump, "\n"))
		}
	}
	tail := o.Result.Trace[len(o.Result.Trace)-len(dump):]
	for i, l := range tail {
		if !strings.HasSuffix(l, " dump :: "+dump[i]) {
			t.Fatalf("the trace must end with the dump; line %q, want dump %q", l, dump[i])
		}
	}
	if again := Run(3, cfg); again.Result.Fingerprint != o.Result.Fingerprint {
		t.Fatal("the dump is part of the deterministic trace")
	}
	if clean := Run(3, Config{Faults: []sim.FaultKind{}}); clean.Result.Failed() || clean.Result.Dump != nil {
		t.Fatalf("a passing run dumps nothing: %v", clean.Result.Dump)
	}
}
