package check

import (
	"fmt"

	"github.com/anishathalye/porcupine"

	"github.com/turnstile-sim/turnstile/sim/linearize"
)

// ixAttempt is one decision Core sent, with its receipt at Core.
type ixAttempt struct {
	key      string
	delivery string
	result   bool // a function result
	sent     int64
	answered int64  // -1: no receipt
	outcome  string // linearize.DecisionApplied or DecisionRefused
}

// DecisionHistory is the history of linearize.DecisionModel (rule
// linearizability; partitions are interactions) of every interaction Core
// answered or the Harness applied, sorted by interaction: an attempt per
// decision Core sent, from its send to its receipt at Core (open until
// the horizon, unknown, without one), and a native apply per apply of the
// Harness, a point.
func (l *Ledger) DecisionHistory() []porcupine.Operation {
	var horizon int64
	for _, a := range l.ix.attempts {
		horizon = max(horizon, a.sent, a.answered)
	}
	for _, k := range sortedKeys(l.ix.truth) {
		for _, at := range l.ix.truth[k].applied {
			horizon = max(horizon, at)
		}
	}
	horizon++
	byKey := map[string][]porcupine.Operation{}
	for _, a := range l.ix.attempts {
		op := porcupine.Operation{Input: linearize.DecisionInput{Key: a.key, Delivery: a.delivery},
			Call: a.sent, Output: a.outcome, Return: a.answered}
		if a.answered < 0 {
			op.Output, op.Return = linearize.DecisionUnknown, horizon
		}
		byKey[a.key] = append(byKey[a.key], op)
	}
	for _, k := range sortedKeys(l.ix.truth) {
		for _, at := range l.ix.truth[k].applied {
			byKey[k] = append(byKey[k], porcupine.Operation{Input: linearize.DecisionInput{Key: k, Apply: true},
				Call: at, Output: "", Return: at})
		}
	}
	var ops []porcupine.Operation
	for _, k := range sortedKeys(byKey) {
		ops = append(ops, byKey[k]...)
	}
	return ops
}

// LinearizeDecisions checks every interaction's decision history, within
// linearize.TimeoutDefault; a violation names the interactions without a
// linearization.
func (l *Ledger) LinearizeDecisions(at int64) (Violation, bool) {
	ops := l.DecisionHistory()
	if len(ops) == 0 {
		return Violation{}, false
	}
	res := linearize.CheckDecisions(ops, linearize.TimeoutDefault)
	if res.Result != porcupine.Illegal {
		return Violation{}, false
	}
	return Violation{Check: CheckLinearizability, At: at, Message: fmt.Sprintf("no linearization of the decision of %v", res.Illegal)}, true
}
