package campaign

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
)

// failingListMax bounds the failing seeds named in a summary.
const failingListMax = 20

// Summary folds seed reports into campaign totals. Add reports in seed
// order for a stable list of failing seeds (Merger does).
type Summary struct {
	Seeds      int
	First      uint64 // lowest seed added
	Last       uint64 // highest seed added
	Failing    []SeedReport
	Violations int // violations over all seeds
	Events     uint64
	Virtual    time.Duration
	WallSum    time.Duration // sum of per-seed wall times
	// Elapsed is the campaign's wall time, set by the shell that ran it;
	// zero when unknown (a merge), and then WallSum stands in.
	Elapsed        time.Duration
	FaultsApplied  map[string]int
	FaultsEnabled  map[string]int // seeds that enabled each kind
	FaultsSkipped  uint64
	Lin            map[string]int
	Audited        int
	Diverged       int
	FailingByCheck map[string]int
	Marks          *MarkTally
	// Timers counts, per timer of the documents, the seeds it decided in.
	Timers TimerTally
	// LinUnknown lists the seeds whose linearizability check timed out
	// (porcupine's Unknown), in the order added.
	LinUnknown []uint64
	// Strict makes a linearizability Unknown fail the campaign.
	Strict bool
	// Config renders the replay command of failing seeds and says which
	// marks the verdict judges (every expected mark with every fault kind).
	Config Config
	// MarkNeeds, when set, maps an expected mark to the fault kinds that
	// lead to it: any one of kinds suffices, none means it needs no fault,
	// and known=false that only the full swarm is expected to reach it.
	MarkNeeds func(check.Mark) (kinds []sim.FaultKind, known bool)
	// problems are campaign-level failures beside seeds (a merge's gaps).
	problems []error
}

// NewSummary returns an empty summary.
func NewSummary() *Summary {
	return &Summary{
		FaultsApplied:  map[string]int{},
		FaultsEnabled:  map[string]int{},
		Lin:            map[string]int{},
		FailingByCheck: map[string]int{},
		Marks:          NewMarkTally(),
		Timers:         newTimerTally(),
	}
}

// Add folds one seed in.
func (s *Summary) Add(r SeedReport) {
	if s.Seeds == 0 || r.Seed < s.First {
		s.First = r.Seed
	}
	if s.Seeds == 0 || r.Seed > s.Last {
		s.Last = r.Seed
	}
	s.Seeds++
	s.Violations += len(r.Violations)
	s.Events += r.Events
	s.Virtual += time.Duration(r.VirtualMS) * time.Millisecond
	s.WallSum += time.Duration(r.WallMS * float64(time.Millisecond))
	for _, k := range r.Faults.Enabled {
		s.FaultsEnabled[k]++
	}
	for _, k := range sortedKeys(r.Faults.Applied) {
		s.FaultsApplied[k] += r.Faults.Applied[k]
	}
	s.FaultsSkipped += r.Faults.Skipped
	s.Lin[r.Lin.Result]++
	if r.Lin.Result == LinUnknown {
		s.LinUnknown = append(s.LinUnknown, r.Seed)
	}
	if r.Audit != nil {
		s.Audited++
		if r.Audit.Diverged {
			s.Diverged++
		}
	}
	marks := make([]check.MarkCount, 0, len(r.Marks))
	for _, k := range sortedKeys(r.Marks) {
		marks = append(marks, check.MarkCount{Mark: check.Mark(k), Count: r.Marks[k]})
	}
	s.Marks.AddSeed(marks)
	s.Timers.add(r)
	if r.Failed() {
		s.Failing = append(s.Failing, r)
		s.FailingByCheck[r.FirstCheck()]++
	}
}

// MarkVerdict is sim/check's expected-mark verdict for this campaign: it
// fails a campaign of CampaignSeedsMin seeds or more that never hit an
// expected mark it judges. The swarm over every fault kind (Config.Faults
// nil) judges every expected mark; a campaign restricted to some kinds
// judges the marks MarkNeeds says those kinds lead to, and none without
// MarkNeeds.
func (s *Summary) MarkVerdict() error {
	if !s.MarksJudged() {
		return nil
	}
	return s.marks().Verdict()
}

