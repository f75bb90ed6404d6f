package gateway_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
	"github.com/turnstile-sim/turnstile/core/gateway"
	"github.com/turnstile-sim/turnstile/core/gateway/scripted"
	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/internal/cputime"
	"github.com/turnstile-sim/turnstile/wire"
)

// deltaFrames returns n encoded delta frames of run.
func deltaFrames(run string, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		b, err := wire.Encode(wire.Frame{ID: run, Payload: wire.Delta{Delta: "token ", Sequence: uint64(i + 1)}})
		if err != nil {
			panic(err)
		}
		out[i] = b
	}
	return out
}

// benchEnv is a gateway over a memory backend on loopback whose Turns may
// persist any number of events.
func benchEnv(b *testing.B, devices ...string) *env {
	back := server.NewMemory()
	for _, d := range devices {
		_ = back.AddDevice(d, sha256.Sum256([]byte(credential(d))), time.Now())
	}
	s, err := server.New(back, server.Options{Config: core.Config{RunEventsPerTurnMax: 1 << 30, Policy: enginetest.OpenPolicy("contract")}})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- s.Run(ctx) }()
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	gw, err := gateway.New(s, gateway.Options{PublicURL: ts.URL})
	if err != nil {
		b.Fatal(err)
	}
	gw.Register(mux)
	b.Cleanup(func() { cancel(); <-ran; ts.Close() })
	return &env{t: &testing.T{}, back: back, s: s, ts: ts, gw: gw}
}

// BenchmarkGatewayIngest: a Runtime streams delta frames of one running
// Run into the gateway over loopback; an iteration is one frame read,
// decoded, stepped, persisted and committed. Compare with
// BenchmarkRawWebsocket (the same frames into a bare reader).
func BenchmarkGatewayIngest(b *testing.B) {
	e := benchEnv(b, "d1")
	e.t = nil
	rt := &scripted.Runtime{Hold: true}
	c, err := scripted.Dial(context.Background(), e.ts.Client(), e.wsURL(), "d1", credential("d1"), rt)
	if err != nil {
		b.Fatal(err)
	}
	defer c.WS.CloseNow()
	go c.Serve(context.Background())
	waitKnown(b, e.s)
	rep, _ := e.s.Call(context.Background(), server.Request{Event: func(id core.CallID) core.Event {
		return core.CreateSession{Call: id, Agent: core.AgentConfig{Kind: scripted.Kind, Model: "m", Environment: core.EnvNone}}
	}})
	rep, _ = e.s.Call(context.Background(), server.Request{Event: func(id core.CallID) core.Event {
		return core.SubmitTurn{Call: id, Session: rep.Result.Value.(core.SessionCreated).Session, Input: wire.TextInput("x")}
	}})
	tid := rep.Result.Value.(core.TurnSubmitted).Turn
	run := waitRunning(b, e.s, tid)
	frames := deltaFrames(run, b.N)
	ctx := context.Background()
	b.SetBytes(int64(len(frames[0])))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cputime.Process()
	for _, f := range frames {
		if err := c.WS.Write(ctx, websocket.MessageText, f); err != nil {
			b.Fatal(err)
		}
	}
	for events(e.s, tid) < uint64(b.N) {
		pause()
	}
	b.StopTimer()
	reportCPU(b, cpu)
}

// pause spaces out the polls of a benchmark's end condition, so that
// polling neither steals CPU from the work measured nor splits the loop's
// batches.
func pause() { time.Sleep(200 * time.Microsecond) }

func reportCPU(b *testing.B, since time.Duration) {
	b.ReportMetric(float64((cputime.Process()-since).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// BenchmarkRawWebsocket: the same frames into a bare coder/websocket
// reader that only counts them.
func BenchmarkRawWebsocket(b *testing.B) {
	var got atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		ws.SetReadLimit(wire.FrameBytesMax)
		for {
			if _, _, err := ws.Read(r.Context()); err != nil {
				return
			}
			got.Add(1)
		}
	}))
	defer ts.Close()
	ctx := context.Background()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http"), &websocket.DialOptions{HTTPClient: ts.Client()})
	if err != nil {
		b.Fatal(err)
	}
	defer ws.CloseNow()
	frames := deltaFrames("t-1", b.N)
	b.SetBytes(int64(len(frames[0])))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cputime.Process()
	for _, f := range frames {
		if err := ws.Write(ctx, websocket.MessageText, f); err != nil {
			b.Fatal(err)
		}
	}
	for got.Load() < int64(b.N) {
		pause()
	}
	b.StopTimer()
	reportCPU(b, cpu)
}

// BenchmarkManyDevices: 1,000 idle Runtimes connected over loopback; it
// reports the heap per connection (both ends of each loopback connection
// live in this process, so the figure includes the client's side).
func BenchmarkManyDevices(b *testing.B) {
	const n = 1000
	for range b.N {
		ids := make([]string, n)
		for i := range ids {
			ids[i] = fmt.Sprintf("d%04d", i)
		}
		e := benchEnv(b, ids...)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		clients := make([]*scripted.Client, n)
		for i, id := range ids {
			c, err := scripted.Dial(context.Background(), e.ts.Client(), e.wsURL(), id, credential(id), &scripted.Runtime{})
			if err != nil {
				b.Fatal(err)
			}
			clients[i] = c
			go c.Serve(context.Background())
		}
		for connected(e.s) < n {
			runtime.Gosched()
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "heap-B/conn")
		b.ReportMetric(float64(runtime.NumGoroutine())/n, "goroutines/conn")
		for _, c := range clients {
			c.WS.CloseNow()
		}
	}
}

func waitKnown(b *testing.B, s *server.Server) {
	for {
		known := false
		_ = s.Query(context.Background(), func(v server.View) {
			for _, d := range v.Machine().Devices() {
				known = known || d.Known
			}
		})
		if known {
			return
		}
		runtime.Gosched()
	}
}

func waitRunning(b *testing.B, s *server.Server, tid string) string {
	for {
		var tv core.TurnView
		_ = s.Query(context.Background(), func(v server.View) { tv, _ = v.Machine().Turn(tid) })
		if tv.State == core.TurnRunning {
			return tv.RunID
		}
		if tv.State.Terminal() {
			b.Fatalf("turn %s ended %s %s", tid, tv.State, tv.ErrorCode)
		}
		runtime.Gosched()
	}
}

func events(s *server.Server, tid string) uint64 {
	var n uint64
	_ = s.Query(context.Background(), func(v server.View) { tv, _ := v.Machine().Turn(tid); n = tv.Events })
	return n
}

func connected(s *server.Server) int {
	n := 0
	_ = s.Query(context.Background(), func(v server.View) {
		for _, d := range v.Machine().Devices() {
			if d.Known {
				n++
			}
		}
	})
	return n
}
