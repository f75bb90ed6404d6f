package campaign

import (
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/sim/check"
)

// merge adds another tally, as a merge of shards' tallies would.
func (t *MarkTally) merge(o *MarkTally) {
	t.seeds += o.seeds
	for m, n := range o.seedsHit { //tidy:sorted additions commute
		t.seedsHit[m] += n
	}
	for m, n := range o.hitsTotal { //tidy:sorted additions commute
		t.hitsTotal[m] += n
	}
}

func allMarksOnce() []check.MarkCount {
	var out []check.MarkCount
	for _, m := range check.ExpectedMarks() {
		out = append(out, check.MarkCount{Mark: m, Count: 1})
	}
	return out
}

func TestTallyFailsLargeCampaignMissingAMark(t *testing.T) {
	tally := NewMarkTally()
	for seed := 0; seed < CampaignSeedsMin; seed++ {
		marks := []check.MarkCount{{Mark: check.MarkCancelRacedDone, Count: 2}, {Mark: check.MarkCoreRestartMidTurn, Count: 0}}
		if seed%10 == 0 {
			marks = allMarksOnce()[1:] // never admission_expired_before_start
		}
		tally.AddSeed(marks)
	}
	missing := tally.Missing()
	if len(missing) != 1 || missing[0] != check.MarkAdmissionExpiredBeforeStart {
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
	b.AddSeed([]check.MarkCount{{Mark: "typo_mark", Count: 1}})
	a.merge(b)
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
	if len(tally.Missing()) != len(check.ExpectedMarks()) || tally.Verdict() != nil {
		t.Fatalf("missing=%v verdict=%v", tally.Missing(), tally.Verdict())
	}
}
