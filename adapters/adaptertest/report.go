package adaptertest

import (
	"fmt"
	"strings"

	"github.com/turnstile-sim/turnstile/sim/check"
)

// ClauseResult is what one clause of the run saw: how many times it was
// exercised and every failure, the first being the first failing step. A
// clause exercised zero times fails with a failure naming why (derived
// from what Core and the adapter did), unless the author marked it not
// applicable (Options.NotApplicable), whose reason NotApplicable keeps.
type ClauseResult struct {
	Clause        string
	Check         string // the campaign checker that judged it
	Exercised     int
	Failures      []string
	NotApplicable string // the author's reason, when marked and not exercised
}

// Passed reports whether the clause never failed and was exercised or
// marked not applicable.
func (c ClauseResult) Passed() bool {
	return len(c.Failures) == 0 && (c.Exercised > 0 || c.NotApplicable != "")
}

// Report is the per-clause outcome of one run against the simulated Core.
type Report struct {
	Seed  uint64
	Steps int
	// What the workload did: Turns, steers and cancels Core admitted.
	Turns, Steers, Cancels, Cuts, Restarts int
	// What Core and the adapter made of it: Sessions created, Session
	// creations and Turn submissions Core refused, Runs the adapter
	// started (native Turns returned by StartTurn) and, per Turn, the
	// state it ended in with Core's failure code and detail.
	Sessions, SessionsRefused, TurnsRefused, RunsStarted int
	// Outcomes counts the Turns by "state", or "failed code (detail)".
	Outcomes map[string]int
	// FirstRefusal is the first refusal Core answered to the workload.
	FirstRefusal string
	clauses      []*ClauseResult
}

func (r *Report) clause(check string) *ClauseResult {
	for _, c := range r.clauses {
		if c.Check == check {
			return c
		}
	}
	c := &ClauseResult{Check: check, Clause: clauseOf(check)}
	r.clauses = append(r.clauses, c)
	return c
}

// Results returns every clause, in the order of the clause table.
func (r *Report) Results() []ClauseResult {
	out := make([]ClauseResult, 0, len(r.clauses))
	for _, c := range r.clauses {
		cp := *c
		cp.Failures = append([]string(nil), c.Failures...)
		out = append(out, cp)
	}
	return out
}

// Result returns the clause judged by check (zero when unknown).
func (r *Report) Result(check string) ClauseResult {
	for _, c := range r.clauses {
		if c.Check == check {
			return *c
		}
	}
	return ClauseResult{Check: check, Clause: clauseOf(check)}
}

// Unexercised lists the checks that failed because they were exercised
// zero times, in report order.
func (r *Report) Unexercised() []string {
	var out []string
	for _, c := range r.clauses {
		if c.Exercised == 0 && len(c.Failures) > 0 {
			out = append(out, c.Check)
		}
	}
	return out
}

// Failed reports whether any clause failed.
func (r *Report) Failed() bool {
	for _, c := range r.clauses {
		if len(c.Failures) > 0 {
			return true
		}
	}
	return false
}

