package daemon

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
	r := newRig(t)
	r.m.cfg.Limits.ActiveMax = -1 // no count can satisfy it
	sp := stepPanic(t, func() { r.m.Step(t0, WallClockStep{}) })
	require.Truef(t, sp.Completed, "panic %v completed=%v; want the active-count invariant, completed", sp, sp.Completed)
	require.Containsf(t, sp.String(), "exceeds -1", "panic %v completed=%v; want the active-count invariant, completed", sp, sp.Completed)
	again := stepPanic(t, func() { r.m.Step(t0, WallClockStep{}) })
	require.Truef(t, again.Completed, "second step: %v (completed %v); want %v again", again, again.Completed, sp)
	require.Truef(t, again.String() == sp.String(), "second step: %v (completed %v); want %v again", again, again.Completed, sp)
}

func TestAnAssertionInsideTheStepIsNotACompletedStepPanic(t *testing.T) {
	r := newRig(t)
	sp := stepPanic(t, func() { r.m.Step(t0.Add(-1), ConnOpened{Conn: 9}) })
	require.Falsef(t, sp.Completed, "panic %v completed=%v; want the clock assertion, not completed", sp, sp.Completed)
	require.Containsf(t, sp.String(), "backwards", "panic %v completed=%v; want the clock assertion, not completed", sp, sp.Completed)
}
