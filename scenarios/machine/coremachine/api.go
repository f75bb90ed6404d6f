package coremachine

import (
	"fmt"

	"github.com/turnstile-sim/turnstile/core"
)

// Call steps an API event, prints it and returns its result.
func (r *Runner) Call(ev func(core.CallID) core.Event) (*core.APIResult, error) {
	e := ev(r.call())
	effects := r.m.Step(r.now, e)
	r.Note("> " + e.Describe())
	var res *core.APIResult
	for _, f := range effects {
		r.apply(f, false)
		if v, ok := f.(core.APIResult); ok {
			res = &v
		}
	}
	if res == nil {
		return nil, fmt.Errorf("no API result for %s", e.Describe())
	}
	return res, nil
}

// Turn reads the machine's view of a Turn.
func (r *Runner) Turn(id string) (core.TurnView, bool, error) {
	v, found := r.m.Turn(id)
	return v, found, nil
}

// StartWorkspace steps a workspace call; its answer comes in a later
// step's effects (apply keeps it).
func (r *Runner) StartWorkspace(ev func(core.CallID) core.Event) {
	r.wsCall, r.wsResult = r.call(), nil
	r.step(ev(r.wsCall), false)
}

// WorkspaceAnswer is the latest workspace call's answer, nil until Core
// gave it.
func (r *Runner) WorkspaceAnswer() (*core.APIResult, bool, error) {
	return r.wsResult, r.wsCall != "", nil
}
