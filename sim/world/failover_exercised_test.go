package world

import (
	"testing"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
)

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
