package mutants

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"
)

// Status is what became of one mutant.
type Status string

// The statuses of a mutant. Only StatusCaught counts as a catch: a mutant
// that only the machines' own invariant panics notice is StatusPanicOnly.
const (
	StatusCaught      Status = "yes"
	StatusPanicOnly   Status = "panic-only"
	StatusMissed      Status = "no"
	StatusStale       Status = "stale"
	StatusBuildFailed Status = "build-failed"
	StatusError       Status = "error" // the campaign did not run to its end
)

// Unit is whether the unit tests of the mutated package catch the mutant.
type Unit string

// The unit-test verdicts.
const (
	UnitCaught      Unit = "yes"
	UnitMissed      Unit = "no"
	UnitBuildFailed Unit = "build-failed" // the package's tests do not compile
	UnitSkipped     Unit = "-"
)

// CheckPanic is the check name a campaign gives a seed whose run panicked.
const CheckPanic = "panic"

// Result is one mutant's measurement.
type Result struct {
	Name         string   `json:"name"`
	Family       string   `json:"family"`
	Description  string   `json:"description"`
	File         string   `json:"file"`
	Status       Status   `json:"status"`
	Seeds        int      `json:"seeds"`                // seeds the campaign reported
	FirstSeed    uint64   `json:"first_seed,omitempty"` // first failing seed
	FailingSeeds int      `json:"failing_seeds"`
	FirstCheck   string   `json:"first_check,omitempty"` // of the first failing seed
	Checks       []string `json:"checks,omitempty"`      // every check that failed a seed, sorted
	Unit         Unit     `json:"unit_tests"`
	Detail       string   `json:"detail,omitempty"` // why stale, build-failed or error
	Elapsed      string   `json:"elapsed"`
}

// seedLine is the part of a campaign's -json seed line the suite reads.
type seedLine struct {
	Seed       *uint64 `json:"seed"`
	Violations []struct {
		Check string `json:"check"`
	} `json:"violations"`
	Lin struct {
		Result string `json:"result"`
	} `json:"lin"`
	Audit *struct {
		Diverged bool `json:"diverged"`
	} `json:"audit"`
}

// checks lists what failed the seed: its violated checks, then
// "linearizability" and "determinism" when those failed.
func (s seedLine) checks() []string {
	var out []string
	for _, v := range s.Violations {
		out = append(out, v.Check)
	}
	if s.Lin.Result == "illegal" {
		out = append(out, "linearizability")
	}
	if s.Audit != nil && s.Audit.Diverged {
		out = append(out, "determinism")
	}
	return out
}

// Campaign is what a mutant's campaign output says.
type Campaign struct {
	Seeds        int
	FirstSeed    uint64
	FailingSeeds int
	FirstCheck   string
	Checks       []string // sorted, distinct
	// CheckerCaught is whether some failing seed failed a check other
	// than a panic.
	CheckerCaught bool
}

// ReadCampaign parses the stdout of `turnstile sim -json`: a header line,
// then one line per seed in seed order.
func ReadCampaign(r io.Reader) (Campaign, error) {
	var c Campaign
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<26)
	line := 0
	for sc.Scan() {
		line++
		if line == 1 {
			continue // the header
		}
		var s seedLine
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil || s.Seed == nil {
			return Campaign{}, fmt.Errorf("campaign output line %d is no seed report: %.80q", line, sc.Text())
		}
		c.Seeds++
		checks := s.checks()
		if len(checks) == 0 {
			continue
		}
		c.FailingSeeds++
		if c.FailingSeeds == 1 {
			c.FirstSeed, c.FirstCheck = *s.Seed, checks[0]
		}
		for _, ch := range checks {
			if ch != CheckPanic {
				c.CheckerCaught = true
			}
			if !slices.Contains(c.Checks, ch) {
				c.Checks = append(c.Checks, ch)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return Campaign{}, err
	}
	if line == 0 {
		return Campaign{}, fmt.Errorf("campaign printed nothing")
	}
	slices.Sort(c.Checks)
	return c, nil
}

// Status classifies a campaign that ran to its end.
func (c Campaign) Status() Status {
	switch {
	case c.CheckerCaught:
		return StatusCaught
	case c.FailingSeeds > 0:
		return StatusPanicOnly
	}
	return StatusMissed
}

// fill copies the campaign's figures into r.
func (r *Result) fill(c Campaign) {
	r.Status = c.Status()
	r.Seeds, r.FirstSeed, r.FailingSeeds = c.Seeds, c.FirstSeed, c.FailingSeeds
	r.FirstCheck, r.Checks = c.FirstCheck, c.Checks
}

func newResult(m Mutant) Result {
	return Result{Name: m.Name, Family: m.Family, Description: m.Description, File: m.File, Unit: UnitSkipped}
}

func roundElapsed(d time.Duration) string { return d.Round(100 * time.Millisecond).String() }
