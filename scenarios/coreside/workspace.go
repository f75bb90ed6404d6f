package coreside

import (
	"context"
	"testing/synctest"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/scenarios"
	"github.com/turnstile-sim/turnstile/scenarios/coreapi"
)

// wsAnswer is a workspace call's answer, once the server gave it.
type wsAnswer struct {
	rep server.Reply
	err error
}

// workspace makes a workspace call through the server; the first creates
// the Session on the step's Environment. Core answers once the Runtime's
// work settled, so the call waits on its own goroutine and
// core-workspace reads its answer.
func (r *Runner) workspace(st scenarios.Step) {
	if r.session == "" {
		res, ok := r.call(func(c core.CallID) core.Event {
			return core.CreateSession{Call: c, Agent: coreapi.WorkspaceSession(st, "contract")}
		})
		if !ok {
			return
		}
		r.session = res.SessionID
	}
	ev, err := coreapi.Workspace(st, r.session)
	if err != nil {
		r.Failf("%v", err)
		return
	}
	done := make(chan wsAnswer, 1)
	r.ws, r.wsDone = done, nil
	go func() {
		rep, err := r.s.Call(context.Background(), server.Request{Event: ev})
		done <- wsAnswer{rep, err}
	}()
}

// coreWorkspace checks the answer of the latest workspace call
// (outcome=pending while there is none).
func (r *Runner) CoreWorkspace(args map[string]string) {
	if r.ws == nil && r.wsDone == nil {
		r.Failf("core-workspace: no workspace call was made")
		return
	}
	synctest.Wait()
	if r.ws != nil {
		select {
		case a := <-r.ws:
			r.wsDone, r.ws = &a, nil
		default:
		}
	}
	have := coreapi.Pending
	if a := r.wsDone; a != nil {
		switch {
		case a.err != nil:
			r.Failf("core-workspace: API call: %v", a.err)
			return
		case a.rep.Result.Err != nil:
			r.Failf("core-workspace: the call was refused: %v", a.rep.Result.Err)
			return
		case a.rep.Result.Workspace == nil:
			r.Failf("core-workspace: the answer carries no workspace result")
			return
		}
		have = coreapi.WorkspaceFields(a.rep.Result.Workspace)
	}
	_, errs := coreapi.CheckWorkspace(args, have)
	for _, err := range errs {
		r.Failf("%v", err)
	}
}
