package scenarios

import "fmt"

// Work tallies, for the zero-work rule every runner applies, what a
// scenario run admitted: the Turns its api steps submitted and the Runs
// that started (execution_start frames the run played). A runner feeds it
// each step it played without a failure and asks NoWork at the end.
type Work struct {
	submitted int
	started   int
	// outcome: a core-state step asserted the state of a Turn, so the
	// scenario says what became of its Turns, Run or not (a Turn refused
	// at selection, cancelled before its start, still queued).
	outcome bool
}

// Played records one step the run played without a failure.
func (w *Work) Played(st Step) {
	switch {
	case st.Kind == KindAPI && st.Action == "submit-turn":
		w.submitted++
	case st.Kind == KindFrame && st.Frame != nil && st.Frame.Type == "execution_start" && !st.Frame.Rogue && !st.Frame.Invalid:
		w.started++
	case st.Kind == KindCoreState && st.Args["state"] != "":
		w.outcome = true
	}
}

// NoWork is the zero-work rule: a run whose scenario submitted Turns but
// in which no Run started passed without exercising what it claims, so it
// fails, with this reason, unless a core-state step of the scenario
// asserted what became of its Turns instead. "" when the run admitted
// work or expected none.
func (w Work) NoWork() string {
	if w.submitted == 0 || w.started > 0 || w.outcome {
		return ""
	}
	return fmt.Sprintf("admitted no work: the scenario submitted %d Turn(s) but no Run started (no execution_start was played), "+
		"and no core-state step asserts what became of them", w.submitted)
}
