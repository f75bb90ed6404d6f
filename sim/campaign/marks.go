package campaign

import (
	"fmt"
	"slices"
	"strings"

	"github.com/turnstile-sim/turnstile/sim/check"
)

// CampaignSeedsMin is the campaign size from which a missing expected mark
// fails the campaign.
const CampaignSeedsMin = 1000

// MarkTally aggregates marks over the seeds of a campaign: for each mark,
// how many seeds hit it and how many hits in total.
type MarkTally struct {
	seeds     int
	seedsHit  map[check.Mark]int
	hitsTotal map[check.Mark]int
	// Judged, when set, says which expected marks the campaign can be
	// expected to hit (a campaign restricted to some fault kinds reaches
	// only the marks those kinds lead to); nil judges every expected mark.
	Judged func(check.Mark) bool
}

// NewMarkTally returns an empty tally.
func NewMarkTally() *MarkTally {
	return &MarkTally{seedsHit: map[check.Mark]int{}, hitsTotal: map[check.Mark]int{}}
}

// AddSeed adds one seed's marks (as returned by check.Ledger.Marks).
func (t *MarkTally) AddSeed(marks []check.MarkCount) {
	t.seeds++
	for _, mc := range marks {
		if mc.Count > 0 {
			t.seedsHit[mc.Mark]++
			t.hitsTotal[mc.Mark] += mc.Count
		}
	}
}

// Seeds is the number of seeds added.
func (t *MarkTally) Seeds() int { return t.seeds }

// MarkSummary is one line of a campaign's mark report.
type MarkSummary struct {
	Mark     check.Mark
	Seeds    int // seeds that hit it
	Hits     int // total hits
	Expected bool
}

// Summary lists every expected mark and every other mark hit, sorted.
func (t *MarkTally) Summary() []MarkSummary {
	expected := check.ExpectedMarks()
	names := slices.Concat(expected, sortedKeys(t.seedsHit))
	slices.Sort(names)
	names = slices.Compact(names)
	out := make([]MarkSummary, len(names))
	for i, m := range names {
		_, isExpected := slices.BinarySearch(expected, m)
		out[i] = MarkSummary{Mark: m, Seeds: t.seedsHit[m], Hits: t.hitsTotal[m], Expected: isExpected}
	}
	return out
}

// judged reports whether expected mark m counts in the verdict.
func (t *MarkTally) judged(m check.Mark) bool { return t.Judged == nil || t.Judged(m) }

// JudgedMarks lists the expected marks the verdict judges, sorted.
func (t *MarkTally) JudgedMarks() []check.Mark {
	return slices.DeleteFunc(check.ExpectedMarks(), func(m check.Mark) bool { return !t.judged(m) })
}

// Missing lists the judged expected marks no seed hit, sorted.
func (t *MarkTally) Missing() []check.Mark {
	return slices.DeleteFunc(t.JudgedMarks(), func(m check.Mark) bool { return t.seedsHit[m] > 0 })
}

// Verdict fails a campaign of at least CampaignSeedsMin seeds that missed
// an expected mark. Smaller campaigns never fail on marks.
func (t *MarkTally) Verdict() error {
	missing := t.Missing()
	if t.seeds < CampaignSeedsMin || len(missing) == 0 {
		return nil
	}
	names := make([]string, len(missing))
	for i, m := range missing {
		names[i] = string(m)
	}
	return fmt.Errorf("expected marks never hit in %d seeds: %s", t.seeds, strings.Join(names, ", "))
}

// String renders the summary, one mark per line.
func (t *MarkTally) String() string {
	var b strings.Builder
	for _, s := range t.Summary() {
		flag := ""
		switch {
		case s.Expected && !t.judged(s.Mark):
			flag = " (not judged: its fault kinds are not enabled)"
		case s.Expected && s.Seeds == 0:
			flag = " MISSING"
		}
		fmt.Fprintf(&b, "%-34s seeds=%d hits=%d%s\n", s.Mark, s.Seeds, s.Hits, flag)
	}
	return b.String()
}
