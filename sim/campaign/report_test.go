package campaign

import (
	"testing"

	"github.com/turnstile-sim/turnstile/sim"
)

// Regression: faults that found no victim were counted injected; Applied
// leaves the skipped ones out.
func TestSkippedFaultsAreNotInjected(t *testing.T) {
	o := Outcome{Result: sim.Result{Seed: 2, Stats: sim.Stats{FaultsSkipped: 1,
		Faults: map[sim.FaultKind]int{"daemon_crash": 132, "stall": 4}}},
		Skipped: map[sim.FaultKind]int{"daemon_crash": 120}}
	rep := NewSeedReport(o)
	if rep.Faults.Applied["daemon_crash"] != 12 || rep.Faults.Applied["stall"] != 4 || rep.Faults.Skipped != 121 {
		t.Fatalf("faults %+v", rep.Faults)
	}
}
