package world

import (
	"testing"

	"github.com/turnstile-sim/turnstile/internal/testgate"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/campaign"
	"github.com/turnstile-sim/turnstile/sim/check"
)

// markNeedsSeeds is how many seeds of a campaign restricted to one kind
// must reach each mark the kind is said to lead to. The measured hit rates
// are 1.5–25 % of seeds; the check runs a fixed range, so it is exact.
const markNeedsSeeds = 200

// TestMarkNeedsAreReached keeps markNeeds true: every expected mark has an
// entry, and each kind it names (or no fault at all, for an empty entry)
// reaches the mark in a campaign of at most markNeedsSeeds seeds
// restricted to that kind alone.
func TestMarkNeedsAreReached(t *testing.T) {
	testgate.Campaign(t)
	byKind := map[sim.FaultKind][]check.Mark{}
	for _, m := range check.ExpectedMarks() {
		kinds, ok := MarkNeeds(m)
		if swarmOnlyMarks[m] != "" {
			if ok {
				t.Errorf("swarm-only mark %s must not name kinds", m)
			}
			continue
		}
		if !ok {
			t.Errorf("expected mark %s has no entry in markNeeds", m)
		}
		if len(kinds) == 0 {
			kinds = []sim.FaultKind{""} // no fault at all
		}
		for _, k := range kinds {
			byKind[k] = append(byKind[k], m)
		}
	}
	for k, marks := range byKind { //tidy:sorted each kind is its own subtest
		t.Run("faults="+string(k), func(t *testing.T) {
			t.Parallel()
			faults := []sim.FaultKind{}
			if k != "" {
				faults = []sim.FaultKind{k}
			}
			// The verdict is whether each mark is hit in seeds
			// 1..markNeedsSeeds, so the search stops once every mark is.
			hit := map[string]int{}
			allHit := func() bool {
				for _, m := range marks {
					if hit[string(m)] == 0 {
						return false
					}
				}
				return true
			}
			for seed := uint64(1); seed <= markNeedsSeeds && !allHit(); seed++ {
				for m, n := range Run(seed, Config{Faults: faults}).Result.Marks { //tidy:sorted counting
					hit[m] += n
				}
				testgate.Progress(t, "faults="+string(k), int(seed), markNeedsSeeds, progressEvery)
			}
			for _, m := range marks {
				if hit[string(m)] == 0 {
					t.Errorf("mark %s never hit in %d seeds restricted to %q", m, markNeedsSeeds, k)
				}
			}
		})
	}
}

// steer_unknown_after_30s is reachable in a fair share of default seeds,
// not in a handful per thousand.
func TestSteerUnknownAfter30sIsCommon(t *testing.T) {
	testgate.Long(t)
	outs, _ := sweep200(t)
	tally := campaign.NewMarkTally()
	for _, o := range outs {
		tally.AddSeed(o.Marks)
	}
	for _, s := range tally.Summary() {
		if s.Mark == check.MarkSteerUnknownAfter30s && s.Seeds < 6 {
			t.Fatalf("steer_unknown_after_30s in %d of 200 seeds, want at least 6 (3%%)", s.Seeds)
		}
	}
}
