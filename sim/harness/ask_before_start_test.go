package harness

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/wire"
)

// TestAnArmedStartAsksBeforeItReturns: the native side's permission
// request reaches the daemon before the start's result, the device lists
// it for the Run, and the next start asks nothing early.
func TestAnArmedStartAsksBeforeItReturns(t *testing.T) {
	host := &testHost{script: []step{
		{0, daemon.Prepare{Executor: "ex-1", Session: "s1"}},
		{10 * time.Second, daemon.StartTurn{Executor: "ex-1", Turn: "t-1", Run: "r1", Input: wire.TextInput("hi")}},
	}}
	var dev *Device
	r := sim.Run(1, sim.Options{
		Swarm: sim.SwarmConfig{Kinds: []sim.FaultKind{}, HealMin: time.Hour, HealMax: time.Hour},
		Setup: func(w *sim.Kernel) {
			dev = NewDevice(w, "dev", "core", daemon.Config{}, Config{})
			dev.Native = NewNativeHistory()
			dev.ArmAskBeforeStart()
			host.h = New(w, dev, host)
			w.AddNode("dev", func() sim.Node { return host })
		},
	})
	if r.Failed() {
		t.Fatalf("run failed: %v", r.Violations)
	}
	ask := slices.IndexFunc(host.seen, func(s string) bool { return strings.Contains(s, "permission_request") })
	start := slices.IndexFunc(host.seen, func(s string) bool { return strings.Contains(s, "start") && strings.Contains(s, "result") })
	if ask < 0 || start < 0 || ask > start {
		t.Fatalf("the ask (at %d) does not precede the start result (at %d): %q", ask, start, host.seen)
	}
	if got := dev.AskedBeforeStart("r1"); len(got) != 1 || !strings.HasPrefix(got[0], "perm-r1-") {
		t.Fatalf("asked before start = %q", got)
	}
	if dev.askBeforeStart != 0 {
		t.Fatalf("%d asks still armed", dev.askBeforeStart)
	}
}
