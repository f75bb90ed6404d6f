package check

import (
	"fmt"

	"github.com/anishathalye/porcupine"
)

// DecisionModel is the porcupine model of one interaction's decision
// (rule linearizability; partitions are interactions). An attempt is one
// decision Core sent, from its send to the receipt Core received (applied,
// refused, or unknown: open until the horizon); an apply is the Harness
// applying it natively, a point. The state counts applies: an apply needs
// none before it, an attempt answered applied needs one linearized before
// it, refused and unknown attempts claim nothing.
const (
	decisionAttempt = "attempt"
	decisionApply   = "apply"
)

const (
	DecisionOutcomeApplied = "applied"
	DecisionOutcomeRefused = "refused"
	DecisionOutcomeUnknown = "unknown"
)

type decisionInput struct {
	key      string
	op       string
	delivery string
}

func decisionKey(in any) string { return in.(decisionInput).key }

func DecisionModel() porcupine.Model {
	return porcupine.Model{
		Partition: partitionBy(decisionKey),
		Init:      func() any { return 0 },
		Step: func(state, input, output any) (bool, any) {
			applies := state.(int)
			in := input.(decisionInput)
			if in.op == decisionApply {
				return applies == 0, applies + 1
			}
			if output.(string) == DecisionOutcomeApplied {
				return applies > 0, applies
			}
			return true, applies
		},
		DescribeOperation: func(input, output any) string {
			in := input.(decisionInput)
			if in.op == decisionApply {
				return "native apply " + in.key
			}
			return fmt.Sprintf("attempt %s -> %v", in.delivery, output)
		},
		DescribeState: func(state any) string { return fmt.Sprintf("applies=%d", state.(int)) },
	}
}

// ixAttempt is one decision Core sent, with its receipt at Core.
type ixAttempt struct {
	key      string
	delivery string
	result   bool // a function result
	sent     int64
	answered int64 // -1: no receipt
	outcome  string
}

// DecisionHistory is the porcupine history of every interaction Core
// answered or the Harness applied, sorted by interaction.
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
		op := porcupine.Operation{Input: decisionInput{key: a.key, op: decisionAttempt, delivery: a.delivery},
			Call: a.sent, Output: a.outcome, Return: a.answered}
		if a.answered < 0 {
			op.Output, op.Return = DecisionOutcomeUnknown, horizon
		}
		byKey[a.key] = append(byKey[a.key], op)
	}
	for _, k := range sortedKeys(l.ix.truth) {
		for _, at := range l.ix.truth[k].applied {
			byKey[k] = append(byKey[k], porcupine.Operation{Input: decisionInput{key: k, op: decisionApply},
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
// LinearizeTimeoutDefault; a violation names the interactions without a
// linearization.
func (l *Ledger) LinearizeDecisions(at int64) (Violation, bool) {
	ops := l.DecisionHistory()
	if len(ops) == 0 {
		return Violation{}, false
	}
	res, info := porcupine.CheckOperationsVerbose(DecisionModel(), ops, LinearizeTimeoutDefault)
	if res != porcupine.Illegal {
		return Violation{}, false
	}
	bad := illegalPartitions(DecisionModel().Partition(ops), info, decisionKey)
	return Violation{Check: CheckLinearizability, At: at, Message: fmt.Sprintf("no linearization of the decision of %v", bad)}, true
}
