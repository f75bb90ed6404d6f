package contracttest

import (
	"errors"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// TestLifecycle checks the mandatory text lifecycle: a Turn starts, emits
// its events in order with its Run ID and one final done, closes its output
// and then settles; the snapshot stays readable; a stale Cancel of a settled
// Turn neither fails nor touches its successor; a reusable Executor runs a
// second Turn; Close succeeds and is idempotent.
func TestLifecycle(f agent.ExecutorFactory, fx Fixture) error {
	fx = fx.withDefaults()
	rep := &report{name: "TestLifecycle"}
	ex := newExecutor(rep, f, fx)
	if ex == nil {
		return rep.err()
	}
	first := start(rep, fx, ex, "lifecycle-1", fx.Input)
	if first.turn == nil || first.startErr != nil {
		rep.errorf("text Turn did not start: %v", first.startErr)
		closeExecutor(rep, fx, ex)
		return rep.err()
	}
	s, ok := settle(rep, fx, first)
	checkStream(rep, first, true)
	outcome := first.turn.CancellationOutcome()
	if ok && s.Reusable {
		second := start(rep, fx, ex, "lifecycle-2", fx.Input)
		cancelTurn(rep, fx, first) // stale: targets the settled Turn only
		if second.turn == nil || second.startErr != nil {
			rep.errorf("reusable Executor refused the next Turn: %v", second.startErr)
		} else {
			settle(rep, fx, second)
			checkStream(rep, second, true)
			if outcome.Completed && !second.turn.CancellationOutcome().Completed {
				rep.errorf("stale Cancel of a settled Turn stopped its successor")
			}
		}
	}
	if closeExecutor(rep, fx, ex) {
		closeExecutor(rep, fx, ex)
	}
	return rep.err()
}

// TestStartRule checks the nil-Turn rule on every start failure the
// contract and the fixture can produce: invalid input, image input on a
// text-only kind, a busy Executor, scripted failures before and after
// input, and a closed Executor. A nil Turn must leave the caller's output
// untouched; a Turn returned with an error must close its output exactly
// once and settle.
func TestStartRule(f agent.ExecutorFactory, fx Fixture) error {
	fx = fx.withDefaults()
	rep := &report{name: "TestStartRule"}
	ex := newExecutor(rep, f, fx)
	if ex == nil {
		return rep.err()
	}
	expectNil := func(r *run, what string, want error) {
		if r.turn != nil {
			rep.errorf("%s: returned a Turn", what)
			settle(rep, fx, r)
			return
		}
		if want != nil && !errors.Is(r.startErr, want) {
			rep.errorf("%s: error %v does not wrap %v", what, r.startErr, want)
		}
	}
	expectNil(start(rep, fx, ex, "start-invalid", wire.MessageInput{}), "invalid input", agent.ErrInvalidRequest)
	if !fx.Capabilities.MessageImages.IsSupported() {
		img := wire.MessageInput{{Content: []wire.InputContent{wire.TextPart("look"), wire.ImagePart("data:image/png;base64,AAAA")}}}
		r := start(rep, fx, ex, "start-image", img)
		expectNil(r, "image input on a text-only kind", nil)
		if r.turn == nil && !errors.Is(r.startErr, agent.ErrUnsupportedOperation) && !errors.Is(r.startErr, wire.ErrImageUnsupported) {
			rep.errorf("image input refused with %v, not an unsupported-input error", r.startErr)
		}
	}
	if fx.Hold != nil {
		fx.Hold()
		held := start(rep, fx, ex, "start-held", fx.Input)
		expectNil(start(rep, fx, ex, "start-busy", fx.Input), "start while a Turn is unsettled", agent.ErrExecutorBusy)
		if held.turn != nil {
			cancelTurn(rep, fx, held)
			settle(rep, fx, held)
		}
	}
	if fx.FailStartBeforeInput != nil {
		fx.FailStartBeforeInput()
		expectNil(start(rep, fx, ex, "start-before-input", fx.Input), "failure before input", nil)
	}
	if fx.FailStartAfterInput != nil {
		checkStartAfterInput(rep, fx, f)
	}
	closeExecutor(rep, fx, ex)
	expectNil(start(rep, fx, ex, "start-closed", fx.Input), "start on a closed Executor", agent.ErrExecutorUnavailable)
	return rep.err()
}

// checkStartAfterInput needs its own Executor: the failed Turn may retire it.
func checkStartAfterInput(rep *report, fx Fixture, f agent.ExecutorFactory) {
	ex := newExecutor(rep, f, fx)
	if ex == nil {
		return
	}
	fx.FailStartAfterInput()
	r := start(rep, fx, ex, "start-after-input", fx.Input)
	switch {
	case r.turn == nil:
		rep.errorf("failure after input returned a nil Turn")
	case r.startErr == nil:
		rep.errorf("failure after input returned no error")
	default:
		settle(rep, fx, r)
		checkStream(rep, r, false)
	}
	closeExecutor(rep, fx, ex)
}
