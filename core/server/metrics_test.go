package server_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
	"github.com/turnstile-sim/turnstile/core/gateway/scripted"
	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/wire"
)

// scrape serves reg's exposition once and returns series → value.
func scrape(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	out := map[string]float64{}
	for _, line := range strings.Split(rec.Body.String(), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("exposition line %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}

func expect(t *testing.T, got map[string]float64, want map[string]float64) {
	t.Helper()
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s = %v (present %v), want %v", k, g, ok, v)
		}
	}
}

// frameConn is a Runtime connection that hands every frame Core sends to
// the test.
type frameConn struct{ out chan wire.Frame }

func (c frameConn) Send(b []byte, _ time.Duration) bool {
	f, err := wire.Decode(b)
	if err != nil {
		panic(err)
	}
	c.out <- f
	return true
}
func (frameConn) Close(int, string) {}

// next returns the next frame of type typ Core sent.
func (c frameConn) next(t *testing.T, typ string) wire.Frame {
	t.Helper()
	for f := range c.out {
		if f.Type() == typ {
			return f
		}
	}
	t.Fatalf("no %s sent", typ)
	return wire.Frame{}
}

func encode(t *testing.T, f wire.Frame) []byte {
	t.Helper()
	b, err := wire.Encode(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The loop counts refused frames by reason, the connected devices and
// each one's connections, its commits, and an Environment preparation's
// latency on the server's clock.
func TestServerMetricsRefusalsDevicesPreparation(t *testing.T) {
	clk := clock.NewMock()
	reg := prometheus.NewRegistry()
	back := server.NewMemory()
	if err := back.AddDevice("d1", [32]byte{}, clk.Now()); err != nil {
		t.Fatal(err)
	}
	s, err := server.New(back, server.Options{Clock: clk, Metrics: server.NewMetrics(reg)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- s.Run(ctx) }()
	defer func() { cancel(); <-ran }()
	flush := func() {
		if err := s.Query(ctx, func(server.View) {}); err != nil {
			t.Fatal(err)
		}
	}
	expect(t, scrape(t, reg), map[string]float64{"turnstile_core_devices_connected": 0})

	conn := frameConn{out: make(chan wire.Frame, 64)}
	id, err := s.Open(ctx, "d1", conn)
	if err != nil {
		t.Fatal(err)
	}
	hb := heartbeatFrom("v1")
	release := encode(t, wire.Frame{ID: "p-1", Payload: wire.ExecutionRelease{Handle: "h"}})
	for _, b := range [][]byte{hb, []byte(`{"type":`), bytes.Replace(hb, []byte(`"heartbeat"`), []byte(`"no_such_frame"`), 1), release} {
		if err := s.Received(ctx, id, b); err != nil {
			t.Fatal(err)
		}
	}
	flush()
	got := scrape(t, reg)
	expect(t, got, map[string]float64{
		`turnstile_core_frames_refused_total{reason="malformed"}`:       1,
		`turnstile_core_frames_refused_total{reason="unknown_type"}`:    1,
		`turnstile_core_frames_refused_total{reason="wrong_direction"}`: 1,
		`turnstile_core_frames_in_total{type="heartbeat"}`:              1,
		`turnstile_core_frames_in_total{type="undecodable"}`:            2, // malformed, unknown type
		"turnstile_core_devices_connected":                              1,
		`turnstile_core_device_connections{device="d1"}`:                1,
		"turnstile_core_connections":                                    1,
	})
	if got["turnstile_core_store_commit_batch_steps_count"] < 1 || got["turnstile_core_store_commit_batch_steps_sum"] < 4 {
		t.Errorf("commit batches: %v commits, %v steps; want the 5 steps committed", got["turnstile_core_store_commit_batch_steps_count"],
			got["turnstile_core_store_commit_batch_steps_sum"])
	}

	// A one-step preparation: begin, ready, commit, completed, 2 s apart.
	step := core.PrepareStep{Header: wire.RuntimePrepare{Action: wire.PrepareActionInitialize,
		Initialization: &wire.Initialization{Action: "setup", Command: "make", Network: "disabled"}}}
	rep, err := s.Call(ctx, server.Request{Event: func(c core.CallID) core.Event {
		return core.PrepareEnvironment{Call: c, Device: "d1", EnvironmentID: "6f1c2a34-5b6d-4e7f-8a9b-0c1d2e3f4a5b",
			SessionID: "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", Steps: []core.PrepareStep{step}}
	}})
	if err != nil || rep.Result.Err != nil {
		t.Fatalf("prepare: %v %v", err, rep.Result.Err)
	}
	begin := conn.next(t, wire.TypeRuntimePrepare)
	clk.Add(1500 * time.Millisecond)
	if err := s.Received(ctx, id, encode(t, wire.Frame{ID: begin.ID, Payload: wire.RuntimePrepareResult{Outcome: wire.OutcomeReady}})); err != nil {
		t.Fatal(err)
	}
	if commit := conn.next(t, wire.TypeRuntimePrepare); commit.ID != begin.ID {
		t.Fatalf("commit %+v", commit)
	}
	clk.Add(500 * time.Millisecond)
	if err := s.Received(ctx, id, encode(t, wire.Frame{ID: begin.ID, Payload: wire.RuntimePrepareResult{Outcome: wire.OutcomeCompleted}})); err != nil {
		t.Fatal(err)
	}
	flush()
	expect(t, scrape(t, reg), map[string]float64{
		`turnstile_core_environment_preparation_seconds_count{state="completed"}`: 1,
		`turnstile_core_environment_preparation_seconds_sum{state="completed"}`:   2,
	})

	s.Closed(id, "gone")
	flush()
	got = scrape(t, reg)
	expect(t, got, map[string]float64{"turnstile_core_devices_connected": 0, "turnstile_core_connections": 0})
	if _, ok := got[`turnstile_core_device_connections{device="d1"}`]; ok {
		t.Error("a disconnected device keeps its series")
	}
}

// lockedLog is a log destination safe for the loop and the test.
type lockedLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A Turn submitted before a restart finishes after it: the new process
// logs its transitions and counts its outcome, but times only what it
// saw begin (no latency for a Turn submitted to another process).
func TestTurnMetricsAcrossARestart(t *testing.T) {
	back := &checked{Memory: server.NewMemory()}
	if err := back.AddDevice("d1", [32]byte{}, time.Now()); err != nil {
		t.Fatal(err)
	}
	before := prometheus.NewRegistry()
	logs := &lockedLog{}
	opt := server.Options{Config: core.Config{Policy: enginetest.OpenPolicy(scripted.Kind)},
		Logger: slog.New(slog.NewTextHandler(logs, nil)), Metrics: server.NewMetrics(before)}
	first, err := server.New(back, opt)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, back: back, s: first, ran: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	e.cancel = cancel
	go func() { e.ran <- first.Run(ctx) }()
	sid := e.session()
	const prompt = "prompt-9d1 stays out of the log"
	tid := e.submit(sid, prompt)
	e.stop()
	expect(t, scrape(t, before), map[string]float64{`turnstile_core_turn_transitions_total{state="queued"}`: 1})

	after := prometheus.NewRegistry()
	opt.Metrics = server.NewMetrics(after)
	second, err := server.New(back, opt)
	if err != nil {
		t.Fatal(err)
	}
	e = &env{t: t, back: back, s: second, ran: make(chan error, 1)}
	ctx, cancel = context.WithCancel(context.Background())
	e.cancel = cancel
	go func() { e.ran <- second.Run(ctx) }()
	defer e.stop()
	done := make(chan struct{})
	if err := second.Watch(ctx, func(v server.View) bool {
		if r, ok := v.Backend().Turn(tid); ok && r.State.Terminal() {
			close(done)
			return false
		}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	e.connect("d1", &scripted.Runtime{Deltas: 1}, 16)
	<-done
	if err := second.Query(ctx, func(server.View) {}); err != nil {
		t.Fatal(err)
	}
	got := scrape(t, after)
	expect(t, got, map[string]float64{
		`turnstile_core_turns_finished_total{code="none",state="completed"}`: 1,
		`turnstile_core_turn_transitions_total{state="completed"}`:           1,
		"turnstile_core_turn_first_event_seconds_count":                      0,
	})
	if _, ok := got[`turnstile_core_turn_transitions_total{state="queued"}`]; ok {
		t.Error("the restarted process counts a queued transition it did not see")
	}
	if _, ok := got[`turnstile_core_turn_duration_seconds_count{state="completed"}`]; ok {
		t.Error("a Turn submitted before the restart was timed")
	}
	log := logs.String()
	if !strings.Contains(log, `msg="turn transition" session=`+sid+` turn=`+tid+` run=`) ||
		!strings.Contains(log, `device=d1 from=running state=completed`) || strings.Contains(log, prompt) {
		t.Errorf("transition lines:\n%s", log)
	}
}
