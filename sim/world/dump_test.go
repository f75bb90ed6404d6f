package world

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/sim"
)

// stopAtStep is the world of cfg with one more check, failing at step
// stop; its message names run t-1, whose ground truth the dump then shows
// (at step 46 of seed 3 without faults, input 1 of t-1 is written).
func stopAtStep(cfg Config, stop uint64) sim.Options {
	opts := Options(cfg)
	opts.KeepTrace = true
	opts.Setup = func(w *sim.Kernel) {
		setup(w, cfg, false)
		w.AddCheck(sim.Check{Name: "stop_at_step", AfterStep: func(v *sim.View) error {
			if v.Step() == stop {
				return fmt.Errorf("step %d reached in run t-1", stop)
			}
			return nil
		}})
	}
	return opts
}

// TestFailingRunEndsWithAStateDump: the first violation dumps every
// machine's state and the ground truth of the run it names, as the last
// lines of the trace; a passing run dumps nothing.
func TestFailingRunEndsWithAStateDump(t *testing.T) {
	cfg := Config{Faults: []sim.FaultKind{}}
	r := sim.Run(3, stopAtStep(cfg, 46))
	if !r.Failed() || r.Violations[0].Check != "stop_at_step" {
		t.Fatalf("seed 3 must fail the added check: %v", r.Violations)
	}
	dump := r.Dump
	for _, want := range []string{"state at step ", "core up", "core turn t-1 session=s-1 state=running",
		" input1=delivering", "d1 connected=true", "d1 turn t-1 run=t-1", "inputs=[1=written]",
		"d1 truth turn t-1 run=t-1"} {
		if !slices.ContainsFunc(dump, func(l string) bool { return strings.Contains(l, want) }) {
			t.Errorf("the dump lacks %q:\n%s", want, strings.Join(dump, "\n"))
		}
	}
	tail := r.Trace[len(r.Trace)-len(dump):]
	for i, l := range tail {
		if !strings.HasSuffix(l, " dump :: "+dump[i]) {
			t.Fatalf("the trace must end with the dump; line %q, want dump %q", l, dump[i])
		}
	}
	if again := sim.Run(3, stopAtStep(cfg, 46)); again.Fingerprint != r.Fingerprint {
		t.Fatal("the dump is part of the deterministic trace")
	}
	if clean := Run(3, Config{Faults: []sim.FaultKind{}}); clean.Result.Failed() || clean.Result.Dump != nil {
		t.Fatalf("a passing run dumps nothing: %v", clean.Result.Dump)
	}
}
