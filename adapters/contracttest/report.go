package contracttest

import (
	"errors"
	"fmt"
	"strings"
)

// Clause names one obligation of the adapter contract. Every problem the
// kit reports names the clause it breaks, and a Report counts how often
// each clause was exercised.
type Clause string

// The clauses of the text lifecycle (seed: 认定适配器资格), of the
// unsupported-extension assertion and of the declaration check.
const (
	ClauseIndependentStreams  Clause = "independent Turn streams"
	ClauseOwnerContinuity     Clause = "native owner and history continuity"
	ClauseWriteVsApplied      Clause = "durable write and applied receipt kept distinct"
	ClauseCancelExact         Clause = "cancel of the exact Turn"
	ClauseStaleCancel         Clause = "stale cancel"
	ClauseContinueAfterCancel Clause = "healthy continuation after cancel"
	ClauseLateEvents          Clause = "late events never attributed to the active Turn"
	ClauseFreshTurnState      Clause = "fresh per-Turn state"
	ClauseSettlement          Clause = "settlement confirmed independently of the cancel request"
	ClauseRetire              Clause = "Reusable=false requires a reason and a confirmed Close"
	ClauseNativeExit          Clause = "native exit"
	ClauseCleanupFailure      Clause = "cleanup failure"
	ClauseUnknownKept         Clause = "unknown results kept unknown"
	ClauseNilTurn             Clause = "nil-Turn rule"
	ClauseStreamShape         Clause = "ordered events with one terminal done"
	ClauseClose               Clause = "confirmed Close"
	ClauseUnsupported         Clause = "unsupported extensions have no native effects"
	ClauseDeclaration         Clause = "declaration completeness"
	ClauseFixture             Clause = "fixture"
)

// ClauseResult is what one clause saw during a run: how many times it was
// exercised and every failure, in order (the first is the first failing
// step).
type ClauseResult struct {
	Clause    Clause
	Exercised int
	Failures  []string
}

// Passed reports whether the clause was exercised and never failed.
func (c ClauseResult) Passed() bool { return c.Exercised > 0 && len(c.Failures) == 0 }

// Report gathers the results of one or more checks, clause by clause, in
// the order clauses were first touched.
type Report struct {
	order   []Clause
	clauses map[Clause]*ClauseResult
	errs    []error
}

func newReport() *Report { return &Report{clauses: map[Clause]*ClauseResult{}} }

func (r *Report) clause(c Clause) *ClauseResult {
	cr, ok := r.clauses[c]
	if !ok {
		cr = &ClauseResult{Clause: c}
		r.clauses[c] = cr
		r.order = append(r.order, c)
	}
	return cr
}

// exercise counts one exercise of c.
func (r *Report) exercise(c Clause) { r.clause(c).Exercised++ }

// fail records a failure of c, which also counts as an exercise.
func (r *Report) fail(c Clause, step, format string, args ...any) {
	cr := r.clause(c)
	if cr.Exercised == 0 {
		cr.Exercised = 1
	}
	msg := fmt.Sprintf(format, args...)
	if step != "" {
		msg = step + ": " + msg
	}
	cr.Failures = append(cr.Failures, msg)
	r.errs = append(r.errs, fmt.Errorf("%w: [%s] %s", ErrViolation, c, msg))
}

// Results returns every clause touched, in first-touch order.
func (r *Report) Results() []ClauseResult {
	out := make([]ClauseResult, 0, len(r.order))
	for _, c := range r.order {
		cr := *r.clauses[c]
		cr.Failures = append([]string(nil), cr.Failures...)
		out = append(out, cr)
	}
	return out
}

// Result returns the result of c (zero when never touched).
func (r *Report) Result(c Clause) ClauseResult {
	if cr, ok := r.clauses[c]; ok {
		return *cr
	}
	return ClauseResult{Clause: c}
}

// Failed reports whether any clause failed.
func (r *Report) Failed() bool { return len(r.errs) > 0 }

// Err returns every failure joined (each wraps ErrViolation), nil when
// none.
func (r *Report) Err() error { return errors.Join(r.errs...) }

// merge appends other's results to r.
func (r *Report) merge(other *Report) {
	for _, c := range other.order {
		src := other.clauses[c]
		dst := r.clause(c)
		dst.Exercised += src.Exercised
		dst.Failures = append(dst.Failures, src.Failures...)
	}
	r.errs = append(r.errs, other.errs...)
}

// String renders one line per clause: exercised N times, passed, not
// exercised, or failed with the first failing step (and how many more).
func (r *Report) String() string {
	var b strings.Builder
	for _, c := range r.order {
		cr := r.clauses[c]
		switch {
		case len(cr.Failures) > 0:
			fmt.Fprintf(&b, "FAIL %s: exercised %d times, first failing step: %s", c, cr.Exercised, cr.Failures[0])
			if n := len(cr.Failures) - 1; n > 0 {
				fmt.Fprintf(&b, " (and %d more)", n)
			}
		case cr.Exercised == 0:
			fmt.Fprintf(&b, "skip %s: not exercised (the fixture lacks its hook)", c)
		default:
			fmt.Fprintf(&b, "ok   %s: exercised %d times, passed", c, cr.Exercised)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// Failures renders every failure, one per line, each naming its clause.
func (r *Report) Failures() string {
	var b strings.Builder
	for _, c := range r.order {
		for _, f := range r.clauses[c].Failures {
			fmt.Fprintf(&b, "[%s] %s\n", c, f)
		}
	}
	return b.String()
}
