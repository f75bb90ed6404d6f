package synthetic_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/adaptertest"
	"github.com/turnstile-sim/turnstile/adapters/synthetic"
	"github.com/turnstile-sim/turnstile/wire"
)

// TestAgainstSimulatedCore runs the synthetic adapter in the real daemon
// shell against the simulated Core with a seeded workload and faults.
// Each Turn draws a native behaviour: an echo, a slow stream, a slow
// apply of steered input, a slow cancel, an error, a retiring settlement.
func TestAgainstSimulatedCore(t *testing.T) {
	h := synthetic.New()
	adaptertest.RunAgainstSimulatedCore(t, synthetic.Declaration(h), adaptertest.Options{
		Seed:       7,
		Steps:      60,
		BeforeTurn: func(r *rand.Rand) { h.Script(drawScript(r)) },
	})
}

func drawScript(r *rand.Rand) synthetic.TurnScript {
	slow := synthetic.TurnScript{Deltas: []string{"a", "b", "c", "d"}, EventInterval: time.Duration(1+r.IntN(4)) * time.Second}
	switch r.IntN(6) {
	case 0:
		return synthetic.TurnScript{}
	case 1:
		return slow
	case 2:
		slow.SteerApplyLatency = 2 * time.Second
		return slow
	case 3:
		slow.CancelLatency = 3 * time.Second
		return slow
	case 4:
		slow.Error = &wire.RunError{Error: "native tool failed"}
		return slow
	default:
		slow.Retire = "native session ended"
		return slow
	}
}
