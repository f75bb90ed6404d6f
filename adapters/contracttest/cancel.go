package contracttest

import (
	"context"
	"errors"

	"github.com/turnstile-sim/turnstile/adapters/agent"
)

// TestCancel checks cancellation and settlement on a held Turn: a caller
// deadline on AwaitSettlement proves nothing (ErrNotSettled) and leaves the
// Turn running; the snapshot is readable without waiting before and after
// settlement; Cancel is idempotent and settlement follows it with the
// output closed and at most one final done; a stale Cancel after settlement
// returns nil; a reusable Executor runs a healthy next Turn.
func TestCancel(f agent.ExecutorFactory, fx Fixture) error {
	fx = fx.withDefaults()
	rep := &report{name: "TestCancel"}
	if fx.Hold == nil {
		rep.errorf("fixture: Hold is required to keep a Turn running until it is cancelled")
		return rep.err()
	}
	ex := newExecutor(rep, f, fx)
	if ex == nil {
		return rep.err()
	}
	fx.Hold()
	r := start(rep, fx, ex, "cancel-1", fx.Input)
	if r.turn == nil || r.startErr != nil {
		rep.errorf("held Turn did not start: %v", r.startErr)
		closeExecutor(rep, fx, ex)
		return rep.err()
	}
	ctx, cancel := context.WithTimeout(context.Background(), fx.Window)
	_, err := r.turn.AwaitSettlement(ctx)
	cancel()
	switch {
	case err == nil:
		rep.errorf("held Turn reported settlement before it was cancelled")
	case !errors.Is(err, agent.ErrNotSettled):
		rep.errorf("AwaitSettlement deadline error %v does not wrap ErrNotSettled", err)
	}
	readOutcome(rep, fx, r, "before cancel")
	cancelTurn(rep, fx, r)
	cancelTurn(rep, fx, r)
	s, ok := settle(rep, fx, r)
	checkStream(rep, r, false)
	readOutcome(rep, fx, r, "after settlement")
	cancelTurn(rep, fx, r)
	if ok && s.Reusable {
		next := start(rep, fx, ex, "cancel-2", fx.Input)
		if next.turn == nil || next.startErr != nil {
			rep.errorf("reusable Executor refused the Turn after a cancel: %v", next.startErr)
		} else {
			settle(rep, fx, next)
			checkStream(rep, next, true)
		}
	}
	closeExecutor(rep, fx, ex)
	return rep.err()
}

// readOutcome checks that the snapshot is returned within the window.
func readOutcome(rep *report, fx Fixture, r *run, when string) {
	got := make(chan struct{})
	go func() {
		r.turn.CancellationOutcome()
		close(got)
	}()
	if !waitClosed(got, fx.Window) {
		rep.errorf("%s: CancellationOutcome blocked %s", r.runID, when)
	}
}

// TestClose checks Close: success is idempotent and has no further native
// effect; a failed close is reported (never swallowed) and a serial retry
// can succeed; Close of an Executor with an unsettled Turn does not confirm
// before that Turn settled.
func TestClose(f agent.ExecutorFactory, fx Fixture) error {
	fx = fx.withDefaults()
	rep := &report{name: "TestClose"}
	if ex := newExecutor(rep, f, fx); ex != nil && closeExecutor(rep, fx, ex) {
		before := effects(fx)
		closeExecutor(rep, fx, ex)
		if effects(fx) != before {
			rep.errorf("second Close had a native effect")
		}
	}
	if fx.FailClose != nil {
		if ex := newExecutor(rep, f, fx); ex != nil {
			fx.FailClose()
			ctx, cancel := context.WithTimeout(context.Background(), fx.Timeout)
			err := ex.Close(ctx)
			cancel()
			if err == nil {
				rep.errorf("failed Close reported success")
			}
			closeExecutor(rep, fx, ex)
		}
	}
	if fx.Hold != nil {
		checkCloseWithActiveTurn(rep, fx, f)
	}
	return rep.err()
}

func checkCloseWithActiveTurn(rep *report, fx Fixture, f agent.ExecutorFactory) {
	ex := newExecutor(rep, f, fx)
	if ex == nil {
		return
	}
	fx.Hold()
	r := start(rep, fx, ex, "close-active", fx.Input)
	if r.turn == nil || r.startErr != nil {
		rep.errorf("held Turn did not start: %v", r.startErr)
		closeExecutor(rep, fx, ex)
		return
	}
	if !closeExecutor(rep, fx, ex) {
		cancelTurn(rep, fx, r)
		settle(rep, fx, r)
		closeExecutor(rep, fx, ex)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), fx.Window)
	defer cancel()
	if _, err := r.turn.AwaitSettlement(ctx); err != nil {
		rep.errorf("Close confirmed while its Turn was unsettled: %v", err)
		return
	}
	if !r.outputClosed(fx.Window) {
		rep.errorf("Close confirmed while its Turn's output was open")
	}
}

func effects(fx Fixture) string {
	if fx.Effects == nil {
		return ""
	}
	return fx.Effects()
}
