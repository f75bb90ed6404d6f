package harness

import (
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/wire"
)

// budgetWorld runs one daemon against a silent Core over a connection with
// a fixed 10 ms latency and the given faults on it (d1 dials, so the
// kernel's stall and slow pick d1->core first), and returns when and why
// d1 closed a connection itself (zero: never).
func budgetWorld(t *testing.T, faults []sim.Fault) (closedAt time.Duration, reason string) {
	t.Helper()
	ms := int64(time.Millisecond)
	s := &sim.Schedule{Seed: 1, Heal: 40 * time.Second, Faults: faults,
		Network: sim.NetworkConfig{LatencyMin: 10 * ms, LatencyMax: 10 * ms}}
	cfg := daemon.Config{DaemonVersion: "test", Kinds: []daemon.KindConfig{{Kind: "k", Version: "1", Available: true,
		Capabilities: wire.AllCapabilities(wire.CapabilitySupported)}}}
	opts := sim.Options{Schedule: s, Setup: func(w *sim.Kernel) {
		w.AddNode("core", func() sim.Node { return sim.NodeFunc(func(time.Time, sim.Event) []sim.Effect { return nil }) })
		d := NewDevice(w, "d1", "core", cfg, Config{})
		w.AddNode(d.ID, d.Factory)
		w.Tap(func(ev sim.TapEvent) {
			if ev.Kind == sim.TapClosed && ev.From == "d1" && ev.To == "d1" && closedAt == 0 {
				closedAt, reason = time.Duration(ev.At), ev.Reason
			}
		})
	}}
	if r := sim.Run(1, opts); r.Failed() {
		t.Fatal(r.Report())
	}
	return closedAt, reason
}

func TestHeldHeartbeatClosesTheConnectionAtItsBudget(t *testing.T) {
	// The heartbeat due at 15.02 s is held by a stall lasting to 30.1 s:
	// its 5 s budget runs out at 20.02 s.
	at, reason := budgetWorld(t, []sim.Fault{{At: 100 * time.Millisecond, Kind: sim.FaultStall, For: 30 * time.Second}})
	if reason != ReasonSendBudget || at != 20*time.Second+20*time.Millisecond {
		t.Fatalf("daemon closed at %v (%q), want 20.02s (%q)", at, reason, ReasonSendBudget)
	}
}

func TestStallEndingWithinTheBudgetKeepsTheConnection(t *testing.T) {
	at, reason := budgetWorld(t, []sim.Fault{{At: 14 * time.Second, Kind: sim.FaultStall, For: 3 * time.Second}})
	if at != 0 {
		t.Fatalf("daemon closed at %v (%q), want no close", at, reason)
	}
}

func TestLinkSlowerThanTheBudgetClosesTheConnection(t *testing.T) {
	at, reason := budgetWorld(t, []sim.Fault{{At: 14 * time.Second, Kind: sim.FaultSlow, For: 3 * time.Second, Extra: 6 * time.Second}})
	if reason != ReasonSendBudget || at != 20*time.Second+20*time.Millisecond {
		t.Fatalf("daemon closed at %v (%q), want 20.02s (%q)", at, reason, ReasonSendBudget)
	}
}

func TestStallEndingWithinTheBudgetOntoASlowLinkClosesTheConnection(t *testing.T) {
	// The heartbeat due at 15.02 s is held by a stall to 19 s, then the
	// link adds 3 s: at its 20.02 s deadline the write is still held up.
	at, reason := budgetWorld(t, []sim.Fault{
		{At: 14 * time.Second, Kind: sim.FaultStall, For: 5 * time.Second},
		{At: 14500 * time.Millisecond, Kind: sim.FaultSlow, For: 10 * time.Second, Extra: 3 * time.Second}})
	if reason != ReasonSendBudget || at != 20*time.Second+20*time.Millisecond {
		t.Fatalf("daemon closed at %v (%q), want 20.02s (%q)", at, reason, ReasonSendBudget)
	}
}
