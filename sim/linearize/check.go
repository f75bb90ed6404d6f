package linearize

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

// TimeoutDefault bounds one linearizability check (all partitions,
// checked in parallel by porcupine).
const TimeoutDefault = time.Second

// Fault is an injected fault, shown as an annotation in the HTML
// visualization. Until is optional (0 or < At means a point in time).
type Fault struct {
	At, Until int64
	Kind      string
	Detail    string
}

// Options configures Check.
type Options struct {
	// Timeout is porcupine's wall-clock budget; 0 means TimeoutDefault.
	// The only wall-clock use in the package, and it lives inside
	// porcupine: it decides Unknown, never Ok or Illegal.
	Timeout time.Duration
	// Faults annotate the visualization.
	Faults []Fault
	// HTML, when set, receives the visualization of the first illegal
	// partition if the result is Illegal (see visualize.go).
	HTML io.Writer
}

func (o Options) timeout() time.Duration {
	if o.Timeout <= 0 {
		return TimeoutDefault
	}
	return o.Timeout
}

// Result is the verdict of one linearizability check.
type Result struct {
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
func (r Result) String() string {
	s := fmt.Sprintf("linearizability %s (%d partitions, %d operations)", r.Result, r.Partitions, r.Operations)
	if len(r.Illegal) > 0 {
		s += ": " + strings.Join(r.Illegal, ", ")
	}
	return s
}

// Model is the combined porcupine model: turn-state, input-delivery and
// file partitions share it, dispatching on the operation's Op.
func Model() porcupine.Model {
	return porcupine.Model{
		Partition:         partitionBy(partKey),
		Init:              func() any { return nil },
		Step:              modelStep,
		DescribeOperation: describeOperation,
		DescribeState:     describeState,
	}
}

func partKey(in any) string { return in.(Input).Part }

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

// Check runs porcupine on a history of Model's operations (Input inputs).
func Check(ops []porcupine.Operation, opts Options) Result {
	timeout := opts.timeout()
	res, parts := verdict(Model(), partKey, ops, timeout)
	if opts.HTML != nil && len(res.Illegal) > 0 {
		first := parts[slices.IndexFunc(parts, func(p []porcupine.Operation) bool {
			return partKey(p[0].Input) == res.Illegal[0]
		})]
		res.HTMLError = visualizeIllegal(opts.HTML, res.Illegal[0], first, opts.Faults, timeout)
		res.HTMLWritten = res.HTMLError == nil
	}
	return res
}

// verdict checks ops against model within timeout and names, when the
// result is Illegal, the partitions (by key) without a linearization.
func verdict(model porcupine.Model, key func(input any) string, ops []porcupine.Operation,
	timeout time.Duration) (Result, [][]porcupine.Operation) {
	parts := model.Partition(ops)
	res := Result{Partitions: len(parts), Operations: len(ops)}
	result, info := porcupine.CheckOperationsVerbose(model, ops, timeout)
	res.Result = result
	if result == porcupine.Illegal {
		res.Illegal = illegalPartitions(parts, info, key)
	}
	return res, parts
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
	if len(out) == 0 {
		return nil
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func faultAnnotations(faults []Fault) []porcupine.Annotation {
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

// vtime renders virtual nanoseconds as a duration since the epoch.
func vtime(at int64) string { return time.Duration(at).String() }
