package server_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
	"github.com/turnstile-sim/turnstile/core/gateway/scripted"
	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/wire"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// checked is a backend that records, at every Send, whether a write was
// still uncommitted: frames must never leave ahead of their state.
type checked struct {
	*server.Memory
	committed uint64
}

func (c *checked) Commit() error {
	if err := c.Memory.Commit(); err != nil {
		return err
	}
	c.committed = c.Writes()
	return nil
}

func (c *checked) clean() bool { return c.Writes() == c.committed }

// fakeConn plays a scripted Runtime behind a bounded queue.
type fakeConn struct {
	s      *server.Server
	back   *checked
	rt     *scripted.Runtime
	id     core.ConnID
	q      chan []byte
	mu     sync.Mutex
	sent   []wire.Frame
	closed int // close code, 0 while open
	dirty  int // frames sent while a write was uncommitted
	done   chan struct{}
}

func newFakeConn(s *server.Server, back *checked, rt *scripted.Runtime, queue int) *fakeConn {
	return &fakeConn{s: s, back: back, rt: rt, q: make(chan []byte, queue), done: make(chan struct{})}
}

func (c *fakeConn) Send(b []byte, _ time.Duration) bool {
	if !c.back.clean() {
		c.dirty++
	}
	f, err := wire.Decode(b)
	if err != nil {
		panic(err)
	}
	c.mu.Lock()
	c.sent = append(c.sent, f)
	closed := c.closed != 0
	c.mu.Unlock()
	if closed || cap(c.q) == 0 {
		return false
	}
	select {
	case c.q <- b:
		return true
	default:
		return false
	}
}

func (c *fakeConn) Close(code int, reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed == 0 {
		c.closed = code
		close(c.done)
	}
}

func (c *fakeConn) code() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// serve answers queued frames until the connection closes, then reports it.
func (c *fakeConn) serve(ctx context.Context) {
	defer c.s.Closed(c.id, "peer gone")
	if err := c.s.Received(ctx, c.id, c.rt.Heartbeat(0)); err != nil {
		return
	}
	for {
		select {
		case <-c.done:
			return
		case b := <-c.q:
			for _, out := range c.rt.Respond(b) {
				if c.s.Received(ctx, c.id, out) != nil {
					return
				}
			}
		}
	}
}

type env struct {
	t      *testing.T
	back   *checked
	s      *server.Server
	cancel context.CancelFunc
	ran    chan error
	fatal  chan error
}

func start(t *testing.T, back *checked) *env {
	t.Helper()
	e := &env{t: t, back: back, fatal: make(chan error, 1), ran: make(chan error, 1)}
	s, err := server.New(back, server.Options{Config: core.Config{Policy: enginetest.OpenPolicy("contract")}, Fatal: func(err error) { e.fatal <- err; runtime.Goexit() }})
	if err != nil {
		t.Fatal(err)
	}
	e.s = s
	ctx, cancel := context.WithCancel(context.Background())
	e.cancel = cancel
	go func() { e.ran <- s.Run(ctx) }()
	return e
}

func (e *env) stop() {
	e.t.Helper()
	e.cancel()
	if err := <-e.ran; err != nil {
		e.t.Errorf("Run: %v", err)
	}
}

func (e *env) connect(device string, rt *scripted.Runtime, queue int) *fakeConn {
	e.t.Helper()
	c := newFakeConn(e.s, e.back, rt, queue)
	err := e.s.Query(context.Background(), func(v server.View) {
		if _, ok, _ := v.Backend().Device(device); !ok {
			_ = v.Backend().AddDevice(device, [32]byte{}, time.Now())
		}
	})
	if err != nil {
		e.t.Fatal(err)
	}
	id, err := e.s.Open(context.Background(), device, c)
	if err != nil {
		e.t.Fatal(err)
	}
	c.id = id
	go c.serve(context.Background())
	return c
}

func (e *env) call(ev func(core.CallID) core.Event) core.APIResult {
	e.t.Helper()
	rep, err := e.s.Call(context.Background(), server.Request{Event: ev})
	if err != nil {
		e.t.Fatal(err)
	}
	return rep.Result
}

func (e *env) session() string {
	e.t.Helper()
	r := e.call(func(c core.CallID) core.Event {
		return core.CreateSession{Call: c, Agent: core.AgentConfig{Kind: scripted.Kind, Model: "m", Environment: core.EnvNone}}
	})
	if r.Err != nil {
		e.t.Fatal(r.Err)
	}
	return r.Value.(core.SessionCreated).Session
}

func (e *env) submit(sid, text string) string {
	e.t.Helper()
	r := e.call(func(c core.CallID) core.Event {
		return core.SubmitTurn{Call: c, Session: sid, Input: wire.TextInput(text)}
	})
	if r.Err != nil {
		e.t.Fatal(r.Err)
	}
	return r.Value.(core.TurnSubmitted).Turn
}

