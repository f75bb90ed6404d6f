package contracttest

import (
	"context"
	"errors"
	"strings"

	"github.com/turnstile-sim/turnstile/adapters/agent"
)

// The clauses of executable preparations (seed: 必需的适配器接口, Prepared
// and PreparedCancellation; adapters/agent: ExecutorFactory).
const (
	ClausePreparedStart   Clause = "a started preparation's Turn owns its output"
	ClausePreparedCancel  Clause = "an unused preparation's cancel stops its work and output"
	ClausePreparedRelease Clause = "an unused preparation's release confirms its cleanup"
	// ClausePreparedNothingLeft is judged on the native ground truth
	// (Fixture.Owned): a cleanup that reports success but leaves a
	// process, file or connection behind fails it.
	ClausePreparedNothingLeft Clause = "an unused preparation's cleanup leaves no native resource"
)

// PreparedClauses are the clauses CheckPrepared judges.
func PreparedClauses() []Clause {
	return []Clause{ClausePreparedStart, ClausePreparedCancel, ClausePreparedRelease, ClausePreparedNothingLeft}
}

// notPreparation is why the prepared clauses do not apply to an Executor
// that implements neither interface.
const notPreparation = "the Executor is no executable preparation (it implements neither agent.Prepared " +
	"nor agent.PreparedCancellation): the Runtime retires it with Close alone"

// CheckPrepared checks an Executor that is an executable preparation the
// way the Runtime drives it: it implements both Prepared and
// PreparedCancellation; started, its Turn owns the output (closed by the
// Turn, done last) and Close alone retires it; unused, CancelPrepared
// returns with its work stopped (StartTurn then refuses with a nil Turn
// and ErrExecutorUnavailable, writing nothing, and the cancellation
// snapshot invents no output), repeats without error, and Release then
// Close confirm the cleanup; Release alone, repeated, confirms too. An
// Executor that implements neither makes the clauses not applicable, with
// the reason printed.
func CheckPrepared(f agent.ExecutorFactory, fx Fixture) *Report {
	fx = fx.withDefaults()
	rep := newReport()
	ex := newExecutor(rep, f, fx)
	if ex == nil {
		return rep
	}
	_, isPrepared := ex.(agent.Prepared)
	_, cancels := ex.(agent.PreparedCancellation)
	switch {
	case !isPrepared && !cancels:
		for _, c := range PreparedClauses() {
			rep.notApplicable(c, notPreparation)
		}
		closeExecutor(rep, fx, ex)
		return rep
	case !isPrepared || !cancels:
		rep.fail(ClausePreparedCancel, "NewExecutor", "an executable preparation implements both agent.Prepared and "+
			"agent.PreparedCancellation (Prepared %t, PreparedCancellation %t)", isPrepared, cancels)
		closeExecutor(rep, fx, ex)
		return rep
	}
	checkPreparedStart(rep, fx, ex)
	checkPreparedCancel(rep, fx, f)
	checkPreparedRelease(rep, fx, f)
	return rep
}

func checkPreparedStart(rep *Report, fx Fixture, ex agent.Executor) {
	r := start(rep, fx, ex, "prepared-start-1", fx.Input)
	rep.exercise(ClausePreparedStart)
	if r.turn == nil {
		rep.fail(ClausePreparedStart, r.runID, "the preparation did not start a Turn: %v", r.startErr)
		closeExecutor(rep, fx, ex)
		return
	}
	if _, ok := settle(rep, fx, r); ok {
		if _, done := checkStream(rep, r, true); !done {
			rep.fail(ClausePreparedStart, r.runID, "the started Turn's output did not end with done")
		}
	}
	if !closeExecutor(rep, fx, ex) {
		rep.fail(ClausePreparedStart, "Close", "Close of a started preparation was not confirmed")
	}
}

func checkPreparedCancel(rep *Report, fx Fixture, f agent.ExecutorFactory) {
	before := owned(fx)
	ex := newExecutor(rep, f, fx)
	if ex == nil {
		return
	}
	defer checkNothingLeft(rep, fx, before, "CancelPrepared, Release and Close")
	c := ex.(agent.PreparedCancellation)
	rep.exercise(ClausePreparedCancel)
	for i := range 2 {
		if err := callPrepared(fx, c.CancelPrepared); err != nil {
			step := "CancelPrepared"
			if i > 0 {
				step = "CancelPrepared again (it is idempotent after success)"
			}
			rep.fail(ClausePreparedCancel, step, "%v", err)
			closeExecutor(rep, fx, ex)
			return
		}
	}
	if d := c.CancellationOutcome().Done(); d.Content != "" {
		rep.fail(ClausePreparedCancel, "CancellationOutcome", "an unused preparation's snapshot carries output %q it never produced", d.Content)
	}
	r := start(rep, fx, ex, "prepared-cancelled-1", fx.Input)
	switch {
	case r.turn != nil:
		rep.fail(ClausePreparedCancel, r.runID, "a cancelled preparation started a Turn")
		settle(rep, fx, r)
	case !errors.Is(r.startErr, agent.ErrExecutorUnavailable):
		rep.fail(ClausePreparedCancel, r.runID, "a cancelled preparation refused the Turn with %v, want ErrExecutorUnavailable", r.startErr)
	}
	releaseTwice(rep, fx, ex, ClausePreparedCancel)
	if !closeExecutor(rep, fx, ex) {
		rep.fail(ClausePreparedCancel, "Close", "Close after CancelPrepared and Release was not confirmed")
	}
}

func checkPreparedRelease(rep *Report, fx Fixture, f agent.ExecutorFactory) {
	before := owned(fx)
	ex := newExecutor(rep, f, fx)
	if ex == nil {
		return
	}
	defer checkNothingLeft(rep, fx, before, "Release and Close")
	rep.exercise(ClausePreparedRelease)
	releaseTwice(rep, fx, ex, ClausePreparedRelease)
	if !closeExecutor(rep, fx, ex) {
		rep.fail(ClausePreparedRelease, "Close", "Close after Release was not confirmed")
	}
}

// releaseTwice releases an unused preparation and repeats it (idempotent
// after success).
func releaseTwice(rep *Report, fx Fixture, ex agent.Executor, c Clause) {
	p := ex.(agent.Prepared)
	for i := range 2 {
		if err := callPrepared(fx, p.Release); err != nil {
			step := "Release"
			if i > 0 {
				step = "Release again (it is idempotent after success)"
			}
			rep.fail(c, step, "%v", err)
			return
		}
	}
}

func callPrepared(fx Fixture, call func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), fx.Timeout)
	defer cancel()
	return call(ctx)
}

// owned is the native ground truth's list of held resources, nil without
// Fixture.Owned.
func owned(fx Fixture) []string {
	if fx.Owned == nil {
		return nil
	}
	return fx.Owned()
}

// checkNothingLeft requires that an unused preparation, once cleaned up
// by steps, left no native resource that was not held before it was
// prepared.
func checkNothingLeft(rep *Report, fx Fixture, before []string, steps string) {
	if fx.Owned == nil {
		rep.notExercisedBecause(ClausePreparedNothingLeft, "Fixture.Owned is nil")
		return
	}
	rep.exercise(ClausePreparedNothingLeft)
	held := map[string]int{}
	for _, r := range before {
		held[r]++
	}
	var left []string
	for _, r := range fx.Owned() {
		if held[r] > 0 {
			held[r]--
			continue
		}
		left = append(left, r)
	}
	if len(left) > 0 {
		rep.fail(ClausePreparedNothingLeft, steps, "the native side still holds %s after an unused preparation's %s confirmed",
			strings.Join(left, ", "), steps)
	}
}
