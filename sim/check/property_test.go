package check

import (
	"fmt"
	"testing"

	"github.com/anishathalye/porcupine"
	"pgregory.net/rapid"

	"github.com/turnstile-sim/turnstile/sim/linearize"
)

// seqWorld drives one turn sequentially: every call returns before the next
// starts, and the ground truth follows the outcomes, so the history always
// has a linearization.
type seqWorld struct {
	l       *Ledger
	now     int64
	rank    int
	state   string
	steered int
}

var seqStates = []string{TurnQueued, TurnPreparing, TurnRunning}

func (w *seqWorld) tick() int64 { w.now += ms; return w.now }

func (w *seqWorld) read() {
	w.l.ReadTurn(w.tick(), w.tick(), "s1", "t1", w.state)
}

func (w *seqWorld) advance(t *rapid.T) {
	if IsTerminal(w.state) {
		return
	}
	if w.rank < 2 && rapid.Bool().Draw(t, "advance") {
		w.rank++
		w.state = seqStates[w.rank]
		return
	}
	outcome := rapid.SampledFrom([]string{NativeCompleted, NativeFailed, NativeCancelled}).Draw(t, "settle")
	w.l.TurnSettled(w.tick(), "r1", outcome)
	public := outcome
	if rapid.Bool().Draw(t, "observation_failed") {
		public = TurnFailed // Core may lose the outcome; failed is always allowed
	}
	w.state = public
}

func (w *seqWorld) steer(t *rapid.T) {
	w.steered++
	input := fmt.Sprintf("i%d", w.steered)
	call := w.tick()
	switch rapid.SampledFrom([]string{InputAccepted, InputRejected, InputUnknown}).Draw(t, "outcome") {
	case InputAccepted:
		w.l.InputApplied(w.tick(), "r1", input)
		w.l.SteerInput(call, w.tick(), "s1", "t1", input, InputAccepted)
	case InputRejected:
		w.l.SteerInput(call, w.tick(), "s1", "t1", input, InputRejected)
	default:
		w.l.SteerInput(call, 0, "s1", "t1", input, InputUnknown)
		if rapid.Bool().Draw(t, "unknown_applied") {
			w.l.InputApplied(w.tick(), "r1", input)
		}
	}
}

func drawSequential(t *rapid.T) *seqWorld {
	w := &seqWorld{l: NewLedger(), state: TurnQueued}
	turnWithRun(w.l, "s1", "t1", "r1")
	w.now = 10 * ms
	steps := rapid.IntRange(1, 40).Draw(t, "steps")
	for i := 0; i < steps; i++ {
		switch rapid.IntRange(0, 2).Draw(t, "action") {
		case 0:
			w.read()
		case 1:
			w.advance(t)
		default:
			w.steer(t)
		}
	}
	w.read()
	return w
}

func TestSequentialHistoriesAreLinearizable(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := drawSequential(t)
		if res := linearize.Check(w.l.History(), linearize.Options{}); res.Result != porcupine.Ok {
			t.Fatalf("sequential history: %s", res)
		}
	})
}

func TestRegressingReadIsAlwaysIllegal(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := drawSequential(t)
		if w.rank == 0 && !IsTerminal(w.state) {
			w.advance(t)
			w.read()
		}
		if w.rank == 0 && !IsTerminal(w.state) {
			return // still queued: nothing to regress from
		}
		lower := TurnQueued
		if IsTerminal(w.state) && w.rank > 0 {
			lower = seqStates[rapid.IntRange(0, w.rank).Draw(t, "lower")]
		}
		w.l.ReadTurn(w.tick(), w.tick(), "s1", "t1", lower)
		if res := linearize.Check(w.l.History(), linearize.Options{}); res.Result != porcupine.Illegal {
			t.Fatalf("read of %s after %s: %s", lower, w.state, res)
		}
	})
}
