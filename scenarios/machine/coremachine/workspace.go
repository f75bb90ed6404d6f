package coremachine

import (
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/scenarios"
	"github.com/turnstile-sim/turnstile/scenarios/coreapi"
)

// workspace makes a workspace call; the first creates the Session on the
// step's Environment. Its answer comes in a later step's effects (apply
// keeps it for core-workspace).
func (r *Runner) workspace(st scenarios.Step) {
	if r.session == "" {
		res := r.callAPI(core.CreateSession{Call: r.call(), Agent: coreapi.WorkspaceSession(st, DefaultKind)})
		if res == nil || res.Err != nil {
			return
		}
		r.session = res.SessionID
	}
	ev, err := coreapi.Workspace(st, r.session)
	if err != nil {
		r.Failf("%v", err)
		return
	}
	r.wsCall, r.wsResult = r.call(), nil
	r.step(ev(r.wsCall), false)
}

// coreWorkspace checks the answer of the latest workspace call.
func (r *Runner) CoreWorkspace(args map[string]string) {
	switch {
	case r.wsCall == "":
		r.Failf("core-workspace: no workspace call was made")
		return
	case r.wsResult == nil:
		line, errs := coreapi.CheckWorkspace(args, coreapi.Pending)
		for _, err := range errs {
			r.Failf("%v", err)
		}
		r.Note(line)
		return
	case r.wsResult.Err != nil:
		r.Failf("core-workspace: the call was refused: %v", r.wsResult.Err)
		return
	case r.wsResult.Workspace == nil:
		r.Failf("core-workspace: the answer carries no workspace result")
		return
	}
	line, errs := coreapi.CheckWorkspace(args, coreapi.WorkspaceFields(r.wsResult.Workspace))
	for _, err := range errs {
		r.Failf("%v", err)
	}
	r.Note(line)
}
