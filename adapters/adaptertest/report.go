package adaptertest

import (
	"fmt"
	"strings"
)

// ClauseResult is what one clause of the run saw: how many times it was
// exercised and every failure, the first being the first failing step.
type ClauseResult struct {
	Clause    string
	Check     string // the campaign checker that judged it
	Exercised int
	Failures  []string
}

// Passed reports whether the clause was exercised and never failed.
func (c ClauseResult) Passed() bool { return c.Exercised > 0 && len(c.Failures) == 0 }

// Report is the per-clause outcome of one run against the simulated Core.
type Report struct {
	Seed  uint64
	Steps int
	// What the workload did.
	Turns, Steers, Cancels, Cuts, Restarts int
	clauses                                []*ClauseResult
}

func (r *Report) clause(check string) *ClauseResult {
	for _, c := range r.clauses {
		if c.Check == check {
			return c
		}
	}
	c := &ClauseResult{Check: check, Clause: clauseOf(check)}
	r.clauses = append(r.clauses, c)
	return c
}

// Results returns every clause, in the order of the clause table.
func (r *Report) Results() []ClauseResult {
	out := make([]ClauseResult, 0, len(r.clauses))
	for _, c := range r.clauses {
		cp := *c
		cp.Failures = append([]string(nil), c.Failures...)
		out = append(out, cp)
	}
	return out
}

// Result returns the clause judged by check (zero when unknown).
func (r *Report) Result(check string) ClauseResult {
	for _, c := range r.clauses {
		if c.Check == check {
			return *c
		}
	}
	return ClauseResult{Check: check, Clause: clauseOf(check)}
}

// Failed reports whether any clause failed.
func (r *Report) Failed() bool {
	for _, c := range r.clauses {
		if len(c.Failures) > 0 {
			return true
		}
	}
	return false
}

// String renders one line per clause: exercised N times, passed, or
// failed with the first failing step.
func (r *Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d, %d workload steps: %d Turns, %d steers, %d cancels, %d connection cuts, %d Core restarts\n",
		r.Seed, r.Steps, r.Turns, r.Steers, r.Cancels, r.Cuts, r.Restarts)
	for _, c := range r.clauses {
		switch {
		case len(c.Failures) > 0:
			fmt.Fprintf(&b, "FAIL %s (%s): exercised %d times, first failing step: %s", c.Clause, c.Check, c.Exercised, c.Failures[0])
			if n := len(c.Failures) - 1; n > 0 {
				fmt.Fprintf(&b, " (and %d more)", n)
			}
		case c.Exercised == 0:
			fmt.Fprintf(&b, "skip %s (%s): not exercised by this seed", c.Clause, c.Check)
		default:
			fmt.Fprintf(&b, "ok   %s (%s): exercised %d times, passed", c.Clause, c.Check, c.Exercised)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// Failures renders every failure, one per line, naming its clause.
func (r *Report) Failures() string {
	var b strings.Builder
	for _, c := range r.clauses {
		for _, f := range c.Failures {
			fmt.Fprintf(&b, "[%s] %s\n", c.Clause, f)
		}
	}
	return b.String()
}
