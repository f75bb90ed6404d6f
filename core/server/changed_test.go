package server_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
	"github.com/turnstile-sim/turnstile/core/server"
)

// Changed is closed by the commit of a batch that stepped the machine,
// and only by such a batch: a query changes nothing and wakes no one.
func TestChangedClosesAfterACommittedStep(t *testing.T) {
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
		ch := s.Changed()
		if err := s.Query(ctx, func(server.View) {}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		select {
		case <-ch:
			t.Fatal("a query closed Changed")
		default:
		}
		var committed uint64
		rep, err := s.Call(ctx, server.Request{Event: func(c core.CallID) core.Event {
			return core.CreateSession{Call: c, Agent: core.AgentConfig{Kind: "contract", Model: "m", Environment: core.EnvNone}}
		}})
		if err != nil || rep.Result.Err != nil {
			t.Fatal(err, rep.Result.Err)
		}
		select {
		case <-ch:
		default:
			t.Fatal("a committed step left Changed open")
		}
		_ = s.Query(ctx, func(v server.View) { committed = uint64(len(v.Backend().Sessions())) })
		if committed != 1 {
			t.Fatalf("%d sessions after the change", committed)
		}
		if next := s.Changed(); next == ch {
			t.Fatal("Changed returned the closed channel again")
		}
	})
}
