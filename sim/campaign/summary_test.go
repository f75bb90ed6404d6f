package campaign

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
)

func summaryText(s *Summary) string {
	var b bytes.Buffer
	s.Write(&b)
	return b.String()
}

func TestSummaryTotals(t *testing.T) {
	r := toyRunner{bug: true}
	var reports []SeedReport
	s := RunPlan(r, Plan{First: 1, Count: 60, Shard: Whole}, SeedOptions{}, func(run SeedRun) {
		reports = append(reports, run.Report)
	})
	var events uint64
	failing, violations, applied := 0, 0, 0
	for i, rep := range reports {
		if rep.Seed != uint64(i+1) {
			t.Fatalf("emit out of order: %d at %d", rep.Seed, i)
		}
		events += rep.Events
		violations += len(rep.Violations)
		if rep.Failed() {
			failing++
		}
		applied += rep.Faults.Applied["conn_loss"]
	}
	if s.Seeds != 60 || s.First != 1 || s.Last != 60 || s.Events != events || s.Violations != violations ||
		len(s.Failing) != failing || s.FaultsApplied["conn_loss"] != applied || s.Lin[LinNone] != 60 {
		t.Fatalf("totals %+v", s)
	}
	if failing == 0 || s.Err() == nil {
		t.Fatal("the planted bug should fail some of 60 seeds")
	}
	text := summaryText(s)
	for _, want := range []string{"seeds         60 (1..60), " + fmt.Sprint(failing) + " failing",
		"events        " + fmt.Sprint(events), "virtual time", "faults", "conn_loss", "linearizable  ok=0",
		"determinism", "violations    " + fmt.Sprint(violations), "toy_resend", "mark verdict  not judged",
		"FAIL SEED=" + fmt.Sprint(s.Failing[0].Seed), "replay -seed", "FAIL: "} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
}

func TestSummaryPassing(t *testing.T) {
	s := RunPlan(toyRunner{}, Plan{First: 1, Count: 10, Shard: Whole}, SeedOptions{}, nil)
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	if text := summaryText(s); !strings.HasSuffix(text, "PASS\n") {
		t.Fatalf("passing summary:\n%s", text)
	}
}

func TestSummaryMarkVerdict(t *testing.T) {
	s := NewSummary()
	for i := 0; i < CampaignSeedsMin; i++ {
		s.Add(SeedReport{Seed: uint64(i + 1), Lin: LinReport{Result: LinOk}, Marks: map[string]int{
			string(check.MarkCancelRacedDone): 1}})
	}
	if err := s.MarkVerdict(); err == nil || s.Err() == nil {
		t.Fatal("1000 seeds missing expected marks must fail")
	}
	text := summaryText(s)
	n := len(check.ExpectedMarks())
	if !strings.Contains(text, fmt.Sprintf("mark verdict  FAIL: %d of %d expected marks never hit", n-1, n)) ||
		!strings.Contains(text, "steer_unknown_after_30s") || !strings.Contains(text, "linearizable  ok=1000") {
		t.Fatalf("summary:\n%s", text)
	}
	all := map[string]int{}
	for _, m := range check.ExpectedMarks() {
		all[string(m)] = 2
	}
	s.Add(SeedReport{Seed: 5000, Marks: all, Lin: LinReport{Result: LinUnknown}})
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	if text := summaryText(s); !strings.Contains(text, fmt.Sprintf("mark verdict  ok (%d of %d", n, n)) || !strings.Contains(text, "unknown=1") {
		t.Fatalf("summary:\n%s", text)
	}
}

func TestSummaryUnderMinimumNeverFailsOnMarks(t *testing.T) {
	s := NewSummary()
	s.Add(SeedReport{Seed: 1, Lin: LinReport{Result: LinOk}})
	if s.Err() != nil || !strings.Contains(summaryText(s), fmt.Sprintf("not judged under 1000 seeds (0 of %d", len(check.ExpectedMarks()))) {
		t.Fatalf("small campaign: %v\n%s", s.Err(), summaryText(s))
	}
}

func TestSummaryCountsIllegalAndDivergedAsFailing(t *testing.T) {
	s := NewSummary()
	s.Add(SeedReport{Seed: 1, Lin: LinReport{Result: LinIllegal}})
	s.Add(SeedReport{Seed: 2, Lin: LinReport{Result: LinOk}, Audit: &AuditReport{Diverged: true}})
	s.Add(SeedReport{Seed: 3, Lin: LinReport{Result: LinOk}, Audit: &AuditReport{}})
	if len(s.Failing) != 2 || s.Audited != 2 || s.Diverged != 1 || s.FailingByCheck["linearizability"] != 1 ||
		s.FailingByCheck["determinism"] != 1 {
		t.Fatalf("%+v", s)
	}
	if text := summaryText(s); !strings.Contains(text, "2 seeds audited, 1 diverged") {
		t.Fatalf("summary:\n%s", text)
	}
}

func TestSummaryFailingListIsBounded(t *testing.T) {
	s := NewSummary()
	for i := 1; i <= failingListMax+5; i++ {
		s.Add(SeedReport{Seed: uint64(i), Violations: []Violation{{Check: "x"}}})
	}
	text := summaryText(s)
	if strings.Count(text, "FAIL SEED=") != failingListMax || !strings.Contains(text, "and 5 more failing seeds") {
		t.Fatalf("summary:\n%s", text)
	}
	if !strings.Contains(s.Err().Error(), "25 of 25 seeds failed") {
		t.Fatal(s.Err())
	}
}

