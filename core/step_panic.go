package core

import "fmt"

// StepPanic is the value Step panics with when one of the machine's
// assertions fails during a step: Value is the assertion's own panic, and
// Effects are the effects the step had produced before it, in order. A
// real shell must not act on a broken machine and only reports the panic;
// the simulator applies the effects first, so that its checkers, which
// judge frames and native calls, can name the rule the machine was about
// to break.
type StepPanic struct {
	Value   any
	Effects []Effect
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
	panic(StepPanic{Value: p, Effects: out})
}
