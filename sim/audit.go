package sim

import (
	"fmt"
	"runtime"
	"strings"
)

// AuditReport is the outcome of a determinism audit of one seed.
type AuditReport struct {
	Seed         uint64
	Procs        []int    // GOMAXPROCS of each run
	Fingerprints []string // one per run
	Diverged     bool
	Run          int    // the run (index into Procs) that diverged from run 0
	Line         int    // index of the first divergent trace line
	LineA, LineB string // that line in run 0 and in the divergent run
}

func (a AuditReport) String() string {
	if !a.Diverged {
		return fmt.Sprintf("seed %d deterministic over GOMAXPROCS %v: %s", a.Seed, a.Procs, a.Fingerprints[0])
	}
	return fmt.Sprintf("seed %d NONDETERMINISTIC: run %d (GOMAXPROCS %d) diverges at trace line %d:\n  run 0: %s\n  run %d: %s",
		a.Seed, a.Run, a.Procs[a.Run], a.Line, a.LineA, a.Run, a.LineB)
}

// Audit runs seed once per GOMAXPROCS value in procs (default 1 and 4),
// restoring the setting afterwards, and compares the traces. Same seed must
// mean the same fingerprint; on a mismatch the report names the first
// divergent trace line of both runs.
func Audit(seed uint64, opts Options, procs ...int) AuditReport {
	if len(procs) == 0 {
		procs = []int{1, 4}
	}
	opts.KeepTrace = true
	rep := AuditReport{Seed: seed, Procs: procs}
	var first []string
	for i, p := range procs {
		old := runtime.GOMAXPROCS(p)
		r := Run(seed, opts)
		runtime.GOMAXPROCS(old)
		rep.Fingerprints = append(rep.Fingerprints, r.Fingerprint)
		if i == 0 {
			first = r.Trace
			continue
		}
		if rep.Diverged || r.Fingerprint == rep.Fingerprints[0] {
			continue
		}
		rep.Diverged, rep.Run = true, i
		idx, a, b, ok := FirstDivergence(first, r.Trace)
		assert.That(ok, "fingerprints differ but traces are equal")
		rep.Line, rep.LineA, rep.LineB = idx, a, b
	}
	return rep
}

// Campaign aggregates many runs: failures and mark counts.
type Campaign struct {
	Runs     int
	Failures []Result
	Marks    map[string]int // total hits per mark
	MarkRuns map[string]int // runs that hit each mark at least once
	Faults   map[FaultKind]int
}

// NewCampaign returns an empty campaign.
func NewCampaign() *Campaign {
	return &Campaign{Marks: map[string]int{}, MarkRuns: map[string]int{}, Faults: map[FaultKind]int{}}
}

// Add folds one run into the campaign.
func (c *Campaign) Add(r Result) {
	c.Runs++
	if r.Failed() {
		c.Failures = append(c.Failures, r)
	}
	for _, k := range sortedKeys(r.Marks) {
		c.Marks[k] += r.Marks[k]
		c.MarkRuns[k]++
	}
	for _, k := range sortedKeys(r.Stats.Faults) {
		c.Faults[k] += r.Stats.Faults[k]
	}
}

// Missing returns the expected marks never hit, in the order given.
func (c *Campaign) Missing(expected ...string) []string {
	var out []string
	for _, m := range expected {
		if c.Marks[m] == 0 {
			out = append(out, m)
		}
	}
	return out
}

// String summarises the campaign with marks in name order.
func (c *Campaign) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "runs=%d failures=%d", c.Runs, len(c.Failures))
	for _, k := range sortedKeys(c.Marks) {
		fmt.Fprintf(&b, " %s=%d/%d", k, c.Marks[k], c.MarkRuns[k])
	}
	return b.String()
}

// Sweep runs seeds first, first+1, ... first+count-1 and aggregates them.
func Sweep(first uint64, count int, opts Options) *Campaign {
	c := NewCampaign()
	for i := 0; i < count; i++ {
		c.Add(Run(first+uint64(i), opts))
	}
	return c
}
