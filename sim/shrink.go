package sim

import (
	"slices"
	"time"
)

// ShrinkResult is a minimised failing run.
type ShrinkResult struct {
	Schedule     Schedule // the smallest schedule found that still fails
	Result       Result   // the run of that schedule
	Check        string   // the check that keeps failing
	Runs         int      // replays spent
	FaultsBefore int
	FaultsAfter  int
	WorkBefore   int
	WorkAfter    int
	HealBefore   time.Duration
	HealAfter    time.Duration
}

// shrinkRunsMax bounds the replays one Shrink may spend.
const shrinkRunsMax = 2000

// Shrink minimises the fault schedule and the workload of a failing run
// while the same check still fails: it lowers the workload knob, runs delta
// debugging over the fault events, lowers the workload again and finally
// tries to heal right after the last remaining fault. Each
// candidate is replayed with opts (whose Setup must be the failing run's).
func Shrink(failing Result, opts Options) ShrinkResult {
	check := failing.FailedCheck()
	assert.That(check != "", "Shrink of a run that did not fail")
	sh := shrinker{opts: opts, check: check}
	best := failing.Schedule.clone()
	out := ShrinkResult{Check: check, FaultsBefore: len(best.Faults), WorkBefore: best.Workload,
		HealBefore: best.Heal}
	best.Workload = sh.minimiseWorkload(best)
	best.Faults = sh.minimiseFaults(best)
	best.Workload = sh.minimiseWorkload(best)
	best = sh.minimiseHeal(best)
	best = sh.pruneEnabled(best)
	assert.That(best.Validate() == nil, "shrink produced an invalid schedule: %v", best.Validate())
	out.Schedule = best
	out.Result = Replay(best, opts)
	assert.That(out.Result.FailedCheck() == check, "shrunk schedule no longer fails %q", check)
	out.Runs = sh.runs + 1
	out.FaultsAfter = len(best.Faults)
	out.WorkAfter = best.Workload
	out.HealAfter = best.Heal
	return out
}

// pruneEnabled keeps only the enabled kinds the remaining faults use, so
// the shrunk schedule names just what it still needs.
func (sh *shrinker) pruneEnabled(s Schedule) Schedule {
	unused := func(k KindSetting) bool {
		return !slices.ContainsFunc(s.Faults, func(f Fault) bool { return f.Kind == k.Kind })
	}
	try := s.clone()
	try.Enabled = slices.DeleteFunc(try.Enabled, unused)
	if len(try.Enabled) == len(s.Enabled) || !sh.fails(try) {
		return s
	}
	return try
}

type shrinker struct {
	opts  Options
	check string
	runs  int
}

// fails reports whether s still fails the same check.
func (sh *shrinker) fails(s Schedule) bool {
	if sh.runs >= shrinkRunsMax {
		return false
	}
	sh.runs++
	return Replay(s, sh.opts).FailedCheck() == sh.check
}

// minimiseFaults is ddmin: try dropping each of n chunks; on success keep
// the complement and coarsen, otherwise refine until chunks are single faults.
func (sh *shrinker) minimiseFaults(s Schedule) []Fault {
	faults := slices.Clone(s.Faults)
	if len(faults) == 0 {
		return faults
	}
	if try := s; true {
		try.Faults = nil
		if sh.fails(try) {
			return nil
		}
	}
	n := 2
	for len(faults) >= 2 {
		chunk := (len(faults) + n - 1) / n
		reduced := false
		for start := 0; start < len(faults); start += chunk {
			end := min(start+chunk, len(faults))
			rest := append(slices.Clone(faults[:start]), faults[end:]...)
			try := s
			try.Faults = rest
			if sh.fails(try) {
				faults, reduced = rest, true
				n = max(n-1, 2)
				break
			}
		}
		if !reduced {
			if n >= len(faults) {
				break
			}
			n = min(2*n, len(faults))
		}
	}
	return faults // the empty timeline was tried first
}

// minimiseWorkload tries small workloads first (1, 2, 4, ...), keeps the
// first that fails, then steps down one at a time.
func (sh *shrinker) minimiseWorkload(s Schedule) int {
	best := s.Workload
	for c := 1; c < best; c *= 2 {
		try := s
		try.Workload = c
		if sh.fails(try) {
			best = c
			break
		}
	}
	for best > 1 {
		try := s
		try.Workload = best - 1
		if !sh.fails(try) {
			break
		}
		best = try.Workload
	}
	return best
}

// minimiseHeal tries a heal time just after the last fault, then just after
// the violation (which leaves everything before it unchanged), which
// shortens the safety phase of the replay. Faults stay strictly before the
// heal time: with the second candidate, the faults at or after it (which
// never ran, the run having stopped at the violation) are dropped. It
// returns the schedule with the heal time and faults it settled on.
func (sh *shrinker) minimiseHeal(s Schedule) Schedule {
	last := time.Duration(0)
	for _, f := range s.Faults {
		last = max(last, f.At)
	}
	candidates := []time.Duration{last + time.Millisecond}
	sh.runs++
	if r := Replay(s, sh.opts); r.FailedCheck() == sh.check {
		candidates = append(candidates, r.Violations[0].At+time.Millisecond)
	}
	for _, c := range candidates {
		if c <= 0 || c >= s.Heal {
			continue
		}
		try := s
		try.Heal = c
		try.Faults = slices.DeleteFunc(slices.Clone(s.Faults), func(f Fault) bool { return f.At >= c })
		if sh.fails(try) {
			return try
		}
	}
	return s
}
