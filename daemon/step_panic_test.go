package daemon

import (
	"strings"
	"testing"
)

// stepPanic runs f and returns the StepPanic it panics with.
func stepPanic(t *testing.T, f func()) (sp StepPanic) {
	t.Helper()
	defer func() {
		r := recover()
		p, ok := r.(StepPanic)
		if !ok {
			t.Fatalf("panic %v (%T); want a StepPanic", r, r)
		}
		sp = p
	}()
	f()
	t.Fatal("no panic")
	return sp
}

func TestAnInvariantFailureAfterTheStepIsACompletedStepPanic(t *testing.T) {
	r := newRig(t)
	r.m.cfg.Limits.ActiveMax = -1 // no count can satisfy it
	sp := stepPanic(t, func() { r.m.Step(t0, WallClockStep{}) })
	if !sp.Completed || !strings.Contains(sp.String(), "exceeds -1") {
		t.Fatalf("panic %v completed=%v; want the active-count invariant, completed", sp, sp.Completed)
	}
	again := stepPanic(t, func() { r.m.Step(t0, WallClockStep{}) })
	if !again.Completed || again.String() != sp.String() {
		t.Fatalf("second step: %v (completed %v); want %v again", again, again.Completed, sp)
	}
}

func TestAnAssertionInsideTheStepIsNotACompletedStepPanic(t *testing.T) {
	r := newRig(t)
	sp := stepPanic(t, func() { r.m.Step(t0.Add(-1), ConnOpened{Conn: 9}) })
	if sp.Completed || !strings.Contains(sp.String(), "backwards") {
		t.Fatalf("panic %v completed=%v; want the clock assertion, not completed", sp, sp.Completed)
	}
}