// String renders one line per clause: exercised N times, passed, or
// failed with the first failing step.
func (r *Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d, %d workload steps: %d Turns, %d steers, %d cancels, %d connection cuts, %d Core restarts\n",
		r.Seed, r.Steps, r.Turns, r.Steers, r.Cancels, r.Cuts, r.Restarts)
	fmt.Fprintf(&b, "admitted: %d Sessions (%d refused), %d Turns (%d refused), %d Runs started; Turns ended: %s\n",
		r.Sessions, r.SessionsRefused, r.Turns, r.TurnsRefused, r.RunsStarted, r.outcomes())
	for _, c := range r.clauses {
		switch {
		case c.Exercised == 0 && len(c.Failures) > 0:
			fmt.Fprintf(&b, "FAIL %s (%s): %s", c.Clause, c.Check, c.Failures[0])
		case len(c.Failures) > 0:
			fmt.Fprintf(&b, "FAIL %s (%s): exercised %d times, first failing step: %s", c.Clause, c.Check, c.Exercised, c.Failures[0])
			if n := len(c.Failures) - 1; n > 0 {
				fmt.Fprintf(&b, " (and %d more)", n)
			}
		case c.Exercised == 0:
			fmt.Fprintf(&b, "n/a  %s (%s): not applicable: %s", c.Clause, c.Check, c.NotApplicable)
		default:
			fmt.Fprintf(&b, "ok   %s (%s): exercised %d times, passed", c.Clause, c.Check, c.Exercised)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// Failures renders every failure, one per line, naming its clause.
func (r *Report) Failures() string {
	var b strings.Builder
	for _, c := range r.clauses {
		for _, f := range c.Failures {
			fmt.Fprintf(&b, "[%s] %s\n", c.Clause, f)
		}
	}
	return b.String()
}

// outcomes renders Outcomes sorted by key.
func (r *Report) outcomes() string {
	if len(r.Outcomes) == 0 {
		return "none"
	}
	parts := make([]string, 0, len(r.Outcomes))
	for _, k := range sortedKeys(r.Outcomes) {
		parts = append(parts, fmt.Sprintf("%d %s", r.Outcomes[k], k))
	}
	return strings.Join(parts, ", ")
}

// admissionReason explains a run in which no Run started, from what Core
// answered; "" when Runs started.
func (r *Report) admissionReason() string {
	switch {
	case r.RunsStarted > 0:
		return ""
	case r.Sessions == 0 && r.SessionsRefused > 0:
		return "Core refused every Session: " + r.FirstRefusal
	case r.Sessions == 0:
		return "the workload created no Session"
	case r.Turns == 0 && r.TurnsRefused > 0:
		return "Core refused every Turn submission: " + r.FirstRefusal
	case r.Turns == 0:
		return "the workload submitted no Turn"
	}
	if len(r.Outcomes) == 1 {
		for k, n := range r.Outcomes {
			if n != r.Turns {
				break
			}
			if c, ok := strings.CutPrefix(k, "failed capability_unsupported ("); ok {
				return fmt.Sprintf("Core refused every Turn: capability `%s` not declared", strings.TrimSuffix(c, ")"))
			}
			return fmt.Sprintf("Core started no Run: all %d Turns ended %s", n, k)
		}
	}
	return fmt.Sprintf("Core started no Run: %d Turns submitted, ended: %s", r.Turns, r.outcomes())
}

// zeroReason explains why chk was exercised zero times.
func (r *Report) zeroReason(chk string) string {
	if why := r.admissionReason(); why != "" {
		return why
	}
	return r.clauseReason(chk) + r.refusedTurns()
}

// refusedTurns summarises the Turns Core failed for a capability, for a
// run that started some Runs.
func (r *Report) refusedTurns() string {
	var parts []string
	for _, k := range sortedKeys(r.Outcomes) {
		if c, ok := strings.CutPrefix(k, "failed capability_unsupported ("); ok {
			parts = append(parts, fmt.Sprintf("%d for capability `%s`", r.Outcomes[k], strings.TrimSuffix(c, ")")))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "; Core refused Turns: " + strings.Join(parts, ", ") + " not declared"
}

func (r *Report) clauseReason(chk string) string {
	switch chk {
	case CheckDeclaredOnWire:
		return "the daemon never sent a heartbeat"
	case check.CheckInputDeliveredTwice, check.CheckAcceptedWithoutTruth:
		return fmt.Sprintf("no steered input was reported applied (%d steers admitted by Core, %d Runs started)", r.Steers, r.RunsStarted)
	case check.CheckPublishedBeforeSettled, CheckOutputAfterDone:
		return fmt.Sprintf("no Run sent done (%d Runs started)", r.RunsStarted)
	case check.CheckRefusalCode:
		return "the daemon sent no receipt (steer acknowledgement, decision acknowledgement or preparation status)"
	}
	return fmt.Sprintf("no step of seed %d exercised it (%d Runs started)", r.Seed, r.RunsStarted)
}

// judgeExercised fails every clause exercised zero times, naming why,
// unless notApplicable marks it (then its reason is kept).
func (r *Report) judgeExercised(notApplicable map[string]string) {
	for _, c := range r.clauses {
		if c.Exercised > 0 || len(c.Failures) > 0 {
			continue
		}
		if why := notApplicable[c.Check]; why != "" {
			c.NotApplicable = why
			continue
		}
		c.Failures = append(c.Failures, "not exercised: "+r.zeroReason(c.Check))
	}
}
