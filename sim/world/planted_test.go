package world

import (
	"slices"
	"testing"

	"github.com/turnstile-sim/turnstile/internal/testgate"
	"github.com/turnstile-sim/turnstile/sim/check"
)

// plantedSeedsMax bounds the campaign each planted bug must be caught in.
const plantedSeedsMax = 2000

// TestPlantedBugsAreCaught proves the checkers bite: with each planted bug
// switched on, a campaign of at most plantedSeedsMax default seeds fails
// with the check that guards the broken rule, the same seed runs clean
// without the bug (the verdict comes from the bug), and the failing seed
// replays to the same fingerprint, by seed and from its stored schedule.
// The bugs are searched in parallel.
func TestPlantedBugsAreCaught(t *testing.T) {
	testgate.Campaign(t)
	cases := []struct {
		name   string
		bugs   Bugs
		checks []string // any of these may be the first violated check
	}{
		{"daemon forgets admission expiry", Bugs{DaemonForgetsAdmissionExpiry: true}, []string{"handle_reuse", check.CheckTimingAdmission}},
		{"core redelivers an unknown input", Bugs{CoreRedeliversUnknownInput: true}, []string{"input_delivered_twice"}},
		{"daemon accepts before native apply", Bugs{DaemonAcceptsBeforeApply: true}, []string{"accepted_without_ground_truth"}},
		{"daemon frees capacity when close fails", Bugs{DaemonFreesCapacityOnCloseFailure: true},
			// a retired executor's failed close taken for confirmed lets done
			// out before the close: published_before_settlement; the rogue
			// Core's prepare of a Session whose close failed is then
			// granted instead of executor_cleanup_unconfirmed: hostile_refusal
			[]string{"capacity_exceeded", "orphaned_resource", "liveness", "published_before_settlement", "shutdown_report",
				check.CheckHostileRefusal}},
		{"core lets done override a cancel receipt", Bugs{CoreDoneOverridesCancel: true}, []string{"cancel_receipt_overridden"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cfg := Config{Bugs: c.bugs}
			seed, o := firstFailure(t, cfg, plantedSeedsMax)
			if seed == 0 {
				t.Fatalf("no violation in seeds 1..%d", plantedSeedsMax)
			}
			if clean := Run(seed, Config{}); clean.Result.Failed() {
				t.Errorf("seed %d fails without a planted bug: %v", seed, clean.Result.Violations[0])
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
			t.Logf("caught at seed %d by %s", seed, got)
		})
	}
}

// firstFailure runs seeds 1..max and returns the first failing one,
// logging its progress through t.
func firstFailure(t testing.TB, cfg Config, max int) (uint64, Outcome) {
	for s := uint64(1); s <= uint64(max); s++ {
		if o := Run(s, cfg); o.Result.Failed() {
			return s, o
		}
		testgate.Progress(t, "looking for a failing seed", int(s), max, progressEvery)
	}
	return 0, Outcome{}
}
