package check

import (
	"slices"
	"strings"
	"testing"
)

func TestExpectedMarksAreSortedAndUnique(t *testing.T) {
	marks := ExpectedMarks()
	if len(marks) != 50+len(hostileExpectedMarks())+len(projectionExpectedMarks)+len(failoverExpectedMarks) {
		t.Fatalf("%d expected marks", len(marks))
	}
	if !slices.IsSorted(marks) || len(slices.Compact(slices.Clone(marks))) != len(marks) {
		t.Fatalf("not sorted and unique: %v", marks)
	}
}

func TestLedgerCountsMarks(t *testing.T) {
	l := NewLedger()
	l.Mark(MarkStaleRevisionIgnored)
	l.Mark(MarkCancelRacedDone)
	l.Mark(MarkStaleRevisionIgnored)
	got := l.Marks()
	want := []MarkCount{{MarkCancelRacedDone, 1}, {MarkStaleRevisionIgnored, 2}}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v want %v", got, want)
	}
}

func allMarksOnce() []MarkCount {
	var out []MarkCount
	for _, m := range ExpectedMarks() {
		out = append(out, MarkCount{m, 1})
	}
	return out
}

func TestTallyFailsLargeCampaignMissingAMark(t *testing.T) {
	tally := NewMarkTally()
	for seed := 0; seed < CampaignSeedsMin; seed++ {
		marks := []MarkCount{{MarkCancelRacedDone, 2}, {MarkCoreRestartMidTurn, 0}}
		if seed%10 == 0 {
			marks = allMarksOnce()[1:] // never admission_expired_before_start
		}
		tally.AddSeed(marks)
	}
	missing := tally.Missing()
	if len(missing) != 1 || missing[0] != MarkAdmissionExpiredBeforeStart {
		t.Fatalf("missing %v", missing)
	}
	err := tally.Verdict()
	if err == nil || !strings.Contains(err.Error(), "admission_expired_before_start") {
		t.Fatalf("verdict %v", err)
	}
	s := tally.String()
	if !strings.Contains(s, "admission_expired_before_start     seeds=0 hits=0 MISSING") ||
		!strings.Contains(s, "cancel_raced_done                  seeds=1000 hits=1900") {
		t.Fatalf("summary:\n%s", s)
	}
}

func TestTallyPassesWhenEveryMarkHit(t *testing.T) {
	a, b := NewMarkTally(), NewMarkTally()
	for seed := 0; seed < 600; seed++ {
		a.AddSeed(nil)
		b.AddSeed(nil)
	}
	b.AddSeed(allMarksOnce())
	b.AddSeed([]MarkCount{{"typo_mark", 1}})
	a.Merge(b)
	if a.Seeds() != 1202 || len(a.Missing()) != 0 || a.Verdict() != nil {
		t.Fatalf("seeds=%d missing=%v verdict=%v", a.Seeds(), a.Missing(), a.Verdict())
	}
	if !strings.Contains(a.String(), "typo_mark") {
		t.Fatal("unexpected mark hidden from the summary")
	}
}

func TestSmallCampaignNeverFailsOnMarks(t *testing.T) {
	tally := NewMarkTally()
	for seed := 0; seed < CampaignSeedsMin-1; seed++ {
		tally.AddSeed(nil)
	}
	if len(tally.Missing()) != len(ExpectedMarks()) || tally.Verdict() != nil {
		t.Fatalf("missing=%v verdict=%v", tally.Missing(), tally.Verdict())
	}
}
