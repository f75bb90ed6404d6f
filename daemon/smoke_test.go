package daemon

import (
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

func TestFullTurn(t *testing.T) {
	r := newRig(t)
	turn := r.started("p1", "s1", "run1")
	for i := 0; i < 3; i++ {
		r.step(NativeTurnEvent{Turn: turn, Event: wire.Delta{Delta: "x", Sequence: uint64(i + 1)}})
		eq(t, frameTypes(r.sent()), "delta", "delta forwarded")
	}
	r.settle(turn, SettleResult{Settled: true, Reusable: true})
	eq(t, frameTypes(r.sent()), "done", "done after settlement")
	s := r.m.Snapshot()
	eq(t, len(s.Executors), 1, "executors")
	eq(t, s.Executors[0].Phase, "idle", "executor idle after reusable settlement")
}
