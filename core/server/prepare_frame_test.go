package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"runtime"
	"testing"
	"testing/synctest"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
	"github.com/turnstile-sim/turnstile/core/gateway/scripted"
	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/wire"
)

func startWith(t *testing.T, back *checked, prepare func(wire.Frame) (wire.Frame, error)) *env {
	t.Helper()
	e := &env{t: t, back: back, fatal: make(chan error, 1), ran: make(chan error, 1)}
	s, err := server.New(back, server.Options{Config: core.Config{Policy: enginetest.OpenPolicy("contract")},
		Fatal: func(err error) { e.fatal <- err; runtime.Goexit() }, PrepareFrame: prepare})
	if err != nil {
		t.Fatal(err)
	}
	e.s = s
	ctx, cancel := context.WithCancel(context.Background())
	e.cancel = cancel
	go func() { e.ran <- s.Run(ctx) }()
	return e
}

// TestPrepareFrameRewritesOnlyTheWire: the frame PrepareFrame returns is
// what the Runtime receives, while the machine's state keeps its own
// values (a secret substituted there never reaches the store).
func TestPrepareFrameRewritesOnlyTheWire(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		prepare := func(f wire.Frame) (wire.Frame, error) {
			if p, ok := f.Payload.(wire.ExecutionPrepare); ok {
				opts := maps.Clone(p.Configuration.AgentOptions)
				opts[wire.AgentOptionModel] = json.RawMessage(`"substituted"`)
				p.Configuration.AgentOptions = opts
				f.Payload = p
			}
			return f, nil
		}
		e := startWith(t, &checked{Memory: server.NewMemory()}, prepare)
		c := e.connect("d1", &scripted.Runtime{}, 64)
		synctest.Wait()
		sid := e.session()
		tid := e.submit(sid, "hello")
		synctest.Wait()
		if v := e.turn(tid); v.State != core.TurnCompleted {
			t.Fatalf("turn %+v", v)
		}
		c.mu.Lock()
		p, ok := c.sent[0].Payload.(wire.ExecutionPrepare)
		c.mu.Unlock()
		if !ok || string(p.Configuration.AgentOptions[wire.AgentOptionModel]) != `"substituted"` {
			t.Fatalf("the Runtime got %+v", c.sent[0].Payload)
		}
		var rec core.SessionRecord
		_ = e.s.Query(context.Background(), func(v server.View) { rec, _ = v.Backend().Session(sid) })
		if rec.Agent.Model != "m" {
			t.Fatalf("the stored Session changed: model %q", rec.Agent.Model)
		}
		e.stop()
	})
}

// TestPrepareFrameErrorClosesTheConnection: a frame that cannot be
// prepared is never sent; the connection closes as for a frame that does
// not encode, and the Turn does not complete.
func TestPrepareFrameErrorClosesTheConnection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		prepare := func(f wire.Frame) (wire.Frame, error) {
			if _, ok := f.Payload.(wire.ExecutionPrepare); ok {
				return f, errors.New("credential cred_1 does not open")
			}
			return f, nil
		}
		e := startWith(t, &checked{Memory: server.NewMemory()}, prepare)
		c := e.connect("d1", &scripted.Runtime{}, 64)
		synctest.Wait()
		tid := e.submit(e.session(), "hello")
		synctest.Wait()
		if c.code() != server.CloseTryAgain {
			t.Fatalf("close code %d", c.code())
		}
		c.mu.Lock()
		for _, f := range c.sent {
			if _, ok := f.Payload.(wire.ExecutionPrepare); ok {
				t.Fatal("an unprepared frame was sent")
			}
		}
		c.mu.Unlock()
		if v := e.turn(tid); v.State == core.TurnCompleted {
			t.Fatalf("turn %+v completed without its prepare", v)
		}
		e.stop()
	})
}
