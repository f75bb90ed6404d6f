package contracttest

import (
	"context"
	"errors"
	"reflect"
	"strings"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// lateMarker is the content of the native callback Fixture.LateEvent arms.
const lateMarker = "contract-late-callback-7c2a"

// CheckLifecycle checks two natural Turns on one Executor and two held
// ones: every Turn is a new object with its own stream and Run ID; the
// native owner and its history stay the same across Turns; a stale Cancel
// of a settled Turn does not touch its successor; a late native callback
// of a settled Turn never reaches the next one (Fixture.LateEvent); a new
// Turn starts with fresh observation and input state.
func CheckLifecycle(f agent.ExecutorFactory, fx Fixture) *Report {
	fx = fx.withDefaults()
	rep := newReport()
	ex := newExecutor(rep, f, fx)
	if ex == nil {
		return rep
	}
	defer func() {
		if closeExecutor(rep, fx, ex) {
			closeExecutor(rep, fx, ex)
		}
	}()
	if fx.LateEvent != nil {
		fx.LateEvent(lateMarker)
	}
	first := start(rep, fx, ex, "lifecycle-1", fx.Input)
	if !first.started() {
		rep.fail(ClauseIndependentStreams, first.runID, "text Turn did not start: %v", first.startErr)
		return rep
	}
	s, ok := settle(rep, fx, first)
	done1, _ := checkStream(rep, first, true)
	outcome1 := first.turn.CancellationOutcome()
	if !ok || !s.Reusable {
		return rep
	}
	second := start(rep, fx, ex, "lifecycle-2", fx.Input)
	rep.exercise(ClauseStaleCancel)
	cancelTurn(rep, fx, first) // stale: targets the settled Turn only
	if !second.started() {
		rep.fail(ClauseContinueAfterCancel, second.runID, "reusable Executor refused the next Turn: %v", second.startErr)
		return rep
	}
	if sameObject(first.turn, second.turn) {
		rep.fail(ClauseIndependentStreams, second.runID, "StartTurn returned the Turn object of lifecycle-1: every Turn must be a new object")
	}
	s2, ok := settle(rep, fx, second)
	done2, _ := checkStream(rep, second, true)
	outcome2 := second.turn.CancellationOutcome()
	if outcome1.Completed && !outcome2.Completed {
		rep.fail(ClauseStaleCancel, second.runID, "stale Cancel of the settled lifecycle-1 stopped its successor")
	}
	checkContinuity(rep, first, second, done1, done2, outcome1, outcome2)
	if fx.LateEvent != nil {
		rep.exercise(ClauseLateEvents)
		if second.contains(lateMarker) || strings.Contains(outcome2.Content, lateMarker) {
			rep.fail(ClauseLateEvents, second.runID, "a native callback of the settled lifecycle-1 was delivered on this Turn")
		}
	}
	if ok && s2.Reusable && fx.Hold != nil {
		checkFreshState(rep, fx, ex, outcome2)
	}
	return rep
}

// nativeIdentity is the native session a Turn reported: done's metadata,
// else its snapshot.
func nativeIdentity(d wire.Done, o agent.CancellationOutcome) string {
	if d.Metadata != nil && d.Metadata.AgentSessionID != "" {
		return d.Metadata.AgentSessionID
	}
	return o.NativeSessionID
}

func checkContinuity(rep *Report, first, second *run, d1, d2 wire.Done, o1, o2 agent.CancellationOutcome) {
	id1, id2 := nativeIdentity(d1, o1), nativeIdentity(d2, o2)
	if id1 == "" {
		return // nothing observed: nothing to keep
	}
	rep.exercise(ClauseOwnerContinuity)
	if id2 != id1 {
		rep.fail(ClauseOwnerContinuity, second.runID,
			"second Turn on one Executor reports native session %q, %s reported %q: the native owner or its history was replaced",
			id2, first.runID, id1)
	}
}

// checkFreshState runs two held Turns: the first must not start with the
// previous Turn's observations, and an input ID it used must be new to
// the next one (no conflict, no shared receipt).
func checkFreshState(rep *Report, fx Fixture, ex agent.Executor, prev agent.CancellationOutcome) {
	fx.Hold()
	a := start(rep, fx, ex, "lifecycle-3", fx.Input)
	if !a.started() {
		rep.fail(ClauseContinueAfterCancel, a.runID, "held Turn did not start: %v", a.startErr)
		return
	}
	rep.exercise(ClauseFreshTurnState)
	o := a.turn.CancellationOutcome()
	if o.Usage != nil && prev.Usage != nil && reflect.DeepEqual(*o.Usage, *prev.Usage) {
		rep.fail(ClauseFreshTurnState, a.runID, "a new Turn's snapshot carries the previous Turn's usage")
	}
	if o.Completed {
		rep.fail(ClauseFreshTurnState, a.runID, "a new, running Turn's snapshot says completed")
	}
	ra, errA := steer(fx, a, "fresh-input", "first text")
	cancelTurn(rep, fx, a)
	settle(rep, fx, a)
	checkStream(rep, a, false)
	// The snapshot may already hold this Turn's own deltas, which equal the
	// previous Turn's when both echo one input: only content this Turn did
	// not stream is carried over.
	if prev.Content != "" && strings.HasPrefix(o.Content, prev.Content) && !strings.HasPrefix(a.deltaText(), o.Content) {
		rep.fail(ClauseFreshTurnState, a.runID, "a new Turn's snapshot starts with the previous Turn's output")
	}
	fx.Hold()
	b := start(rep, fx, ex, "lifecycle-4", fx.Input)
	if !b.started() {
		rep.fail(ClauseContinueAfterCancel, b.runID, "reusable Executor refused a Turn after a cancel: %v", b.startErr)
		return
	}
	rb, errB := steer(fx, b, "fresh-input", "second text")
	switch {
	case errors.Is(errB, agent.ErrInputConflict):
		rep.fail(ClauseFreshTurnState, b.runID, "an input ID of the previous Turn conflicts on a new Turn: input state was not reset")
	case errA == nil && errB == nil && ra != nil && rb != nil && sameReceipt(ra, rb):
		rep.fail(ClauseFreshTurnState, b.runID, "a new Turn returned the previous Turn's receipt for an input ID")
	}
	cancelTurn(rep, fx, b)
	settle(rep, fx, b)
	checkStream(rep, b, false)
}

func steer(fx Fixture, r *run, id, text string) (agent.AppliedReceipt, error) {
	ctx, cancel := context.WithTimeout(context.Background(), fx.Timeout)
	defer cancel()
	return r.turn.SteerDurable(ctx, agent.SteerInput{InputID: id, Input: wire.TextInput(text)})
}

func sameReceipt(a, b agent.AppliedReceipt) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a == b
}

