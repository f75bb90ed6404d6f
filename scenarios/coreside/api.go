package coreside

import (
	"context"
	"fmt"
	"testing/synctest"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/server"
)

// Call makes an API call through the server and lets Core's reaction
// reach the socket.
func (r *Runner) Call(ev func(core.CallID) core.Event) (*core.APIResult, error) {
	defer synctest.Wait()
	rep, err := r.s.Call(context.Background(), server.Request{Event: ev})
	if err != nil {
		return nil, fmt.Errorf("API call: %v", err)
	}
	return &rep.Result, nil
}

// Turn reads Core's view of a Turn through the server.
func (r *Runner) Turn(id string) (v core.TurnView, found bool, err error) {
	err = r.s.Query(context.Background(), func(view server.View) { v, found = view.Machine().Turn(id) })
	return v, found, err
}

// wsAnswer is a workspace call's answer, once the server gave it.
type wsAnswer struct {
	rep server.Reply
	err error
}

// StartWorkspace makes a workspace call through the server. Core
// answers once the Runtime's work settled, so the call waits on its own
// goroutine.
func (r *Runner) StartWorkspace(ev func(core.CallID) core.Event) {
	done := make(chan wsAnswer, 1)
	r.ws, r.wsDone = done, nil
	go func() {
		rep, err := r.s.Call(context.Background(), server.Request{Event: ev})
		done <- wsAnswer{rep, err}
	}()
	synctest.Wait()
}

// WorkspaceAnswer is the latest workspace call's answer, nil while the
// call waits.
func (r *Runner) WorkspaceAnswer() (*core.APIResult, bool, error) {
	if r.ws == nil && r.wsDone == nil {
		return nil, false, nil
	}
	synctest.Wait()
	if r.ws != nil {
		select {
		case a := <-r.ws:
			r.wsDone, r.ws = &a, nil
		default:
		}
	}
	switch a := r.wsDone; {
	case a == nil:
		return nil, true, nil
	case a.err != nil:
		return nil, true, a.err
	default:
		return &a.rep.Result, true, nil
	}
}
