package server_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
	"github.com/turnstile-sim/turnstile/core/server"
)

// EventAt builds the call's event on the loop from the committed state;
// a nil event runs nothing, writes nothing and answers Skipped.
func TestCallEventAtDecidesOnTheLoopAndSkipsNil(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		back := server.NewMemory()
		s, err := server.New(back, server.Options{Config: core.Config{Policy: enginetest.OpenPolicy("contract")}})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		ran := make(chan error, 1)
		go func() { ran <- s.Run(ctx) }()
		defer func() { cancel(); <-ran }()
		create := func(v server.View, c core.CallID) core.Event {
			if len(v.Backend().Sessions()) >= 1 {
				return nil // one Session at most
			}
			return core.CreateSession{Call: c, Agent: core.AgentConfig{Kind: "contract", Model: "m", Environment: core.EnvNone}}
		}
		rep, err := s.Call(ctx, server.Request{EventAt: create})
		if err != nil || rep.Result.Err != nil || rep.Skipped || rep.Result.Value.(core.SessionCreated).Session == "" {
			t.Fatalf("first call: %+v %v", rep, err)
		}
		var writes uint64
		_ = s.Query(ctx, func(server.View) { writes = back.Writes() })
		rep, err = s.Call(ctx, server.Request{EventAt: create, IdempotencyKey: "k", Answer: func(core.APIResult) []byte { return []byte("x") }})
		if err != nil || !rep.Skipped || rep.Replayed || rep.Result.Value != nil || rep.Stored != nil {
			t.Fatalf("second call: %+v %v", rep, err)
		}
		var after, sessions uint64
		_ = s.Query(ctx, func(v server.View) { after, sessions = back.Writes(), uint64(len(v.Backend().Sessions())) })
		if after != writes || sessions != 1 {
			t.Fatalf("a skipped call wrote %d records; %d sessions", after-writes, sessions)
		}
	})
}
