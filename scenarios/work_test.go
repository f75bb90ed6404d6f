package scenarios_test

import (
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/scenarios"
)

func TestWorkNoWork(t *testing.T) {
	submit := scenarios.Step{Kind: scenarios.KindAPI, Action: "submit-turn"}
	start := scenarios.Step{Kind: scenarios.KindFrame, Frame: &scenarios.Frame{Type: "execution_start"}}
	rogue := scenarios.Step{Kind: scenarios.KindFrame, Frame: &scenarios.Frame{Type: "execution_start", Rogue: true}}
	state := scenarios.Step{Kind: scenarios.KindCoreState, Args: map[string]string{"turn": "1", "state": "failed"}}
	for _, c := range []struct {
		name  string
		steps []scenarios.Step
		fails bool
	}{
		{"no Turn submitted", nil, false},
		{"a Run started", []scenarios.Step{submit, start}, false},
		{"no Run, outcome asserted", []scenarios.Step{submit, state}, false},
		{"no Run", []scenarios.Step{submit}, true},
		{"only a rogue start", []scenarios.Step{submit, rogue}, true},
	} {
		var w scenarios.Work
		for _, st := range c.steps {
			w.Played(st)
		}
		why := w.NoWork()
		if (why != "") != c.fails || c.fails && !strings.Contains(why, "admitted no work: the scenario submitted 1 Turn(s) but no Run started") {
			t.Errorf("%s: %q", c.name, why)
		}
	}
}
