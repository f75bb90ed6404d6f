package conform

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/scenarios"
)

// Status is a scenario's outcome.
type Status string

const (
	Pass Status = "PASS"
	Fail Status = "FAIL"
	Skip Status = "SKIP"
)

// Result is one scenario's outcome.
type Result struct {
	Name   string
	Status Status
	Reason string // the skip reason, or the first failure
	// NotChecked lists, with positions, assertions the run could not make
	// from outside the implementation.
	NotChecked []string
	Elapsed    time.Duration
	// Credential names, on a skip, the credential whose absence skipped
	// the scenario ("": a skip in the run's nature).
	Credential string
}

// The credentials a Core-side run may lack (CoreTarget.APIToken, APIKey).
const (
	CredentialOperatorToken = "the operator token of Core's operator routes (-operator-token-file)"
	CredentialAPIKey        = "an API key of the Agents API (-api-key-file)"
)

// Report is the outcome of a run.
type Report struct {
	Side    scenarios.Side // the side under test
	Results []Result
}

// Counts returns how many scenarios passed, failed and were skipped.
func (r Report) Counts() (pass, fail, skip int) {
	for _, res := range r.Results {
		switch res.Status {
		case Pass:
			pass++
		case Fail:
			fail++
		default:
			skip++
		}
	}
	return
}

// SkippedFor counts the scenarios skipped for lack of each credential.
func (r Report) SkippedFor() map[string]int {
	out := map[string]int{}
	for _, res := range r.Results {
		if res.Status == Skip && res.Credential != "" {
			out[res.Credential]++
		}
	}
	return out
}

// Write prints the report as README.md shows it.
func (r Report) Write(w io.Writer) {
	for _, res := range r.Results {
		line := fmt.Sprintf("%s  %s", res.Status, res.Name)
		if res.Status != Skip {
			line += fmt.Sprintf(" (%s)", res.Elapsed.Round(10*time.Millisecond))
		}
		fmt.Fprintln(w, line)
		if res.Reason != "" {
			fmt.Fprintln(w, indent(res.Reason, "      "))
		}
		for _, n := range res.NotChecked {
			fmt.Fprintln(w, "      not checked: "+n)
		}
	}
	pass, fail, skip := r.Counts()
	fmt.Fprintf(w, "conform %s: %d passed, %d failed, %d skipped\n", r.Side, pass, fail, skip)
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+prefix)
}

// Options are the timing and selection of a run.
type Options struct {
	Run *regexp.Regexp // selects scenarios by name (nil: all)
	// Quiet: silent this long is silent (default 150ms); FrameTimeout
	// bounds the wait for a frame, a connection or a control answer
	// (default 10s); MaxWait skips scenarios whose advance and silence
	// steps add up to more (default 15s).
	Quiet, FrameTimeout, MaxWait time.Duration
	Log                          io.Writer // when set, gets a line as each scenario starts
	// Settle, when set, runs the side under test in a testing/synctest
	// bubble (synctest.Wait): each step waits until it reacted, and no
	// scenario needs fake time.
	Settle func()
}

func (o Options) withDefaults() Options {
	if o.Quiet <= 0 {
		o.Quiet = 150 * time.Millisecond
	}
	if o.FrameTimeout <= 0 {
		o.FrameTimeout = 10 * time.Second
	}
	if o.MaxWait <= 0 {
		o.MaxWait = 15 * time.Second
	}
	return o
}

// skipReason says why sc cannot run against self in real time, or "".
func (o Options) skipReason(sc *scenarios.Scenario, self scenarios.Side) string {
	steps := sc.Flat()
	if len(steps) > 0 && steps[0].Kind == scenarios.KindOnly && steps[0].Side != self {
		return "only " + string(steps[0].Side) + ": " + strings.Join(strings.Fields(steps[0].Input), " ")
	}
	var total time.Duration // the real time the advance and silence steps take
	for _, st := range steps {
		if st.Kind == scenarios.KindAdvance || st.Kind == scenarios.KindSilence {
			total += st.Duration
		}
	}
	if total > o.MaxWait && o.Settle == nil {
		return fmt.Sprintf("needs fake time: its advance and silence steps wait %v in all (-max-wait %v)", total, o.MaxWait)
	}
	return ""
}

// uses reports whether a scenario has a step of one of kinds.
func uses(sc *scenarios.Scenario, kinds ...scenarios.Kind) bool {
	return slices.ContainsFunc(sc.Flat(), func(st scenarios.Step) bool { return slices.Contains(kinds, st.Kind) })
}

// each plays every scenario o.Run selects on side until ctx ends.
func (o Options) each(ctx context.Context, side scenarios.Side, all []*scenarios.Scenario, play func(*scenarios.Scenario) Result) (Report, error) {
	rep := Report{Side: side}
	for _, sc := range all {
		switch {
		case ctx.Err() != nil:
			return rep, ctx.Err()
		case o.Run != nil && !o.Run.MatchString(sc.Name):
			continue
		case o.Log != nil:
			fmt.Fprintf(o.Log, "conform %s: %s\n", side, sc.Name)
		}
		rep.Results = append(rep.Results, play(sc))
	}
	return rep, nil
}

// failures is a scenario driver's log and its not-checked notes.
type failures struct {
	scenarios.Log
	notChecked []string
}

func (f *failures) notf(format string, args ...any) {
	f.notChecked = append(f.notChecked, f.Pos()+": "+fmt.Sprintf(format, args...))
}

// result is the scenario's result from the failures its play reported.
func (f *failures) result(name string, elapsed time.Duration, errs []error) Result {
	res := Result{Name: name, Status: Pass, NotChecked: f.notChecked, Elapsed: elapsed}
	if len(errs) > 0 {
		res.Status, res.Reason = Fail, errs[0].Error()
		if n := len(errs) - 1; n > 0 {
			res.Reason += fmt.Sprintf("\n(%d later failures not shown)", n)
		}
	}
	return res
}