func TestSummaryRestrictedFaultsJudgeTheMarksTheirKindsReach(t *testing.T) {
	needs := map[check.Mark][]sim.FaultKind{
		check.MarkCancelRacedDone:    {},             // the workload alone
		check.MarkCleanupRetried:     {"close_fail"}, // one kind
		check.MarkCoreRestartMidTurn: {"crash", "x"}, // either kind
	}
	newSummary := func(faults ...sim.FaultKind) *Summary {
		s := NewSummary()
		s.Config.Faults = append([]sim.FaultKind{}, faults...)
		s.MarkNeeds = func(m check.Mark) ([]sim.FaultKind, bool) { k, ok := needs[m]; return k, ok }
		for i := range CampaignSeedsMin {
			s.Add(SeedReport{Seed: uint64(i + 1), Lin: LinReport{Result: LinOk},
				Marks: map[string]int{string(check.MarkCancelRacedDone): 1}})
		}
		return s
	}
	if s := newSummary(); s.Err() != nil || !strings.Contains(summaryText(s),
		fmt.Sprintf("ok (1 of 1 expected marks hit; %d not judged", len(check.ExpectedMarks())-1)) {
		t.Fatalf("-faults none judges only the marks needing no fault: %v\n%s", s.Err(), summaryText(s))
	}
	s := newSummary("x", "close_fail")
	err := s.Err()
	if err == nil || !strings.Contains(err.Error(), "cleanup_retried, core_restart_mid_turn") ||
		strings.Contains(err.Error(), "stale_revision") {
		t.Fatalf("kinds enabled judge their marks, and only those: %v", err)
	}
	if s := newSummary("unrelated"); s.Err() != nil {
		t.Fatalf("a kind leading to no mark judges only the fault-free ones: %v", s.Err())
	}
	s = newSummary("x")
	s.MarkNeeds = nil
	if s.Err() != nil || !strings.Contains(summaryText(s), "not judged (faults restricted)") {
		t.Fatalf("without MarkNeeds a restricted campaign judges no mark: %v", s.Err())
	}
}

// markless returns a summary of n seeds under cfg that hit no mark.
func markless(n int, cfg Config) *Summary {
	s := NewSummary()
	s.Config = cfg
	for i := 1; i <= n; i++ {
		s.Add(SeedReport{Seed: uint64(i), Lin: LinReport{Result: LinOk}})
	}
	return s
}

// Regression: restricted-fault campaigns were judged on the expected marks;
// only the swarm (every fault kind) is.
func TestMarkVerdictOnlyForTheSwarm(t *testing.T) {
	swarm := markless(CampaignSeedsMin, Config{})
	if swarm.Err() == nil || !strings.Contains(summaryText(swarm), "mark verdict  FAIL") {
		t.Fatalf("the swarm must judge marks: %v", swarm.Err())
	}
	for _, faults := range [][]sim.FaultKind{{}, {sim.FaultConnLoss}} {
		s := markless(CampaignSeedsMin, Config{Faults: faults})
		if err := s.Err(); err != nil {
			t.Fatalf("faults %v: %v", faults, err)
		}
		if text := summaryText(s); !strings.Contains(text, "mark verdict  not judged (faults restricted)\n") ||
			!strings.HasSuffix(text, "PASS\n") {
			t.Fatalf("faults %v:\n%s", faults, text)
		}
	}
}

// Regression: seeds whose linearizability check timed out were not listed;
// they are listed with a replay command, pass, and fail under Strict.
func TestLinUnknownIsVisibleAndFailsUnderStrict(t *testing.T) {
	s := NewSummary()
	for i := uint64(1); i <= 4; i++ {
		res := LinOk
		if i%2 == 0 {
			res = LinUnknown
		}
		s.Add(SeedReport{Seed: i, Lin: LinReport{Result: res}})
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	text := summaryText(s)
	for _, want := range []string{"lin unknown   2 seeds: 2 4", "replay -seed 2",
		"PASS (2 seeds linearizability unknown — porcupine timed out; rerun them)\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
	s.Strict = true
	if err := s.Err(); !errors.Is(err, ErrLinUnknown) {
		t.Fatalf("strict: %v", err)
	}
	if text := summaryText(s); strings.Contains(text, "PASS") || !strings.Contains(text, "FAIL: ") {
		t.Fatalf("strict summary:\n%s", text)
	}
}

// The failing list keeps its check column aligned whatever a seed's width.
func TestFailingListIsAligned(t *testing.T) {
	s := NewSummary()
	for _, seed := range []uint64{7, 42, 1234} {
		s.Add(SeedReport{Seed: seed, Violations: []Violation{{Check: "liveness"}}})
	}
	var cols []int
	for _, line := range strings.Split(summaryText(s), "\n") {
		if strings.HasPrefix(line, "  FAIL SEED=") {
			cols = append(cols, strings.Index(line, "liveness"))
		}
	}
	if len(cols) != 3 || cols[0] != cols[1] || cols[1] != cols[2] {
		t.Fatalf("check column at %v:\n%s", cols, summaryText(s))
	}
}

// A failure whose shrink was skipped says why in the failing list.
func TestShrinkNoteInFailingList(t *testing.T) {
	s := NewSummary()
	s.Add(SeedReport{Seed: 3, Violations: []Violation{{Check: "x"}}, Shrink: "shrink skipped: flaky"})
	if text := summaryText(s); !strings.Contains(text, "(shrink skipped: flaky)\n") {
		t.Fatalf("summary:\n%s", text)
	}
}
