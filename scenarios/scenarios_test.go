package scenarios_test

import (
	"reflect"
	"testing"

	"github.com/turnstile-sim/turnstile/core/engine"
	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
	"github.com/turnstile-sim/turnstile/scenarios"
)

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
