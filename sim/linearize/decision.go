package linearize

import (
	"fmt"
	"time"

	"github.com/anishathalye/porcupine"
)

// The decision model of one interaction (partitions are interactions). An
// attempt is one decision Core sent, from its send to the receipt Core
// received (applied, refused, or unknown: open until the horizon); an
// apply is the Harness applying it natively, a point. The state counts
// applies: an apply needs none before it, an attempt answered applied
// needs one linearized before it, refused and unknown attempts claim
// nothing.

// Outcomes of a decision attempt, its operation's output.
const (
	DecisionApplied = "applied"
	DecisionRefused = "refused"
	DecisionUnknown = "unknown"
)

// DecisionInput is a decision operation's input: an attempt of delivery
// Delivery, or (Apply) a native apply, of the interaction Key.
type DecisionInput struct {
	Key      string
	Apply    bool
	Delivery string
}

func decisionKey(in any) string { return in.(DecisionInput).Key }

// DecisionModel is the porcupine model of interactions' decisions.
func DecisionModel() porcupine.Model {
	return porcupine.Model{
		Partition: partitionBy(decisionKey),
		Init:      func() any { return 0 },
		Step: func(state, input, output any) (bool, any) {
			applies := state.(int)
			if input.(DecisionInput).Apply {
				return applies == 0, applies + 1
			}
			if output.(string) == DecisionApplied {
				return applies > 0, applies
			}
			return true, applies
		},
		DescribeOperation: func(input, output any) string {
			in := input.(DecisionInput)
			if in.Apply {
				return "native apply " + in.Key
			}
			return fmt.Sprintf("attempt %s -> %v", in.Delivery, output)
		},
		DescribeState: func(state any) string { return fmt.Sprintf("applies=%d", state.(int)) },
	}
}

// CheckDecisions runs porcupine on a history of DecisionModel's
// operations within timeout (0 means TimeoutDefault); Illegal names the
// interactions without a linearization. It writes no visualization.
func CheckDecisions(ops []porcupine.Operation, timeout time.Duration) Result {
	res, _ := verdict(DecisionModel(), decisionKey, ops, Options{Timeout: timeout}.timeout())
	return res
}
