package linearize

import (
	"time"

	"github.com/anishathalye/porcupine"
)

const ms = int64(time.Millisecond)

// history builds operations of Model laid out as a ledger's history is:
// partitions "turn <session>/<turn>" and "inputs <session>/<turn>",
// emitted sorted by key, each with its lanes (Partitions.Ops). Open
// operations (a truth, an unknown steer, the end) run to the horizon the
// caller passes: one nanosecond after the history's latest instant.
type history struct{ Partitions }

func newHistory() history { return history{Partitions{}} }

// read is a read of Turn t of session s, called at call, returning state
// at ret.
func (h history) read(s, t string, call, ret int64, state string) {
	h.Add(Input{Op: OpRead, Part: "turn " + s + "/" + t, Turn: t}, call, ret, state)
}

// settled is Turn t's native settlement truth, open from at to horizon
// (NativeNone from 0: no run of t became a native turn).
func (h history) settled(s, t, truth string, at, horizon int64) {
	h.Add(Input{Op: OpTruth, Part: "turn " + s + "/" + t, Turn: t, Truth: truth}, at, horizon, nil)
}

// steer is a steer of input on Turn t answered outcome; log is the
// inputs the Harness applied to t, in order, restricted to steered ones.
func (h history) steer(s, t, input string, log []string, call, ret int64, outcome string) {
	h.Add(Input{Op: OpSteer, Part: "inputs " + s + "/" + t, Turn: t, Input: input, Log: log}, call, ret, outcome)
}

// end requires, at horizon, every input of log claimed by a steer of t.
func (h history) end(s, t string, log []string, horizon int64) {
	h.Add(Input{Op: OpEnd, Part: "inputs " + s + "/" + t, Turn: t, Log: log}, horizon, horizon, nil)
}

func (h history) ops() []porcupine.Operation { return h.Ops() }