// CheckStartRule checks the nil-Turn rule on every start failure the
// contract and the fixture can produce: invalid input, image input on a
// text-only kind, a busy Executor, scripted failures before and after
// input, and a closed Executor. A nil Turn must leave the caller's output
// untouched; a Turn returned with an error must close its output exactly
// once and settle.
func CheckStartRule(f agent.ExecutorFactory, fx Fixture) *Report {
	fx = fx.withDefaults()
	rep := newReport()
	ex := newExecutor(rep, f, fx)
	if ex == nil {
		return rep
	}
	expectNil := func(r *run, what string, want error) {
		if r.turn != nil {
			rep.fail(ClauseNilTurn, r.runID, "%s: returned a Turn", what)
			settle(rep, fx, r)
			return
		}
		if want != nil && !errors.Is(r.startErr, want) {
			rep.fail(ClauseNilTurn, r.runID, "%s: error %v does not wrap %v", what, r.startErr, want)
		}
	}
	expectNil(start(rep, fx, ex, "start-invalid", wire.MessageInput{}), "invalid input", agent.ErrInvalidRequest)
	if !fx.Capabilities.MessageImages.IsSupported() {
		img := wire.MessageInput{{Content: []wire.InputContent{wire.TextPart("look"), wire.ImagePart("data:image/png;base64,AAAA")}}}
		r := start(rep, fx, ex, "start-image", img)
		expectNil(r, "image input on a text-only kind", nil)
		if r.turn == nil && !errors.Is(r.startErr, agent.ErrUnsupportedOperation) && !errors.Is(r.startErr, wire.ErrImageUnsupported) {
			rep.fail(ClauseNilTurn, r.runID, "image input refused with %v, not an unsupported-input error", r.startErr)
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
	return rep
}

// checkStartAfterInput needs its own Executor: the failed Turn may retire it.
func checkStartAfterInput(rep *Report, fx Fixture, f agent.ExecutorFactory) {
	ex := newExecutor(rep, f, fx)
	if ex == nil {
		return
	}
	fx.FailStartAfterInput()
	r := start(rep, fx, ex, "start-after-input", fx.Input)
	rep.exercise(ClauseNilTurn)
	switch {
	case r.turn == nil:
		rep.fail(ClauseNilTurn, r.runID, "failure after input returned a nil Turn: a Turn that may hold input must be returned and tracked")
	case r.startErr == nil:
		rep.fail(ClauseNilTurn, r.runID, "failure after input returned no error")
	default:
		settle(rep, fx, r)
		checkStream(rep, r, false)
	}
	closeExecutor(rep, fx, ex)
}
