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
	ClauseCoreAdmits          Clause = "Core admits a text Turn of the kind"
	ClauseCoreAdmitsLocal     Clause = "Core admits a Turn of the kind in a local Environment"
	ClauseFixture             Clause = "fixture"
)

// TextLifecycleClauses are the clauses CheckTextLifecycle judges; each must
// be exercised or marked not applicable.
func TextLifecycleClauses() []Clause {
	return []Clause{ClauseIndependentStreams, ClauseOwnerContinuity, ClauseWriteVsApplied, ClauseCancelExact,
		ClauseStaleCancel, ClauseContinueAfterCancel, ClauseLateEvents, ClauseFreshTurnState, ClauseSettlement,
		ClauseRetire, ClauseNativeExit, ClauseCleanupFailure, ClauseUnknownKept, ClauseNilTurn, ClauseStreamShape,
		ClauseClose, ClauseUnsupported, ClausePreparedStart, ClausePreparedCancel, ClausePreparedRelease,
		ClausePreparedNothingLeft}
}

// DeclarationClauses are the clauses CheckDeclaration judges.
func DeclarationClauses() []Clause {
	return []Clause{ClauseDeclaration, ClauseCoreAdmits, ClauseCoreAdmitsLocal}
}

// ClauseResult is what one clause saw during a run: how many times it was
// exercised and every failure, in order (the first is the first failing
// step).
//
// A clause a kit judges (TextLifecycleClauses, ClauseUnsupported,
// DeclarationClauses) that was exercised zero times fails with a failure
// saying why, unless the author marked it not applicable
// (Fixture.NotApplicable, DeclarationOptions.NotApplicable): then
// NotApplicable holds the author's reason, which the report prints.
type ClauseResult struct {
	Clause        Clause
	Exercised     int
	Failures      []string
	NotApplicable string
}

// Passed reports whether the clause never failed and was exercised or
// marked not applicable.
func (c ClauseResult) Passed() bool {
	return len(c.Failures) == 0 && (c.Exercised > 0 || c.NotApplicable != "")
}

// Report gathers the results of one or more checks, clause by clause, in
// the order clauses were first touched.
type Report struct {
	order   []Clause
	clauses map[Clause]*ClauseResult
	errs    []error
	// What the native side did: Turns StartTurn returned without an
	// error, and the first start error.
	started  int
	startErr error
	// why explains, per clause, a reason it could not be exercised that a
	// check found (a Turn that did not start, a missing capability).
	why map[Clause]string
	// na holds the clauses a check found not applicable to the adapter
	// under test (an Executor that is no executable preparation), with
	// the reason the report prints.
	na map[Clause]string
}

func newReport() *Report {
	return &Report{clauses: map[Clause]*ClauseResult{}, why: map[Clause]string{}, na: map[Clause]string{}}
}

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
	r.started += other.started
	if r.startErr == nil {
		r.startErr = other.startErr
	}
	for c, why := range other.why {
		if r.why[c] == "" {
			r.why[c] = why
		}
	}
	for c, reason := range other.na {
		r.notApplicable(c, reason)
	}
}

// notApplicable records that c does not apply to the adapter, with the
// reason; judgeExercised then marks it not applicable instead of failing
// it, unless it was exercised after all.
func (r *Report) notApplicable(c Clause, reason string) {
	cr := r.clause(c)
	if r.na[c] == "" {
		r.na[c] = reason
	}
	if cr.Exercised == 0 && len(cr.Failures) == 0 {
		cr.NotApplicable = r.na[c]
	}
}

// Unexercised lists the clauses that failed because they were exercised
// zero times, in report order.
func (r *Report) Unexercised() []Clause {
	var out []Clause
	for _, c := range r.order {
		if cr := r.clauses[c]; cr.Exercised == 0 && len(cr.Failures) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// judgeExercised fails every clause of judged exercised zero times with
// why(c), unless notApplicable marks it with a reason.
func (r *Report) judgeExercised(judged []Clause, notApplicable map[Clause]string, why func(Clause) string) {
	for _, c := range judged {
		cr := r.clause(c)
		if cr.Exercised > 0 || len(cr.Failures) > 0 {
			continue
		}
		if reason := strings.TrimSpace(notApplicable[c]); reason != "" {
			cr.NotApplicable = reason
			continue
		}
		if reason := r.na[c]; reason != "" {
			cr.NotApplicable = reason
			continue
		}
		reason := r.why[c]
		if reason == "" {
			reason = why(c)
		}
		r.fail(c, "", "not exercised: %s", reason)
		cr.Exercised = 0
	}
}

// notExercisedBecause records a reason c could not be exercised.
func (r *Report) notExercisedBecause(c Clause, format string, args ...any) {
	if r.why[c] == "" {
		r.why[c] = fmt.Sprintf(format, args...)
	}
}

// String renders one line per clause: exercised N times, passed, not
// exercised, or failed with the first failing step (and how many more).
func (r *Report) String() string {
	var b strings.Builder
	for _, c := range r.order {
		cr := r.clauses[c]
		switch {
		case cr.Exercised == 0 && len(cr.Failures) > 0:
			fmt.Fprintf(&b, "FAIL %s: %s", c, cr.Failures[0])
		case len(cr.Failures) > 0:
			fmt.Fprintf(&b, "FAIL %s: exercised %d times, first failing step: %s", c, cr.Exercised, cr.Failures[0])
			if n := len(cr.Failures) - 1; n > 0 {
				fmt.Fprintf(&b, " (and %d more)", n)
			}
		case cr.Exercised == 0 && cr.NotApplicable != "":
			fmt.Fprintf(&b, "n/a  %s: not applicable: %s", c, cr.NotApplicable)
		case cr.Exercised == 0:
			fmt.Fprintf(&b, "skip %s: not exercised (this check alone does not judge it)", c)
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
