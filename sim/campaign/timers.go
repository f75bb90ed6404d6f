package campaign

import (
	"fmt"
	"io"
	"strings"

	"github.com/turnstile-sim/turnstile/sim/check"
)

// timersDecided copies a run's per-timer decision counts, dropping zeros;
// nil when no timer decided.
func timersDecided(m map[string]int) map[string]int {
	var out map[string]int
	for _, k := range sortedKeys(m) {
		if m[k] > 0 {
			if out == nil {
				out = map[string]int{}
			}
			out[k] = m[k]
		}
	}
	return out
}

// TimerTally counts, per timer, the seeds in which it decided an outcome
// and how many outcomes it decided in all. It merges by addition.
type TimerTally struct {
	Seeds     map[string]int
	Decisions map[string]int
}

func newTimerTally() TimerTally {
	return TimerTally{Seeds: map[string]int{}, Decisions: map[string]int{}}
}

func (t TimerTally) add(r SeedReport) {
	for _, k := range sortedKeys(r.Timers) {
		t.Seeds[k]++
		t.Decisions[k] += r.Timers[k]
	}
}

// Missing lists the documents' timers that decided in no seed, in the
// order of check.Timers.
func (t TimerTally) Missing() []string {
	var out []string
	for _, name := range check.Timers() {
		if t.Seeds[name] == 0 {
			out = append(out, name)
		}
	}
	return out
}

// writeTimers renders the "timers decided" section: every timer of the
// documents with the seeds it decided in and its decisions, and any other
// name a world reported.
func (s *Summary) writeTimers(w io.Writer) {
	fmt.Fprintf(w, "  timers        decided in N seeds (decisions in all)\n")
	names := check.Timers()
	for _, k := range sortedKeys(s.Timers.Seeds) {
		if check.DocumentedTimer(k) == 0 {
			names = append(names, k)
		}
	}
	for _, name := range names {
		flag := ""
		if s.Timers.Seeds[name] == 0 {
			flag = " NEVER"
		}
		fmt.Fprintf(w, "    %-25s %-8s decided in %d seeds (%d)%s\n", name, check.DocumentedTimer(name),
			s.Timers.Seeds[name], s.Timers.Decisions[name], flag)
	}
	if missing := s.Timers.Missing(); len(missing) > 0 && s.Seeds >= CampaignSeedsMin {
		fmt.Fprintf(w, "  timer verdict %d of %d timers never decided: %s\n", len(missing), len(check.Timers()),
			strings.Join(missing, ", "))
	}
}
