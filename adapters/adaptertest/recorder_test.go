package adaptertest

import (
	"testing"

	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// The receipt clause is judged on what the relay sees: an accepted
// receipt the adapter never reported applied fails
// accepted_without_ground_truth; one sent after the adapter reported
// application passes.
func TestAcceptedReceiptNeedsTheAdapterApplication(t *testing.T) {
	for _, applied := range []bool{false, true} {
		rep := &Report{Seed: 1}
		r := newRecorder("d1", rep)
		frame := func(kind string, f wire.Frame) {
			raw, err := wire.Encode(f)
			if err != nil {
				t.Fatal(err)
			}
			r.wire(tapEvent{conn: 1, kind: kind, raw: raw})
		}
		r.wire(tapEvent{conn: 1, kind: "open"})
		frame("core", wire.Frame{ID: "r-1", Payload: wire.PromptSteer{InputID: "1", Input: wire.TextInput("a"), DurableReceipt: true}})
		frame("daemon", wire.Frame{ID: "r-1", Payload: wire.PromptSteerAck{InputID: "1", Written: true}})
		if applied {
			r.inputApplied("r-1", "1")
		}
		frame("daemon", wire.Frame{ID: "r-1", Payload: wire.PromptSteerAck{InputID: "1", Written: true, Accepted: true}})
		res := rep.Result(check.CheckAcceptedWithoutTruth)
		if applied && len(res.Failures) != 0 {
			t.Fatalf("accepted after application failed: %v", res.Failures)
		}
		if !applied && len(res.Failures) == 0 {
			t.Fatalf("accepted without application passed: %+v", res)
		}
	}
}
