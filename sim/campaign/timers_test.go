package campaign

import (
	"bytes"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
)

func timerReports() []SeedReport {
	out := []SeedReport{
		NewSeedReport(Outcome{Result: sim.Result{Seed: 1}, TimersDecided: map[string]int{check.TimerWritten: 2, check.TimerAdmission: 0}}),
		NewSeedReport(Outcome{Result: sim.Result{Seed: 2}, TimersDecided: map[string]int{check.TimerWritten: 1}}),
		NewSeedReport(Outcome{Result: sim.Result{Seed: 3}}),
	}
	return out
}

func TestSeedReportCarriesTimersDecided(t *testing.T) {
	reps := timerReports()
	if got := reps[0].Timers; len(got) != 1 || got[check.TimerWritten] != 2 {
		t.Fatalf("seed 1 timers %v, want written_wait=2 and no zero entries", got)
	}
	if reps[2].Timers != nil {
		t.Fatalf("seed 3 timers %v, want none", reps[2].Timers)
	}
	line := string(MarshalLine(reps[0]))
	if !strings.Contains(line, `"timers_decided":{"written_wait":2}`) {
		t.Fatalf("JSON line lacks the decided timers: %s", line)
	}
}

func TestSummaryTimersSection(t *testing.T) {
	s := NewSummary()
	for _, r := range timerReports() {
		s.Add(r)
	}
	text := summaryText(s)
	for _, want := range []string{"timers        decided in N seeds",
		"written_wait              30s      decided in 2 seeds (3)",
		"admission_expiry          5m0s     decided in 0 seeds (0) NEVER"} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "timer verdict") {
		t.Errorf("a 3-seed campaign judged the timers:\n%s", text)
	}
	if got, want := len(s.Timers.Missing()), len(check.Timers())-1; got != want {
		t.Errorf("%d timers missing, want %d", got, want)
	}
}

func TestMergeKeepsTimersDecided(t *testing.T) {
	var b bytes.Buffer
	b.Write(MarshalLine(NewHeader(Plan{First: 1, Count: 3, Shard: Whole}, Config{}, "")))
	b.WriteByte('\n')
	for _, r := range timerReports() {
		b.Write(MarshalLine(r))
		b.WriteByte('\n')
	}
	m := NewMerger()
	if err := m.Read("whole.jsonl", &b); err != nil {
		t.Fatal(err)
	}
	res := m.Result()
	if got := res.Summary.Timers.Seeds[check.TimerWritten]; got != 2 {
		t.Fatalf("merged written_wait seeds %d, want 2", got)
	}
	if got := res.Summary.Timers.Decisions[check.TimerWritten]; got != 3 {
		t.Fatalf("merged written_wait decisions %d, want 3", got)
	}
}
