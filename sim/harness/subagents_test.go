package harness

import (
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/wire"
)

// The planned subagent reports are fresh: each native_id's identity comes
// first, once; an item only inside a subagent turn already reported;
// about half the Turns spawn none.
func TestPlannedSubagentsAreFresh(t *testing.T) {
	spawned := 0
	sim.Run(1, sim.Options{
		Swarm: sim.SwarmConfig{Kinds: []sim.FaultKind{}, HealMin: time.Hour, HealMax: time.Hour},
		Setup: func(w *sim.Kernel) {
			dev := NewDevice(w, "dev", "core", daemon.Config{}, Config{})
			h := New(w, dev, &testHost{})
			for i := 0; i < 100; i++ {
				plan := h.planSubagents(&hTurn{run: "r" + string(rune('a'+i%26)) + string(rune('0'+i/26))})
				if len(plan) > 0 {
					spawned++
				}
				identified, turns := map[string]bool{}, map[string]bool{}
				for j, p := range plan {
					switch v := p.(type) {
					case wire.SubagentIdentity:
						if identified[v.NativeID] {
							t.Fatalf("plan %d report %d: identity of %s twice", i, j, v.NativeID)
						}
						identified[v.NativeID] = true
					case wire.SubagentLifecycle:
						if !identified[v.NativeID] {
							t.Fatalf("plan %d report %d: lifecycle before identity", i, j)
						}
					case wire.SubagentTurn:
						if !identified[v.NativeID] {
							t.Fatalf("plan %d report %d: turn before identity", i, j)
						}
						turns[v.NativeID+"/"+v.TurnID] = true
					case wire.SubagentItem:
						if !turns[v.NativeID+"/"+v.TurnID] {
							t.Fatalf("plan %d report %d: item before its turn", i, j)
						}
					}
					if err := wire.Validate(p); err != nil {
						t.Fatalf("plan %d report %d: %v", i, j, err)
					}
				}
			}
		},
	})
	if spawned < 25 || spawned > 75 {
		t.Fatalf("%d of 100 Turns spawned subagents, want about half", spawned)
	}
}
