package server_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
	"github.com/turnstile-sim/turnstile/core/gateway/scripted"
	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/core/store/pgstore"
	"github.com/turnstile-sim/turnstile/core/store/pgstore/pgtest"
	"github.com/turnstile-sim/turnstile/core/store/sqlitestore"
	"github.com/turnstile-sim/turnstile/wire"
)

// durableStore is a store with group commit and idempotency answers: the
// SQLite and PostgreSQL stores.
type durableStore interface {
	server.Durable
	server.EventLog
	server.Idempotency
	Close() error
}

// storeBackend is a server.Backend over a durable store, with devices in
// memory (they are not what the benchmark measures).
type storeBackend struct {
	durableStore
	devices *server.Memory
}

func (b storeBackend) AddDevice(id string, hash [32]byte, at time.Time) error {
	return b.devices.AddDevice(id, hash, at)
}
func (b storeBackend) Device(id string) (server.Device, bool, error) { return b.devices.Device(id) }
func (b storeBackend) Devices() ([]server.Device, error)             { return b.devices.Devices() }
func (b storeBackend) RevokeDevice(id string, at time.Time) error {
	return b.devices.RevokeDevice(id, at)
}

// benchConn is a scripted Runtime connection: Core's frames queue up and
// one goroutine answers them.
type benchConn struct {
	s    *server.Server
	rt   *scripted.Runtime
	id   core.ConnID
	q    chan []byte
	once sync.Once
	done chan struct{}
}

func (c *benchConn) Send(b []byte, _ time.Duration) bool {
	select {
	case c.q <- b:
		return true
	default:
		return false
	}
}

func (c *benchConn) Close(int, string) { c.once.Do(func() { close(c.done) }) }

func (c *benchConn) serve(ctx context.Context) {
	if c.s.Received(ctx, c.id, c.rt.Heartbeat(0)) != nil {
		return
	}
	for {
		select {
		case <-c.done:
			return
		case <-ctx.Done():
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

// BenchmarkCoreTurnsConcurrent runs Turns through the server loop with 1,
// 8 and 64 Sessions each keeping one Turn in flight (submit, then read
// its durable event stream to the end, then the next), each Session on a
// scripted Runtime connection of its own that streams 10 deltas, over the
// memory, SQLite and PostgreSQL stores. The loop commits once per batch of
// Steps it drained together (group commit), so with more Turns in flight
// a Commit carries more of them. It reports turns/s; compare the stores
// at the same inflight. PostgreSQL runs with TURNSTILE_PG_DSN set.
func BenchmarkCoreTurnsConcurrent(b *testing.B) {
	stores := []struct {
		name string
		open func(b *testing.B) server.Backend
	}{
		{"store=memory", func(*testing.B) server.Backend { return server.NewMemory() }},
		{"store=sqlite", func(b *testing.B) server.Backend {
			st, err := sqlitestore.Open(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = st.Close() })
			return storeBackend{st, server.NewMemory()}
		}},
		{"store=postgres", func(b *testing.B) server.Backend {
			st, err := pgstore.Open(pgtest.Schema(b))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = st.Close() })
			return storeBackend{st, server.NewMemory()}
		}},
	}
	for _, st := range stores {
		for _, n := range []int{1, 8, 64} {
			b.Run(fmt.Sprintf("%s/inflight=%d", st.name, n), func(b *testing.B) {
				benchmarkConcurrentTurns(b, st.open(b), n)
			})
		}
	}
}

func benchmarkConcurrentTurns(b *testing.B, back server.Backend, n int) {
	s, err := server.New(back, server.Options{Config: core.Config{Policy: enginetest.OpenPolicy("contract")},
		Fatal: func(err error) { panic(err) }})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- s.Run(ctx) }()
	var serving sync.WaitGroup
	defer func() {
		cancel()
		if err := <-ran; err != nil {
			b.Errorf("Run: %v", err)
		}
		serving.Wait()
	}()
	call := func(ev func(core.CallID) core.Event) core.APIResult {
		rep, err := s.Call(ctx, server.Request{Event: ev})
		if err != nil {
			b.Fatal(err)
		}
		if rep.Result.Err != nil {
			b.Fatal(rep.Result.Err)
		}
		return rep.Result
	}
	rt := &scripted.Runtime{Deltas: 10}
	for i := range n {
		dev := fmt.Sprint("d", i)
		if err := back.AddDevice(dev, [32]byte{1}, time.Now()); err != nil {
			b.Fatal(err)
		}
		c := &benchConn{s: s, rt: rt, q: make(chan []byte, 1024), done: make(chan struct{})}
		if c.id, err = s.Open(ctx, dev, c); err != nil {
			b.Fatal(err)
		}
		serving.Go(func() { c.serve(ctx) })
	}
	sessions := make([]string, n)
	for i := range sessions {
		sessions[i] = call(func(c core.CallID) core.Event {
			return core.CreateSession{Call: c, Agent: core.AgentConfig{Kind: scripted.Kind, Model: "m", Environment: core.EnvNone}}
		}).Value.(core.SessionCreated).Session
	}
	var left atomic.Int64
	left.Store(int64(b.N))
	var events atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	for _, sid := range sessions {
		wg.Go(func() {
			for left.Add(-1) >= 0 {
				tid := call(func(c core.CallID) core.Event {
					return core.SubmitTurn{Call: c, Session: sid, Input: wire.TextInput("hello")}
				}).Value.(core.TurnSubmitted).Turn
				sub, err := s.Subscribe(ctx, tid)
				if err != nil {
					b.Error(err)
					return
				}
				for {
					o, err := sub.Next(ctx)
					if err != nil {
						b.Error(err)
						return
					}
					if o.Closed {
						if o.Err != nil {
							b.Errorf("turn %s: %v", tid, o.Err)
						}
						break
					}
					events.Add(1)
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "turns/s")
	b.ReportMetric(float64(events.Load())/b.Elapsed().Seconds(), "events/s")
}
