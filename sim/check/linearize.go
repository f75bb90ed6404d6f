package check

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

// LinearizeTimeoutDefault bounds one linearizability check (both families,
// all partitions, checked in parallel by porcupine).
const LinearizeTimeoutDefault = time.Second

// FaultEvent is an injected fault, shown as an annotation in the HTML
// visualization. Until is optional (0 or < At means a point in time).
type FaultEvent struct {
	At, Until int64
	Kind      string
	Detail    string
}

// LinearizeOptions configures Linearize.
type LinearizeOptions struct {
	// Timeout is porcupine's wall-clock budget; 0 means
	// LinearizeTimeoutDefault. The only wall-clock use in the package, and
	// it lives inside porcupine: it decides Unknown, never Ok or Illegal.
	Timeout time.Duration
	// Faults annotate the visualization.
	Faults []FaultEvent
	// HTML, when set, receives the visualization of the first illegal
	// partition if the result is Illegal (see visualize.go).
	HTML io.Writer
}

// LinearizeResult is the verdict of one linearizability check.
type LinearizeResult struct {
	Result     porcupine.CheckResult // Ok, Illegal or Unknown (timed out)
	Partitions int
	Operations int
	// Illegal names the partitions without a linearization, sorted; only
	// set when Result is Illegal.
	Illegal []string
	// HTMLWritten reports that the visualization went to the writer.
	HTMLWritten bool
	// HTMLError is the writer's error, if any.
	HTMLError error
}

// String is a one-line summary.
func (r LinearizeResult) String() string {
	s := fmt.Sprintf("linearizability %s (%d partitions, %d operations)", r.Result, r.Partitions, r.Operations)
	if len(r.Illegal) > 0 {
		s += ": " + strings.Join(r.Illegal, ", ")
	}
	return s
}

// Violation turns an Illegal result into a violation at instant at; ok is
// false for Ok and Unknown. Callers report Unknown on its own.
func (r LinearizeResult) Violation(at int64) (Violation, bool) {
	if r.Result != porcupine.Illegal {
		return Violation{}, false
	}
	return Violation{Check: CheckLinearizability, At: at,
		Message: "no linearization for " + strings.Join(r.Illegal, ", ")}, true
}

// Model is the combined porcupine model: turn-state partitions and
// input-delivery partitions share it, dispatching on the operation kind.
func Model() porcupine.Model {
	return porcupine.Model{
		Partition:         partitionBy(linPart),
		Init:              func() any { return nil },
		Step:              modelStep,
		DescribeOperation: describeOperation,
		DescribeState:     describeState,
	}
}

func linPart(in any) string { return in.(linInput).part }

// partitionBy groups operations by the partition key of their input,
// keeping the order in which keys first appear (histories emit them
// sorted).
func partitionBy(key func(input any) string) func([]porcupine.Operation) [][]porcupine.Operation {
	return func(ops []porcupine.Operation) [][]porcupine.Operation {
		var out [][]porcupine.Operation
		index := map[string]int{}
		for _, op := range ops {
			k := key(op.Input)
			i, ok := index[k]
			if !ok {
				i = len(out)
				index[k] = i
				out = append(out, nil)
			}
			out[i] = append(out[i], op)
		}
		return out
	}
}

// Linearize checks the ledger's API history against both models.
func Linearize(l *Ledger, opts LinearizeOptions) LinearizeResult {
	return CheckHistory(l.History(), opts)
}

// CheckHistory runs porcupine on a prepared history.
func CheckHistory(ops []porcupine.Operation, opts LinearizeOptions) LinearizeResult {
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = LinearizeTimeoutDefault
	}
	model := Model()
	parts := model.Partition(ops)
	res := LinearizeResult{Partitions: len(parts), Operations: len(ops)}
	result, info := porcupine.CheckOperationsVerbose(model, ops, timeout)
	res.Result = result
	if result != porcupine.Illegal {
		return res
	}
	res.Illegal = illegalPartitions(parts, info, linPart)
	if opts.HTML != nil && len(res.Illegal) > 0 {
		first := parts[slices.IndexFunc(parts, func(p []porcupine.Operation) bool {
			return p[0].Input.(linInput).part == res.Illegal[0]
		})]
		res.HTMLError = visualizeIllegal(opts.HTML, res.Illegal[0], first, opts.Faults, timeout)
		res.HTMLWritten = res.HTMLError == nil
	}
	return res
}

// illegalPartitions names, sorted, the partitions whose longest partial
// linearization does not cover every operation.
func illegalPartitions(parts [][]porcupine.Operation, info porcupine.LinearizationInfo, key func(input any) string) []string {
	partials := info.PartialLinearizations()
	var out []string
	for i, p := range parts {
		if i >= len(partials) || !slices.ContainsFunc(partials[i], func(lin []int) bool { return len(lin) == len(p) }) {
			out = append(out, key(p[0].Input))
		}
	}
	return sortedUnique(out)
}

func faultAnnotations(faults []FaultEvent) []porcupine.Annotation {
	out := make([]porcupine.Annotation, 0, len(faults))
	for _, f := range faults {
		out = append(out, porcupine.Annotation{
			Tag:             "faults",
			Start:           f.At,
			End:             f.Until,
			Description:     f.Kind,
			Details:         fmt.Sprintf("%s at %s: %s", f.Kind, vtime(f.At), f.Detail),
			BackgroundColor: "#f6c7c7",
		})
	}
	return out
}
