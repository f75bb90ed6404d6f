package world

import (
	"slices"
	"testing"

	"github.com/turnstile-sim/turnstile/internal/testgate"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/sim/harness"
)

// TestPlantedInteractionBugsAreCaught: a double native apply, an applied
// ack before the native apply and a decision Core resolves without a
// receipt are each caught by the check guarding the rule, and the failing
// seed replays to the same fingerprint and failure, by seed and from its
// stored schedule; the same seed runs clean without the bug.
func TestPlantedInteractionBugsAreCaught(t *testing.T) {
	testgate.Campaign(t)
	cases := []struct {
		name   string
		bugs   Bugs
		faults []sim.FaultKind // nil: the full swarm
		checks []string
	}{
		{"daemon reapplies a repeated decision", Bugs{DaemonReappliesRepeatedDecision: true}, nil,
			[]string{check.CheckDecisionAppliedTwice}},
		{"daemon acks a decision before the native apply", Bugs{DaemonAcksDecisionBeforeApply: true}, nil,
			[]string{check.CheckAppliedWithoutNative}},
		// A receipt missing past Core's wait needs a slow native decision.
		{"core resolves a decision without its receipt", Bugs{CoreResolvesDecisionWithoutReceipt: true},
			[]sim.FaultKind{harness.DecisionSlow}, []string{check.CheckResolvedWithoutReceipt}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cfg := Config{Bugs: c.bugs, Faults: c.faults}
			seed, o := firstFailure(t, cfg, plantedSeedsMax)
			if seed == 0 {
				t.Fatalf("no violation in seeds 1..%d", plantedSeedsMax)
			}
			got := o.Result.FailedCheck()
			if !slices.Contains(c.checks, got) {
				t.Fatalf("seed %d failed %q, want one of %v: %v", seed, got, c.checks, o.Result.Violations[0])
			}
			again := Run(seed, cfg)
			replayed := Replay(o.Result.Schedule, cfg)
			if again.Result.Fingerprint != o.Result.Fingerprint || replayed.Result.Fingerprint != o.Result.Fingerprint {
				t.Fatalf("seed %d does not replay: %s, rerun %s, schedule replay %s", seed,
					o.Result.Fingerprint, again.Result.Fingerprint, replayed.Result.Fingerprint)
			}
			if replayed.Result.FailedCheck() != got {
				t.Fatalf("seed %d replay failed %q, want %q", seed, replayed.Result.FailedCheck(), got)
			}
			if clean := Run(seed, Config{Faults: c.faults}); clean.Result.Failed() {
				t.Fatalf("seed %d fails without the bug: %v", seed, clean.Result.Violations[0])
			}
			t.Logf("caught at seed %d by %s", seed, got)
		})
	}
}
