package core

import "fmt"

// StepPanic is the value Step panics with when one of the machine's
// assertions fails during a step: Value is the assertion's own panic, and
// Effects are the effects the step had produced before it, in order. A
// real shell must not act on a broken machine and only reports the panic;
// the simulator applies the effects first, so that its checkers, which
// judge frames and native calls, can name the rule the machine was about
// to break.
//
// Completed is set when the step itself ran to its end and only the
// invariant check that closes every step failed: the machine then holds
// the step's whole result, so a simulator may go on stepping it (each
// later step panics the same way while the state stays broken) and let
// its checkers judge what the machine does next. A panic inside the step
// leaves a half-applied state, which nobody may step again.
type StepPanic struct {
	Value     any
	Effects   []Effect
	Completed bool
}

func (p StepPanic) String() string { return fmt.Sprint(p.Value) }

// wrapStepPanic turns a panic of the current step into a StepPanic (a
// deferred call of Step).
func (m *Machine) wrapStepPanic() {
	p := recover()
	if p == nil {
		return
	}
	if _, ok := p.(StepPanic); ok {
		panic(p)
	}
	out := m.out
	m.out = nil
	sp := StepPanic{Value: p, Effects: out}
	if e, ok := p.(invariantFailed); ok {
		sp.Value, sp.Completed = e.value, true
	}
	panic(sp)
}

// invariantFailed carries a panic of the invariant check that ends every
// step, so that wrapStepPanic can tell it from an assertion inside the
// step.
type invariantFailed struct{ value any }

// checkInvariantsAfterStep runs checkInvariants, marking its panic.
func (m *Machine) checkInvariantsAfterStep() {
	defer func() {
		if p := recover(); p != nil {
			panic(invariantFailed{p})
		}
	}()
	m.checkInvariants()
}
