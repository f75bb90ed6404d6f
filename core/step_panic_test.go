package core

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
	m := runningMachine(t)
	m.turns["t-1"].rec.InputCursor = 1 // an input below the cursor that was never accepted
	sp := stepPanic(t, func() { m.Step(now0, ReadTurn{Call: "r", Turn: "t-1"}) })
	if !sp.Completed {
		t.Fatalf("an end-of-step invariant failure is reported as a panic inside the step: %v", sp)
	}
	if !strings.Contains(sp.String(), "below cursor") {
		t.Fatalf("panic %q does not name the invariant", sp)
	}
	if len(sp.Effects) == 0 {
		t.Fatalf("the read's answer is lost from the panic's effects")
	}
	// The machine holds the whole step: stepping it again fails the same way.
	again := stepPanic(t, func() { m.Step(now0, ReadTurn{Call: "r2", Turn: "t-1"}) })
	if !again.Completed || again.String() != sp.String() {
		t.Fatalf("second step: %v (completed %v); want %v again", again, again.Completed, sp)
	}
}

func TestAnAssertionInsideTheStepIsNotACompletedStepPanic(t *testing.T) {
	m := New(Config{}, newMemStore())
	m.timers["weird:x"] = now0
	sp := stepPanic(t, func() { m.Step(now0, TimerFired{Timer: "weird:x"}) })
	if sp.Completed || !strings.Contains(sp.String(), "unknown kind") {
		t.Fatalf("panic %v completed=%v; want the unknown-timer assertion, not completed", sp, sp.Completed)
	}
}

func TestTimeGoingBackwardsIsNotACompletedStepPanic(t *testing.T) {
	m := New(Config{}, newMemStore())
	m.Step(now0, ReadTurn{Call: "r", Turn: "t-1"})
	sp := stepPanic(t, func() { m.Step(now0.Add(-1), ReadTurn{Call: "r2", Turn: "t-1"}) })
	if sp.Completed || !strings.Contains(sp.String(), "time went backwards") {
		t.Fatalf("panic %v completed=%v; want the clock assertion, not completed", sp, sp.Completed)
	}
}
