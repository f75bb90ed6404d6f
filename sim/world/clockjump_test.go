package world

import (
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/harness"
)

// TestClockJumpsAloneNeverFail: daemon wall-clock jumps (forward and
// backward, up to 30 min against admission expiries of seconds) change
// only wall-derived wire values, which neither Core nor the checkers
// read: no seed fails, handles are still granted and started, and every
// jump is on the fault timeline with its offset.
func TestClockJumpsAloneNeverFail(t *testing.T) {
	outs := sweep(t, 1, 40, Config{Faults: []sim.FaultKind{harness.ClockJump}})
	var jumps, noted, granted, started int
	for _, o := range outs {
		if o.Result.Failed() {
			t.Fatalf("seed %d failed under clock jumps: %v", o.Result.Seed, o.Result.Violations)
		}
		jumps += o.Result.Stats.Faults[harness.ClockJump]
		for _, l := range o.Timeline {
			if strings.Contains(l, "wall_jump=") {
				noted++
			}
		}
		granted += o.Records["HandleGranted"]
		started += o.Records["HandleStarted"]
	}
	if jumps == 0 || noted != jumps {
		t.Fatalf("%d clock jumps injected, %d on the timeline with their offset", jumps, noted)
	}
	if granted == 0 || started == 0 {
		t.Fatalf("handles granted %d, started %d: the checks were not exercised", granted, started)
	}
}
