package core

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// stepPanic runs f and returns the StepPanic it panics with.
func stepPanic(t *testing.T, f func()) (sp StepPanic) {
	t.Helper()
	defer func() {
		r := recover()
		p, ok := r.(StepPanic)
		require.Truef(t, ok, "panic %v (%T); want a StepPanic", r, r)
		sp = p
	}()
	f()
	require.Fail(t, "no panic")
	return sp
}

func TestAnInvariantFailureAfterTheStepIsACompletedStepPanic(t *testing.T) {
	m := runningMachine(t)
	m.turns["t-1"].rec.InputCursor = 1 // an input below the cursor that was never accepted
	sp := stepPanic(t, func() { m.Step(now0, ReadTurn{Call: "r", Turn: "t-1"}) })
	require.Truef(t, sp.Completed, "an end-of-step invariant failure is reported as a panic inside the step: %v", sp)
	require.Containsf(t, sp.String(), "below cursor", "panic %q does not name the invariant", sp)
	require.NotEmptyf(t, sp.Effects, "the read's answer is lost from the panic's effects")
	// The machine holds the whole step: stepping it again fails the same way.
	again := stepPanic(t, func() { m.Step(now0, ReadTurn{Call: "r2", Turn: "t-1"}) })
	require.Truef(t, again.Completed, "second step: %v (completed %v); want %v again", again, again.Completed, sp)
	require.Truef(t, again.String() == sp.String(), "second step: %v (completed %v); want %v again", again, again.Completed, sp)
}

func TestAnAssertionInsideTheStepIsNotACompletedStepPanic(t *testing.T) {
	m := New(Config{}, newMemStore())
	m.timers["weird:x"] = now0
	sp := stepPanic(t, func() { m.Step(now0, TimerFired{Timer: "weird:x"}) })
	require.Falsef(t, sp.Completed, "panic %v completed=%v; want the unknown-timer assertion, not completed", sp, sp.Completed)
	require.Containsf(t, sp.String(), "unknown kind", "panic %v completed=%v; want the unknown-timer assertion, not completed", sp, sp.Completed)
}

func TestTimeGoingBackwardsIsNotACompletedStepPanic(t *testing.T) {
	m := New(Config{}, newMemStore())
	m.Step(now0, ReadTurn{Call: "r", Turn: "t-1"})
	sp := stepPanic(t, func() { m.Step(now0.Add(-1), ReadTurn{Call: "r2", Turn: "t-1"}) })
	require.Falsef(t, sp.Completed, "panic %v completed=%v; want the clock assertion, not completed", sp, sp.Completed)
	require.Containsf(t, sp.String(), "time went backwards", "panic %v completed=%v; want the clock assertion, not completed", sp, sp.Completed)
}
