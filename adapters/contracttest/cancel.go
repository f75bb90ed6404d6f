package contracttest

import (
	"context"
	"errors"

	"github.com/turnstile-sim/turnstile/adapters/agent"
)

// CheckCancel checks cancellation and settlement on held Turns: a caller
// deadline on AwaitSettlement proves nothing (ErrNotSettled) and leaves
// the Turn running; Cancel targets exactly its Turn (a held Turn of
// another Executor keeps running), returns without waiting and is
// idempotent; the snapshot is readable without waiting before and after
// settlement; settlement follows with the output closed; a slow native
// end (Fixture.SlowCancel) is not reported settled because the cancel was
// accepted; a stale Cancel after settlement returns nil; a reusable
// Executor runs a healthy next Turn.
func CheckCancel(f agent.ExecutorFactory, fx Fixture) *Report {
	fx = fx.withDefaults()
	rep := newReport()
	if fx.Hold == nil {
		rep.fail(ClauseFixture, "cancel", "Hold is required to keep a Turn running until it is cancelled")
		return rep
	}
	ex := newExecutor(rep, f, fx)
	if ex == nil {
		return rep
	}
	other := newExecutor(rep, f, fx)
	if other == nil {
		closeExecutor(rep, fx, ex)
		return rep
	}
	fx.Hold()
	r := start(rep, fx, ex, "cancel-1", fx.Input)
	fx.Hold()
	bystander := start(rep, fx, other, "cancel-bystander", fx.Input)
	if !r.started() || !bystander.started() {
		rep.fail(ClauseCancelExact, r.runID, "held Turns did not start: %v, %v", r.startErr, bystander.startErr)
		closeExecutor(rep, fx, ex)
		closeExecutor(rep, fx, other)
		return rep
	}
	if err := awaitWithin(fx, r); err == nil {
		rep.fail(ClauseSettlement, r.runID, "held Turn reported settlement before it was cancelled")
	} else if !errors.Is(err, agent.ErrNotSettled) {
		rep.fail(ClauseSettlement, r.runID, "AwaitSettlement deadline error %v does not wrap ErrNotSettled", err)
	}
	readOutcome(rep, fx, r, "before cancel")
	rep.exercise(ClauseCancelExact)
	cancelPromptly(rep, fx, r)
	cancelTurn(rep, fx, r)
	s, ok := settle(rep, fx, r)
	checkStream(rep, r, false)
	readOutcome(rep, fx, r, "after settlement")
	if err := awaitWithin(fx, bystander); err == nil {
		rep.fail(ClauseCancelExact, bystander.runID, "cancelling cancel-1 also ended a Turn of another Executor")
	}
	rep.exercise(ClauseStaleCancel)
	cancelTurn(rep, fx, r)
	cancelTurn(rep, fx, bystander)
	settle(rep, fx, bystander)
	if ok && s.Reusable {
		checkContinuation(rep, fx, ex, "cancel-2")
	}
	if fx.SlowCancel != nil {
		checkSlowCancel(rep, fx, ex)
	}
	closeExecutor(rep, fx, ex)
	closeExecutor(rep, fx, other)
	return rep
}

func awaitWithin(fx Fixture, r *run) error {
	ctx, cancel := context.WithTimeout(context.Background(), fx.Window)
	defer cancel()
	_, err := r.turn.AwaitSettlement(ctx)
	return err
}

func checkContinuation(rep *Report, fx Fixture, ex agent.Executor, runID string) {
	rep.exercise(ClauseContinueAfterCancel)
	next := start(rep, fx, ex, runID, fx.Input)
	if !next.started() {
		rep.fail(ClauseContinueAfterCancel, runID, "reusable Executor refused the Turn after a cancel: %v", next.startErr)
		return
	}
	if _, ok := settle(rep, fx, next); ok {
		if _, done := checkStream(rep, next, true); !done {
			rep.fail(ClauseContinueAfterCancel, runID, "the Turn after a cancel did not complete")
		}
	}
}

// checkSlowCancel: the native end takes longer than the window after the
// cancel; Cancel returns at once and settlement waits for the native end.
func checkSlowCancel(rep *Report, fx Fixture, ex agent.Executor) {
	fx.SlowCancel()
	r := start(rep, fx, ex, "cancel-slow", fx.Input)
	if !r.started() {
		// The Executor may have retired after the last Turn; not this clause.
		return
	}
	rep.exercise(ClauseSettlement)
	cancelPromptly(rep, fx, r)
	readOutcome(rep, fx, r, "while the native end is pending")
	if err := awaitWithin(fx, r); err == nil {
		rep.fail(ClauseSettlement, r.runID, "settlement reported as soon as the cancel was accepted, before the native end")
	}
	settle(rep, fx, r)
	checkStream(rep, r, false)
}

// readOutcome checks that the snapshot is returned within the window.
func readOutcome(rep *Report, fx Fixture, r *run, when string) {
	got := make(chan struct{})
	go func() {
		r.turn.CancellationOutcome()
		close(got)
	}()
	rep.exercise(ClauseSettlement)
	if !waitClosed(got, fx.Window) {
		rep.fail(ClauseSettlement, r.runID, "CancellationOutcome blocked %s", when)
	}
}

// CheckClose checks Close: success is idempotent and has no further
// native effect; a failed close is reported (never swallowed) and a serial
// retry can succeed; Close of an Executor with an unsettled Turn does not
// confirm before that Turn settled.
func CheckClose(f agent.ExecutorFactory, fx Fixture) *Report {
	fx = fx.withDefaults()
	rep := newReport()
	if ex := newExecutor(rep, f, fx); ex != nil && closeExecutor(rep, fx, ex) {
		before := effects(fx)
		closeExecutor(rep, fx, ex)
		if effects(fx) != before {
			rep.fail(ClauseClose, "close", "second Close had a native effect")
		}
	}
	if fx.FailClose != nil {
		if ex := newExecutor(rep, f, fx); ex != nil {
			fx.FailClose()
			ctx, cancel := context.WithTimeout(context.Background(), fx.Timeout)
			err := ex.Close(ctx)
			cancel()
			rep.exercise(ClauseCleanupFailure)
			if err == nil {
				rep.fail(ClauseCleanupFailure, "close", "failed Close reported success")
			}
			if !closeExecutor(rep, fx, ex) {
				rep.fail(ClauseCleanupFailure, "close", "serial retry of a failed Close did not succeed")
			}
		}
	}
	if fx.Hold != nil {
		checkCloseWithActiveTurn(rep, fx, f)
	}
	return rep
}

func checkCloseWithActiveTurn(rep *Report, fx Fixture, f agent.ExecutorFactory) {
	ex := newExecutor(rep, f, fx)
	if ex == nil {
		return
	}
	fx.Hold()
	r := start(rep, fx, ex, "close-active", fx.Input)
	if !r.started() {
		rep.fail(ClauseClose, r.runID, "held Turn did not start: %v", r.startErr)
		closeExecutor(rep, fx, ex)
		return
	}
	if !closeExecutor(rep, fx, ex) {
		cancelTurn(rep, fx, r)
		settle(rep, fx, r)
		closeExecutor(rep, fx, ex)
		return
	}
	if err := awaitWithin(fx, r); err != nil {
		rep.fail(ClauseClose, r.runID, "Close confirmed while its Turn was unsettled: %v", err)
		return
	}
	if !r.outputClosed(fx.Window) {
		rep.fail(ClauseClose, r.runID, "Close confirmed while its Turn's output was open")
	}
}

func effects(fx Fixture) string {
	if fx.Effects == nil {
		return ""
	}
	return fx.Effects()
}
