package world

import (
	"reflect"
	"testing"

	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
)

// TestSimulatedProfileIsTheOpenFixture: the simulator's own profile
// qualifies exactly what the engine package's open test fixture does.
func TestSimulatedProfileIsTheOpenFixture(t *testing.T) {
	p := simulatedPolicy(agentKind)
	got, ok := p.Profile(agentKind)
	want := enginetest.Open(agentKind, false, false)
	want.Label = got.Label
	if !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("simulated profile %+v, want %+v", got, want)
	}
}
