package conform

import (
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/scenarios"
)

// TestConformPlaysOnly: an only step of the other side skips the rest of
// the scenario in the player the conform runners and the machine runner
// share, and one of this side plays on.
func TestConformPlaysOnly(t *testing.T) {
	text := "only runtime\nthe Runtime's own rule\n----\n\ncore-suspension state=quiesced\n----\n"
	r := newCoreRun(Options{FrameTimeout: time.Second}.withDefaults(), CoreTarget{}, nil)
	rep := scenarios.Play(parse(t, text), r)
	if rep.Failed != nil || len(rep.Failures) != 0 || !strings.Contains(rep.Skipped, "only the runtime side plays this scenario") {
		t.Fatalf("core: %+v", rep)
	}
	if res := playMachine(t, scenarios.Core, parse(t, text)); res.Status != Pass {
		t.Fatalf("machine: %s %s", res.Status, res.Reason)
	}
	r = newCoreRun(Options{FrameTimeout: time.Second}.withDefaults(), CoreTarget{}, nil)
	rep = scenarios.Play(parse(t, strings.Replace(text, "only runtime", "only core", 1)), r)
	if rep.Failed == nil || rep.Failed.Kind != scenarios.KindCoreSuspension || rep.Skipped != "" ||
		len(rep.Failures) != 1 || !strings.Contains(rep.Failures[0].Error(), "nothing was quiesced") {
		t.Fatalf("core: %+v", rep)
	}
}
