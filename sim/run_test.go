package sim

import "testing"

func TestToyConvergesWithoutBug(t *testing.T) {
	for seed := uint64(1); seed <= 50; seed++ {
		r := Run(seed, toyOptions(toyConfig{}))
		if r.Failed() || !r.Converged {
			t.Fatalf("seed %d: %v pending=%q\n%s", seed, r.Violations, r.Pending, r.Tail)
		}
	}
}
