package world

import (
	"testing"

	"github.com/turnstile-sim/turnstile/sim/check"
)

// A world whose ground truth is withheld fails the accepted-receipt
// checker; Replay reproduces the failing fingerprint and Shrink keeps the
// same check failing with fewer faults.
func TestBrokenTruthIsCaughtReplayedAndShrunk(t *testing.T) {
	cfg := Config{breakTruth: truthForgetApplied}
	var failing Outcome
	for seed := uint64(1); seed <= 50; seed++ {
		if o := Run(seed, cfg); o.Result.FailedCheck() == check.CheckAcceptedWithoutTruth {
			failing = o
			break
		}
	}
	if !failing.Result.Failed() {
		t.Fatal("no seed in 1..50 caught an accepted receipt without ground truth")
	}
	r := Replay(failing.Result.Schedule, cfg)
	if r.Result.Fingerprint != failing.Result.Fingerprint {
		t.Errorf("replay fingerprint %s, run %s", r.Result.Fingerprint, failing.Result.Fingerprint)
	}
	s := Shrink(failing, cfg)
	if s.Check != check.CheckAcceptedWithoutTruth {
		t.Errorf("shrink kept check %q", s.Check)
	}
	if s.FaultsAfter > s.FaultsBefore {
		t.Errorf("shrink grew the schedule: %d -> %d faults", s.FaultsBefore, s.FaultsAfter)
	}
	if again := Replay(s.Schedule, cfg); again.Result.FailedCheck() != check.CheckAcceptedWithoutTruth {
		t.Errorf("shrunk schedule no longer fails: %v", again.Result.Violations)
	}
	if ok := Run(failing.Result.Seed, Config{}); ok.Result.FailedCheck() == check.CheckAcceptedWithoutTruth {
		t.Errorf("seed %d fails without the broken truth", failing.Result.Seed)
	}
	t.Logf("seed %d: %s; shrunk %d -> %d faults in %d runs", failing.Result.Seed,
		failing.Result.Violations[0], s.FaultsBefore, s.FaultsAfter, s.Runs)
}

// An Illegal linearizability verdict is a violation with porcupine's HTML.
func TestIllegalCarriesHTML(t *testing.T) {
	for _, o := range sweep(t, 1, 20, Config{breakTruth: truthCompletedAsCancelled}) {
		if len(o.Lin.Illegal) == 0 {
			continue
		}
		if len(o.HTML) == 0 {
			t.Errorf("seed %d: Illegal without HTML", o.Result.Seed)
		}
		found := false
		for _, v := range o.Result.Violations {
			found = found || v.Check == check.CheckLinearizability
		}
		if !found {
			t.Errorf("seed %d: Illegal but no linearizability violation", o.Result.Seed)
		}
		cfg := Config{breakTruth: truthCompletedAsCancelled}
		if s := Shrink(o, cfg); s.Check != check.CheckLinearizability {
			t.Errorf("seed %d: shrink kept check %q, want linearizability", o.Result.Seed, s.Check)
		}
		return
	}
	t.Fatal("misreported settlements never made a history Illegal in 20 seeds")
}