// MarksJudged reports whether the mark verdict judges any mark.
func (s *Summary) MarksJudged() bool { return len(s.marks().JudgedMarks()) > 0 }

// marks returns the tally judging the marks this campaign's faults reach.
func (s *Summary) marks() *MarkTally {
	s.Marks.Judged = s.judgedMark
	return s.Marks
}

// judgedMark reports whether this campaign's fault kinds can be expected
// to reach mark m: every kind is enabled, or MarkNeeds knows m and names no
// kind (it needs none) or a kind the campaign enables.
func (s *Summary) judgedMark(m check.Mark) bool {
	if s.Config.Faults == nil {
		return true
	}
	if s.MarkNeeds == nil {
		return false
	}
	kinds, known := s.MarkNeeds(m)
	if !known {
		return false
	}
	return len(kinds) == 0 || slices.ContainsFunc(kinds, func(k sim.FaultKind) bool {
		return slices.Contains(s.Config.Faults, k)
	})
}

// ErrLinUnknown fails a -strict campaign with linearizability Unknowns.
var ErrLinUnknown = errors.New("linearizability unknown (porcupine timed out) under -strict")

// Err is nil when the campaign passed: no failing seed and no missed
// expected mark.
func (s *Summary) Err() error {
	var errs []error
	if len(s.Failing) > 0 {
		errs = append(errs, fmt.Errorf("%d of %d seeds failed", len(s.Failing), s.Seeds))
	}
	if err := s.MarkVerdict(); err != nil {
		errs = append(errs, err)
	}
	if s.Strict && len(s.LinUnknown) > 0 {
		errs = append(errs, fmt.Errorf("%w: %d seeds", ErrLinUnknown, len(s.LinUnknown)))
	}
	errs = append(errs, s.problems...)
	return errors.Join(errs...)
}

func (s *Summary) wall() (time.Duration, string) {
	if s.Elapsed > 0 {
		return s.Elapsed, "wall"
	}
	return s.WallSum, "wall summed over seeds"
}

// Write renders the summary.
func (s *Summary) Write(w io.Writer) {
	wall, wallLabel := s.wall()
	fmt.Fprintf(w, "summary\n")
	fmt.Fprintf(w, "  seeds         %d (%d..%d), %d failing\n", s.Seeds, s.First, s.Last, len(s.Failing))
	fmt.Fprintf(w, "  events        %d, %s events/s\n", s.Events, rate(float64(s.Events), wall))
	fmt.Fprintf(w, "  virtual time  %s simulated in %s %s (%sx)\n",
		s.Virtual, wall.Round(time.Millisecond), wallLabel, rate(s.Virtual.Seconds(), wall))
	s.writeFaults(w)
	fmt.Fprintf(w, "  linearizable  ok=%d illegal=%d unknown=%d unchecked=%d\n",
		s.Lin[LinOk], s.Lin[LinIllegal], s.Lin[LinUnknown], s.Lin[LinNone])
	fmt.Fprintf(w, "  determinism   %d seeds audited, %d diverged\n", s.Audited, s.Diverged)
	fmt.Fprintf(w, "  violations    %d%s\n", s.Violations, s.byCheck())
	s.writeMarks(w)
	s.writeTimers(w)
	s.writeFailing(w)
	s.writeLinUnknown(w)
	if err := s.Err(); err != nil {
		fmt.Fprintf(w, "FAIL: %s\n", strings.ReplaceAll(err.Error(), "\n", "; "))
		return
	}
	if n := len(s.LinUnknown); n > 0 {
		fmt.Fprintf(w, "PASS (%d seeds linearizability unknown — porcupine timed out; rerun them)\n", n)
		return
	}
	fmt.Fprintf(w, "PASS\n")
}

