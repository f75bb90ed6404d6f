package linearize

import (
	"fmt"
	"testing"

	"github.com/anishathalye/porcupine"
)

// attempt is a decision of interaction key Core sent at call, with its
// receipt at ret.
func attempt(key, delivery string, call, ret int64, outcome string) porcupine.Operation {
	return porcupine.Operation{Input: DecisionInput{Key: key, Delivery: delivery}, Call: call, Output: outcome, Return: ret}
}

// apply is the Harness applying a decision of key natively at at.
func apply(key string, at int64) porcupine.Operation {
	return porcupine.Operation{Input: DecisionInput{Key: key, Apply: true}, Call: at, Output: "", Return: at}
}

// The decision model: a second native apply, or an applied receipt with
// no native apply linearizable before it, has no linearization; unknown
// and refused attempts claim nothing.
func TestDecisionModel(t *testing.T) {
	for _, c := range []struct {
		name    string
		ops     []porcupine.Operation
		illegal []string
	}{
		{"refused then an applied retry", []porcupine.Operation{
			attempt("perm-1", "dl-1", 2*ms, 10*ms, DecisionRefused),
			attempt("perm-1", "dl-2", 4*ms, 8*ms, DecisionApplied),
			apply("perm-1", 6*ms)}, nil},
		{"unknown then an applied retry", []porcupine.Operation{
			attempt("perm-1", "dl-1", 2*ms, 11*ms, DecisionUnknown),
			attempt("perm-1", "dl-2", 4*ms, 8*ms, DecisionApplied),
			apply("perm-1", 6*ms)}, nil},
		{"unknown, applied after the last receipt", []porcupine.Operation{
			attempt("perm-1", "dl-1", 2*ms, 11*ms, DecisionUnknown),
			apply("perm-1", 10*ms)}, nil},
		{"double native apply", []porcupine.Operation{
			apply("perm-1", 2*ms),
			apply("perm-1", 3*ms)}, []string{"perm-1"}},
		{"applied before native", []porcupine.Operation{
			attempt("perm-1", "dl-1", 2*ms, 5*ms, DecisionApplied),
			apply("perm-1", 6*ms)}, []string{"perm-1"}},
		{"only the bad interaction named", []porcupine.Operation{
			attempt("perm-1", "dl-1", 2*ms, 5*ms, DecisionRefused),
			apply("perm-1", 3*ms),
			attempt("perm-2", "dl-2", 2*ms, 5*ms, DecisionApplied),
			attempt("perm-3", "dl-3", 2*ms, 5*ms, DecisionApplied),
			apply("perm-3", 4*ms)}, []string{"perm-2"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := CheckDecisions(c.ops, 0)
			want := porcupine.Ok
			if c.illegal != nil {
				want = porcupine.Illegal
			}
			if res.Result != want || fmt.Sprint(res.Illegal) != fmt.Sprint(c.illegal) {
				t.Fatalf("got %s, want %s naming %v", res, want, c.illegal)
			}
		})
	}
}

// Decision operations read as the visualization shows them.
func TestDecisionOperationsInWords(t *testing.T) {
	m := DecisionModel()
	for _, c := range []struct {
		op   porcupine.Operation
		want string
	}{
		{attempt("perm-1", "dl-1", 1, 2, DecisionRefused), "attempt dl-1 -> refused"},
		{apply("perm-1", 3), "native apply perm-1"},
	} {
		if got := m.DescribeOperation(c.op.Input, c.op.Output); got != c.want {
			t.Errorf("DescribeOperation = %q, want %q", got, c.want)
		}
	}
}
