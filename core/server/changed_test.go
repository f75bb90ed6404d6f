package server_test

import (
	"context"
	"slices"
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

// Watch calls its function once after registration, then after each
// commit that stepped the machine (seeing what was committed), never for a
// query, and no more once it returned false or its context ended.
func TestWatchFollowsCommittedSteps(t *testing.T) {
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
		create := func() {
			t.Helper()
			rep, err := s.Call(ctx, server.Request{Event: func(c core.CallID) core.Event {
				return core.CreateSession{Call: c, Agent: core.AgentConfig{Kind: "contract", Model: "m", Environment: core.EnvNone}}
			}})
			if err != nil || rep.Result.Err != nil {
				t.Fatal(err, rep.Result.Err)
			}
		}
		var seen []int // sessions the watch saw, one entry per call
		var stopAt []int
		wctx, stopWatch := context.WithCancel(ctx)
		if err := s.Watch(wctx, func(v server.View) bool {
			seen = append(seen, len(v.Backend().Sessions()))
			return true
		}); err != nil {
			t.Fatal(err)
		}
		if err := s.Watch(ctx, func(v server.View) bool {
			stopAt = append(stopAt, len(v.Backend().Sessions()))
			return len(stopAt) < 2 // false on its second call: no third
		}); err != nil {
			t.Fatal(err)
		}
		_ = s.Query(ctx, func(server.View) {})
		create()
		create()
		stopWatch()
		create()
		_ = s.Query(ctx, func(server.View) {}) // a round trip after the last commit
		if want := []int{0, 1, 2}; !slices.Equal(seen, want) {
			t.Fatalf("the watch saw %v, want %v", seen, want)
		}
		if want := []int{0, 1}; !slices.Equal(stopAt, want) {
			t.Fatalf("the stopping watch saw %v, want %v", stopAt, want)
		}
		cancel()
		<-ran
		ran <- nil
		if err := s.Watch(context.Background(), func(server.View) bool { return true }); err != server.ErrStopped {
			t.Fatalf("watch after the loop stopped: %v", err)
		}
	})
}
