package api

import (
	"context"
	"testing"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/wire"
)

// activeTurn finds the Turn readSession's active() finds, for a Session
// without Turns, with an unfinished one, with only finished ones, and
// for an unknown Session.
func TestActiveTurnIsReadSessionActive(t *testing.T) {
	s, err := server.New(server.NewMemory(), server.Options{Config: core.Config{Policy: enginetest.OpenPolicy("contract")}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- s.Run(ctx) }()
	defer func() { cancel(); <-ran }()
	a, err := New(s, Options{OperatorToken: "operator-token"})
	if err != nil {
		t.Fatal(err)
	}
	call := func(ev func(core.CallID) core.Event) core.APIResult {
		t.Helper()
		rep, err := s.Call(ctx, server.Request{Event: ev})
		if err != nil || rep.Result.Err != nil {
			t.Fatal(err, rep.Result.Err)
		}
		return rep.Result
	}
	sid := call(func(c core.CallID) core.Event {
		return core.CreateSession{Call: c, Agent: core.AgentConfig{Kind: "contract", Model: "m", Environment: core.EnvNone}}
	}).Value.(core.SessionCreated).Session
	check := func(sid, wantTurn string, wantBusy, wantOK bool) {
		t.Helper()
		if err := s.Query(ctx, func(v server.View) {
			tid, busy, ok := a.activeTurn(v, sid)
			st, found := a.readSession(v, sid, turnsOpen)
			act, isActive := st.active()
			if ok != found || busy != isActive || (busy && tid != act.ID) {
				t.Errorf("activeTurn %q %v %v, readSession active %q %v found %v", tid, busy, ok, act.ID, isActive, found)
			}
			if tid != wantTurn || busy != wantBusy || ok != wantOK {
				t.Errorf("activeTurn %q %v %v, want %q %v %v", tid, busy, ok, wantTurn, wantBusy, wantOK)
			}
		}); err != nil {
			t.Fatal(err)
		}
	}
	check(sid, "", false, true)
	check("s_unknown", "", false, false)
	tid := call(func(c core.CallID) core.Event {
		return core.SubmitTurn{Call: c, Session: sid, Input: wire.TextInput("hi")}
	}).Value.(core.TurnSubmitted).Turn
	check(sid, tid, true, true)
	call(func(c core.CallID) core.Event { return core.CancelTurn{Call: c, Turn: tid} })
	check(sid, "", false, true)
}