func (e *env) turn(id string) core.TurnView {
	e.t.Helper()
	r := e.call(func(c core.CallID) core.Event { return core.ReadTurn{Call: c, Turn: id} })
	if r.Err != nil {
		e.t.Fatal(r.Err)
	}
	return *r.Value.(*core.TurnView)
}

func TestTurnCompletesAndEveryFrameLeavesAfterItsCommit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, &checked{Memory: server.NewMemory()})
		c := e.connect("d1", &scripted.Runtime{Deltas: 3}, 64)
		synctest.Wait()
		sid := e.session()
		tid := e.submit(sid, "hello")
		synctest.Wait()
		v := e.turn(tid)
		if v.State != core.TurnCompleted || v.Content != "echo: hello" || v.Events != 4 {
			t.Fatalf("turn = %+v", v)
		}
		if c.dirty != 0 {
			t.Fatalf("%d frames left before their state was committed", c.dirty)
		}
		if len(c.sent) != 2 { // execution_prepare, execution_start
			t.Fatalf("sent %d frames", len(c.sent))
		}
		e.stop()
		if c.code() != server.CloseGoingAway {
			t.Fatalf("shutdown close code %d", c.code())
		}
	})
}

func TestIdleConnectionClosedAfterSixtySeconds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, &checked{Memory: server.NewMemory()})
		c := e.connect("d1", &scripted.Runtime{}, 64)
		synctest.Wait()
		time.Sleep(59 * time.Second)
		synctest.Wait()
		if c.code() != 0 {
			t.Fatalf("closed after 59 s: %d", c.code())
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if c.code() != server.ClosePolicy {
			t.Fatalf("not closed at 60 s: %d", c.code())
		}
		e.stop()
	})
}

func TestOverflowClosesOnlyThatConnection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, &checked{Memory: server.NewMemory()})
		// Device selection breaks ties by ID: a-slow is picked first.
		slow := e.connect("a-slow", &scripted.Runtime{}, 0) // no queue room at all
		fast := e.connect("b-fast", &scripted.Runtime{}, 64)
		synctest.Wait()
		sids := []string{e.session(), e.session()}
		// The first Turn's execution_prepare overflows a-slow; the Turn
		// stays unclaimed and is prepared again on b-fast.
		t1, t2 := e.submit(sids[0], "a"), e.submit(sids[1], "b")
		synctest.Wait()
		if slow.code() != server.CloseTryAgain {
			t.Fatalf("slow conn close code %d", slow.code())
		}
		if fast.code() != 0 {
			t.Fatalf("fast conn closed: %d", fast.code())
		}
		for _, id := range []string{t1, t2} {
			if v := e.turn(id); v.State != core.TurnCompleted {
				t.Fatalf("turn %s = %s %s", id, v.State, v.ErrorCode)
			}
		}
		e.stop()
	})
}

func TestRevokedDeviceClosedWith4001(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, &checked{Memory: server.NewMemory()})
		c := e.connect("d1", &scripted.Runtime{}, 64)
		synctest.Wait()
		err := e.s.Query(context.Background(), func(v server.View) {
			if err := v.Backend().RevokeDevice("d1", time.Now()); err != nil {
				t.Error(err)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Second) // the revocation poll
		synctest.Wait()
		if c.code() != server.CloseRetired {
			t.Fatalf("close code %d, want 4001", c.code())
		}
		e.stop()
	})
}

func TestIdempotentCallAnswersOnceAndCreatesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		back := &checked{Memory: server.NewMemory()}
		e := start(t, back)
		req := server.Request{
			Event: func(c core.CallID) core.Event {
				return core.CreateSession{Call: c, Agent: core.AgentConfig{Kind: scripted.Kind, Model: "m", Environment: core.EnvNone}}
			},
			IdempotencyKey: "k1",
			Answer:         func(r core.APIResult) []byte { return []byte(r.Value.(core.SessionCreated).Session) },
		}
		first, err := e.s.Call(context.Background(), req)
		if err != nil || first.Replayed || string(first.Stored) != "s-1" {
			t.Fatalf("first = %+v, %v", first, err)
		}
		again, err := e.s.Call(context.Background(), req)
		if err != nil || !again.Replayed || string(again.Stored) != "s-1" {
			t.Fatalf("again = %+v, %v", again, err)
		}
		if n := len(back.Sessions()); n != 1 {
			t.Fatalf("%d sessions", n)
		}
		e.stop()
	})
}

func TestCommitFailureStopsTheLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		back := &checked{Memory: server.NewMemory()}
		e := start(t, back)
		back.FailCommit = errors.New("disk full")
		_, err := e.s.Call(context.Background(), server.Request{Event: func(c core.CallID) core.Event {
			return core.CreateSession{Call: c, Agent: core.AgentConfig{Kind: scripted.Kind, Model: "m", Environment: core.EnvNone}}
		}})
		if !errors.Is(err, server.ErrStopped) {
			t.Fatalf("call after a failed commit: %v", err)
		}
		if err := <-e.fatal; err == nil || err.Error() != "disk full" {
			t.Fatalf("fatal = %v", err)
		}
		<-e.s.Done()
		e.cancel()
	})
}
