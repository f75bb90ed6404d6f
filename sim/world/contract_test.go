package world

import (
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/harness"
)

// TestHarnessContractBreachFailsTheRun: a native call the daemon contract
// forbids (here a cancel of a turn that was never started, as a buggy
// daemon would issue) is recorded by the simulated Harness and fails the
// run with harness_contract, naming the device and the breach.
func TestHarnessContractBreachFailsTheRun(t *testing.T) {
	opts := Options(Config{Devices: 1, Faults: []sim.FaultKind{}})
	setup := opts.Setup
	opts.Setup = func(w *sim.Kernel) {
		setup(w)
		w.At(sim.Epoch.Add(time.Second), "bogus native cancel", func() {
			n, ok := w.Node("d1").(*harness.Daemon)
			if !ok {
				t.Fatalf("d1 is %T, want *harness.Daemon", w.Node("d1"))
			}
			n.Harness().Call(w.Now(), daemon.NativeCall{Call: "bogus-call", Op: daemon.Cancel{Turn: "never-started"}})
		})
	}
	r := sim.Run(1, opts)
	if got := r.FailedCheck(); got != checkHarnessContract {
		t.Fatalf("failed check %q, want %q (violations %v)", got, checkHarnessContract, r.Violations)
	}
	if msg := r.Violations[0].Message; !strings.Contains(msg, "d1") || !strings.Contains(msg, "never-started") {
		t.Fatalf("violation does not name the device and the breach: %q", msg)
	}
	if clean := sim.Run(1, Options(Config{Devices: 1, Faults: []sim.FaultKind{}})); clean.Failed() {
		t.Fatalf("the same run without the breach fails: %v", clean.Violations)
	}
}
