package scenarios_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/core/engine"
	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
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

// TestContractProfileIsTheOpenFixture: the contract kind's profile file
// qualifies exactly what the in-process runners' fixture profile does, so
// a Core started with the file plays the scenarios as the runners do.
func TestContractProfileIsTheOpenFixture(t *testing.T) {
	ps, err := engine.ParseProfiles(scenarios.ContractProfile())
	if err != nil {
		t.Fatal(err)
	}
	want := enginetest.Open(scenarios.ContractKind, false, false)
	want.Label = ps[0].Label
	if len(ps) != 1 || !reflect.DeepEqual(ps[0], want) {
		t.Fatalf("file profile %+v, want %+v", ps, want)
	}
}
