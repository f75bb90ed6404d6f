package synthetic_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/synthetic"
	"github.com/turnstile-sim/turnstile/wire"
)

// Input steered while a scripted delta waits for its interval emits its
// own delta first; delta sequences still follow emission order.
func TestDeltaSequenceFollowsEmissionUnderSteering(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		h.Script(synthetic.TurnScript{Deltas: []string{"a", "b"}, EventInterval: time.Second})
		ex := newExecutor(t, h)
		tr := startTurn(t, ex, "run-1", wire.TextInput("hi"))
		if _, err := tr.SteerDurable(t.Context(), agent.SteerInput{InputID: "i1", Input: wire.TextInput("steered")}); err != nil {
			t.Fatal(err)
		}
		mustSettle(t, tr)
		var seqs []uint64
		var texts []string
		for _, ev := range <-tr.events {
			if d, ok := ev.Payload.(wire.Delta); ok {
				seqs = append(seqs, d.Sequence)
				texts = append(texts, d.Delta)
			}
		}
		if len(seqs) != 3 {
			t.Fatalf("deltas %v", texts)
		}
		for i, s := range seqs {
			if s != uint64(i+1) {
				t.Fatalf("sequences %v for deltas %v: want 1, 2, 3 in emission order", seqs, texts)
			}
		}
		if texts[0] != "steered" {
			t.Fatalf("deltas %v: the steered input was applied during the first wait", texts)
		}
	})
}
