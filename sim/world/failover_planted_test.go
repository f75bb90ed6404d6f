package world

import (
	"testing"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
)

// failoverSeedsMax bounds the core_zombie seeds each failover bug must be
// caught in.
const failoverSeedsMax = 300

// The failover oracles bite: with the store accepting a fenced Core's
// commit, or a zombie's shell sending the effects of a refused commit, a
// core_zombie campaign fails with the failover check that guards the
// rule; the same seed runs clean without the bug and replays to the same
// fingerprint from its schedule.
func TestFailoverBugsAreCaught(t *testing.T) {
	for _, c := range []struct {
		name  string
		bugs  Bugs
		check string
	}{
		{"store accepts a stale commit", Bugs{StoreAcceptsStaleCommit: true}, check.CheckFailoverStaleCommit},
		{"zombie sends what its refused commit decided", Bugs{ZombieSendsUncommitted: true}, check.CheckFailoverZombieFrame},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := Config{Faults: []sim.FaultKind{kCoreZombie.kind}, Bugs: c.bugs}
			seed, o := firstFailure(t, cfg, failoverSeedsMax)
			if seed == 0 {
				t.Fatalf("no violation in seeds 1..%d", failoverSeedsMax)
			}
			if got := o.Result.FailedCheck(); got != c.check {
				t.Fatalf("seed %d failed %q, want %q: %v", seed, got, c.check, o.Result.Violations[0])
			}
			clean := cfg
			clean.Bugs = Bugs{}
			if r := Run(seed, clean); r.Result.Failed() {
				t.Fatalf("seed %d fails without the bug: %v", seed, r.Result.Violations[0])
			}
			if r := Replay(o.Result.Schedule, cfg); r.Result.Fingerprint != o.Result.Fingerprint {
				t.Fatalf("seed %d does not replay: %s, schedule replay %s", seed, o.Result.Fingerprint, r.Result.Fingerprint)
			}
			t.Logf("seed %d: %v", seed, o.Result.Violations[0])
		})
	}
}

// A core_zombie seed takes over, and its zombie both has a commit refused
// and sends frames that needed none; without the fault no takeover
// happens.
func TestCoreZombieIsExercised(t *testing.T) {
	marks := map[check.Mark]int{}
	cfg := Config{Faults: []sim.FaultKind{kCoreZombie.kind}}
	for s := uint64(1); s <= 60; s++ {
		o := Run(s, cfg)
		if o.Result.Failed() {
			t.Fatalf("seed %d: %v", s, o.Result.Violations[0])
		}
		for _, m := range o.Marks {
			marks[m.Mark] += m.Count
		}
	}
	for _, m := range []check.Mark{check.MarkFailoverTakeover, check.MarkZombieCommitRefused, check.MarkZombieFrameSent} {
		if marks[m] == 0 {
			t.Errorf("mark %s never hit in 60 core_zombie seeds (%v)", m, marks)
		}
	}
	for _, m := range Run(1, Config{Faults: []sim.FaultKind{}}).Marks {
		if m.Mark == check.MarkFailoverTakeover {
			t.Fatalf("a takeover without the fault")
		}
	}
}
