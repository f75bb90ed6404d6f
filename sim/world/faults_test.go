package world

import (
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/sim"
)

// A crash of a daemon that is already down finds no victim: the world
// counts it skipped, one per "ignored: down" on the timeline.
func TestCrashOfADownProcessIsSkipped(t *testing.T) {
	total := 0
	for _, kind := range []sim.FaultKind{kDaemonCrash.kind, kCoreCrash.kind} {
		for seed := uint64(1); seed <= 6; seed++ {
			o := Run(seed, Config{Faults: []sim.FaultKind{kind}})
			ignored := 0
			for _, line := range o.Timeline {
				if strings.Contains(line, "ignored: down") {
					ignored++
				}
			}
			if o.Skipped[kind] != ignored {
				t.Errorf("seed %d %s: skipped %d, timeline says %d ignored", seed, kind, o.Skipped[kind], ignored)
			}
			if o.Skipped[kind] > o.Result.Stats.Faults[kind] {
				t.Errorf("seed %d %s: skipped %d of %d applied", seed, kind, o.Skipped[kind], o.Result.Stats.Faults[kind])
			}
			total += o.Skipped[kind]
		}
	}
	if total == 0 {
		t.Fatal("no crash of a process already down in seeds 1..6")
	}
}
