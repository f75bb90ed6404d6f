package world

import (
	"testing"

	"github.com/turnstile-sim/turnstile/sim"
)

// A large workload without faults must converge: the liveness deadline
// grows with the turns. These seeds did not converge within the fixed
// 150 s deadline at 100 turns.
func TestLargeTurnsNoFaultsConverge(t *testing.T) {
	if LivenessTimeout(100) <= LivenessTimeout(0) || LivenessTimeout(0) != LivenessTimeout(workloadDefault) {
		t.Fatalf("liveness deadline does not scale: %s (100 turns) vs %s", LivenessTimeout(100), LivenessTimeout(0))
	}
	for _, seed := range largeTurnsSeeds {
		o := Run(seed, Config{Turns: 100, Faults: []sim.FaultKind{}})
		if o.Result.Failed() || !o.Result.Converged {
			t.Errorf("seed %d: violations %v pending %q", seed, o.Result.Violations, o.Result.Pending)
		}
		if o.Derived.Workload.Turns != 100 {
			t.Errorf("seed %d: workload of %d turns", seed, o.Derived.Workload.Turns)
		}
	}
}

// largeTurnsSeeds did not converge at 100 turns under the fixed deadline.
var largeTurnsSeeds = []uint64{3, 5, 10}
