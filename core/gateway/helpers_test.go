package gateway_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
	"github.com/turnstile-sim/turnstile/core/gateway"
	"github.com/turnstile-sim/turnstile/core/gateway/scripted"
	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/wire"
)

// credential is the test credential of device id; secret enough to spot in
// any output.
func credential(id string) string { return "tsd_SECRET-" + id + "-7f3a9c" }

type env struct {
	t    *testing.T
	back *server.Memory
	s    *server.Server
	ts   *httptest.Server
	gw   *gateway.Gateway
	stop func()
	logs *logBuffer           // the server's and (unless Options.Logger is set) the gateway's log
	reg  *prometheus.Registry // the server's metrics
}

// logBuffer collects log lines from any goroutine.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// waitLog waits until the log holds every one of texts on one line; each
// check yields, nothing sleeps.
func (e *env) waitLog(texts ...string) string {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		for _, line := range strings.Split(e.logs.String(), "\n") {
			all := true
			for _, t := range texts {
				all = all && strings.Contains(line, t)
			}
			if all {
				return line
			}
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("no log line with %q:\n%s", texts, e.logs.String())
		}
		runtime.Gosched()
	}
}

// newEnv starts a server, its gateway and an httptest server on loopback,
// with devices registered.
func newEnv(t *testing.T, opt gateway.Options, devices ...string) *env {
	t.Helper()
	back := server.NewMemory()
	for _, d := range devices {
		if err := back.AddDevice(d, sha256.Sum256([]byte(credential(d))), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	logs := &logBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if opt.Logger == nil {
		opt.Logger = logger
	}
	reg := prometheus.NewRegistry()
	s, err := server.New(back, server.Options{Config: core.Config{Policy: enginetest.OpenPolicy("contract")}, Logger: logger,
		Metrics: server.NewMetrics(reg)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- s.Run(ctx) }()
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	opt.PublicURL = ts.URL
	gw, err := gateway.New(s, opt)
	if err != nil {
		t.Fatal(err)
	}
	gw.Register(mux)
	e := &env{t: t, back: back, s: s, ts: ts, gw: gw, logs: logs, reg: reg}
	e.stop = func() {
		cancel()
		if err := <-ran; err != nil {
			t.Errorf("Run: %v", err)
		}
		ts.Close()
	}
	t.Cleanup(e.stop)
	return e
}

func (e *env) wsURL() string { return "ws" + strings.TrimPrefix(e.ts.URL, "http") + gateway.WSPath }

// do sends a request and returns status and body.
func (e *env) do(method, path string, header http.Header, body string) (int, string) {
	e.t.Helper()
	req, err := http.NewRequest(method, e.ts.URL+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := e.ts.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func bearerHeader(cred string) http.Header { return http.Header{"Authorization": {"Bearer " + cred}} }

// wsQuery builds the WebSocket route's query.
func wsQuery(device, version string) string {
	v := url.Values{}
	if device != "" {
		v.Set("device_id", device)
	}
	v.Set("version", version)
	return gateway.WSPath + "?" + v.Encode()
}

// errorCode decodes the shared error body's code.
func errorCode(t *testing.T, body string) string {
	t.Helper()
	var b struct{ Error, Detail string }
	if err := json.Unmarshal([]byte(body), &b); err != nil {
		t.Fatalf("error body %q: %v", body, err)
	}
	return b.Error
}

// devices returns the machine's device views.
func (e *env) devices() []core.DeviceView {
	e.t.Helper()
	var out []core.DeviceView
	if err := e.s.Query(context.Background(), func(v server.View) { out = v.Machine().Devices() }); err != nil {
		e.t.Fatal(err)
	}
	return out
}

// registered lists the machine's devices that have a connection or a
// declaration: the enrolled pool is known to the machine from the start
// (core.Config.Devices) without either.
func (e *env) registered() []core.DeviceView {
	e.t.Helper()
	var out []core.DeviceView
	for _, d := range e.devices() {
		if d.Conn != 0 || d.Known {
			out = append(out, d)
		}
	}
	return out
}

func (e *env) dial(device string, rt *scripted.Runtime) *scripted.Client {
	e.t.Helper()
	c, err := scripted.Dial(context.Background(), e.ts.Client(), e.wsURL(), device, credential(device), rt)
	if err != nil {
		e.t.Fatal(err)
	}
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

// waitTurn subscribes to the Turn and returns its view once terminal.
func (e *env) waitTurn(id string) core.TurnView {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sub, err := e.s.Subscribe(ctx, id)
	if err != nil {
		e.t.Fatal(err)
	}
	for {
		o, err := sub.Next(ctx)
		if err != nil {
			e.t.Fatalf("turn %s: %v", id, err)
		}
		if o.Closed {
			break
		}
	}
	r := e.call(func(c core.CallID) core.Event { return core.ReadTurn{Call: c, Turn: id} })
	return *r.Value.(*core.TurnView)
}
