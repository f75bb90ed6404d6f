package contracttest

import (
	"errors"

	"github.com/turnstile-sim/turnstile/adapters/agent"
)

// CheckRetire checks the two ways a native owner ends: a Turn that settles
// Reusable=false (Fixture.Retire) carries a reason, its Executor refuses
// the next Turn with a nil Turn and ErrExecutorUnavailable and confirms
// Close; a native exit in the middle of a Turn (Fixture.NativeExit) closes
// the Turn's output, settles it not reusable with a reason and still lets
// Close confirm the cleanup.
func CheckRetire(f agent.ExecutorFactory, fx Fixture) *Report {
	fx = fx.withDefaults()
	rep := newReport()
	if fx.Retire != nil {
		checkEnd(rep, fx, f, ClauseRetire, "retire-1", fx.Retire, true)
	}
	if fx.NativeExit != nil {
		checkEnd(rep, fx, f, ClauseNativeExit, "native-exit-1", fx.NativeExit, false)
	}
	return rep
}

func checkEnd(rep *Report, fx Fixture, f agent.ExecutorFactory, c Clause, runID string, arm func(), requireDone bool) {
	ex := newExecutor(rep, f, fx)
	if ex == nil {
		return
	}
	arm()
	r := start(rep, fx, ex, runID, fx.Input)
	rep.exercise(c)
	if r.turn == nil {
		rep.fail(c, runID, "the armed Turn did not start: %v", r.startErr)
		closeExecutor(rep, fx, ex)
		return
	}
	s, ok := settle(rep, fx, r)
	checkStream(rep, r, requireDone)
	if ok && s.Reusable {
		rep.fail(c, runID, "settled Reusable=true although the native owner cannot take another Turn")
	}
	if ok && !s.Reusable {
		next := start(rep, fx, ex, runID+"-next", fx.Input)
		if next.turn != nil {
			rep.fail(c, next.runID, "a retired Executor started another Turn")
			settle(rep, fx, next)
		} else if !errors.Is(next.startErr, agent.ErrExecutorUnavailable) {
			rep.fail(c, next.runID, "a retired Executor refused the next Turn with %v, want ErrExecutorUnavailable", next.startErr)
		}
	}
	if !closeExecutor(rep, fx, ex) {
		rep.fail(c, runID, "Close of the retired Executor was not confirmed")
	}
}
