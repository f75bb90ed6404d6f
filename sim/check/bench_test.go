package check

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/anishathalye/porcupine"

	"github.com/turnstile-sim/turnstile/sim/linearize"
)

// seedHistory builds a per-seed history of the default campaign's size:
// 20 turns over 5 sessions, 50 reads and 30 steers from 4 concurrent
// clients, with a quarter of the steers unknown. Every turn advances
// queued → preparing → running → completed at its own times and reads
// observe the state at a point inside their interval, so it is Ok.
func seedHistory(seed uint64) *Ledger {
	rng := rand.New(rand.NewPCG(seed, 1))
	l := NewLedger()
	const turns = 20
	changes := make([][4]int64, turns) // instants of preparing, running, settle, completed-visible
	for i := 0; i < turns; i++ {
		turn, run := fmt.Sprintf("t%02d", i), fmt.Sprintf("r%02d", i)
		turnWithRun(l, fmt.Sprintf("s%d", i%5), turn, run)
		base := int64(rng.IntN(200)) * ms
		changes[i] = [4]int64{base + 10*ms, base + 40*ms, base + 900*ms, base + 950*ms}
		l.TurnSettled(changes[i][2], run, NativeCompleted)
	}
	stateAt := func(i int, at int64) string {
		c := changes[i]
		switch {
		case at >= c[3]:
			return TurnCompleted
		case at >= c[1]:
			return TurnRunning
		case at >= c[0]:
			return TurnPreparing
		}
		return TurnQueued
	}
	for r := 0; r < 50; r++ {
		i := rng.IntN(turns)
		call := int64(rng.IntN(1200)) * ms
		ret := call + int64(1+rng.IntN(80))*ms
		point := call + rng.Int64N(ret-call+1)
		l.ReadTurn(call, ret, "", fmt.Sprintf("t%02d", i), stateAt(i, point))
	}
	for s := 0; s < 30; s++ {
		i := rng.IntN(turns)
		turn, run, input := fmt.Sprintf("t%02d", i), fmt.Sprintf("r%02d", i), fmt.Sprintf("i%02d", s)
		call := changes[i][1] + int64(s)*20*ms
		switch rng.IntN(4) {
		case 0:
			l.SteerInput(call, 0, "", turn, input, InputUnknown)
			if rng.IntN(2) == 0 {
				l.InputApplied(call+5*ms, run, input)
			}
		case 1:
			l.SteerInput(call, call+10*ms, "", turn, input, InputRejected)
		default:
			l.InputApplied(call+5*ms, run, input)
			l.SteerInput(call, call+10*ms, "", turn, input, InputAccepted)
		}
	}
	return l
}

func TestSeedHistoryIsLinearizable(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		if res := linearize.Check(seedHistory(seed).History(), linearize.Options{}); res.Result != porcupine.Ok {
			t.Fatalf("seed %d: %s", seed, res)
		}
	}
}

func BenchmarkLinearizability(b *testing.B) {
	ledgers := make([]*Ledger, 16)
	for i := range ledgers {
		ledgers[i] = seedHistory(uint64(i + 1))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if res := linearize.Check(ledgers[i%len(ledgers)].History(), linearize.Options{}); res.Result != porcupine.Ok {
			b.Fatalf("%s", res)
		}
	}
}