// writeLinUnknown lists the seeds whose linearizability check timed out,
// with how to rerun one.
func (s *Summary) writeLinUnknown(w io.Writer) {
	if len(s.LinUnknown) == 0 {
		return
	}
	seeds := sortedUnique(s.LinUnknown)
	fmt.Fprintf(w, "  lin unknown   %d seeds: %s (rerun: %s)\n", len(seeds), Ranges(seeds),
		ReplayCommand(seeds[0], s.Config))
}

// faultColumns is how many fault kinds share a summary line.
const faultColumns = 3

func (s *Summary) writeFaults(w io.Writer) {
	total := 0
	for _, k := range sortedKeys(s.FaultsApplied) {
		total += s.FaultsApplied[k]
	}
	fmt.Fprintf(w, "  faults        %d injected (by kind below), %d found no victim\n", total, s.FaultsSkipped)
	kinds := sortedKeys(s.FaultsEnabled)
	for _, k := range sortedKeys(s.FaultsApplied) {
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	slices.Sort(kinds)
	for i := 0; i < len(kinds); i += faultColumns {
		var cells []string
		for _, k := range kinds[i:min(i+faultColumns, len(kinds))] {
			cells = append(cells, fmt.Sprintf("%-26s %7d", k, s.FaultsApplied[k]))
		}
		fmt.Fprintf(w, "    %s\n", strings.Join(cells, "   "))
	}
}

func (s *Summary) byCheck() string {
	if len(s.FailingByCheck) == 0 {
		return ""
	}
	var parts []string
	for _, k := range sortedKeys(s.FailingByCheck) {
		parts = append(parts, fmt.Sprintf("%s=%d", k, s.FailingByCheck[k]))
	}
	return " (failing seeds by first check: " + strings.Join(parts, " ") + ")"
}

func (s *Summary) writeMarks(w io.Writer) {
	fmt.Fprintf(w, "  marks         (seeds hitting, total hits)\n")
	judged := s.MarksJudged()
	missing := len(s.marks().Missing())
	expected := len(s.marks().JudgedMarks())
	unjudged := ""
	if n := len(check.ExpectedMarks()) - expected; judged && n > 0 {
		unjudged = fmt.Sprintf("; %d not judged: their fault kinds are not enabled", n)
	}
	for _, line := range strings.Split(strings.TrimSpace(s.marks().String()), "\n") {
		if line != "" {
			fmt.Fprintf(w, "    %s\n", line)
		}
	}
	switch {
	case !judged:
		fmt.Fprintf(w, "  mark verdict  not judged (faults restricted)\n")
	case s.MarkVerdict() != nil:
		fmt.Fprintf(w, "  mark verdict  FAIL: %d of %d expected marks never hit%s\n", missing, expected, unjudged)
	case s.Seeds < CampaignSeedsMin:
		fmt.Fprintf(w, "  mark verdict  not judged under %d seeds (%d of %d expected marks hit%s)\n",
			CampaignSeedsMin, expected-missing, expected, unjudged)
	default:
		fmt.Fprintf(w, "  mark verdict  ok (%d of %d expected marks hit%s)\n", expected-missing, expected, unjudged)
	}
}

func (s *Summary) writeFailing(w io.Writer) {
	width := 0
	for _, r := range s.Failing[:min(len(s.Failing), failingListMax)] {
		width = max(width, len(fmt.Sprint(r.Seed)))
	}
	for i, r := range s.Failing {
		if i == failingListMax {
			fmt.Fprintf(w, "  ... and %d more failing seeds\n", len(s.Failing)-failingListMax)
			return
		}
		note := ""
		if r.Shrink != "" {
			note = " (" + r.Shrink + ")"
		}
		fmt.Fprintf(w, "  FAIL SEED=%-*d %-26s %s%s\n", width, r.Seed, r.FirstCheck(),
			ReplayCommand(r.Seed, s.Config), note)
	}
}

// rate renders x per second of d, or "n/a" without a wall time.
func rate(x float64, d time.Duration) string {
	if d <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.0f", x/d.Seconds())
}
