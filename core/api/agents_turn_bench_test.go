package api_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
	"github.com/turnstile-sim/turnstile/core/gateway"
	"github.com/turnstile-sim/turnstile/core/gateway/scripted"
	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/wire"
)

// BenchmarkAgentsAPITurn runs, in each iteration, one Turn through the
// machine API (SubmitTurn, then the durable subscription to its end) and
// one through /v1 over real HTTP (the message posted, the Session's event
// stream, opened once before the loop, read to idle), each on its own Session of
// the same Core with the scripted Runtime over a real WebSocket. It
// reports both costs and their ratio (v1/machine); the API layer is meant
// to stay within 1.5 times the machine path.
func BenchmarkAgentsAPITurn(b *testing.B) {
	back := server.NewMemory()
	if err := back.AddDevice("d1", sha256.Sum256([]byte("cred-d1")), time.Now()); err != nil {
		b.Fatal(err)
	}
	s, err := server.New(back, server.Options{Config: core.Config{Policy: enginetest.OpenPolicy("contract")}})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- s.Run(ctx) }()
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	a, err := api.New(s, api.Options{OperatorToken: token, Keys: testKeys{}})
	if err != nil {
		b.Fatal(err)
	}
	a.Register(mux)
	gw, err := gateway.New(s, gateway.Options{PublicURL: ts.URL})
	if err != nil {
		b.Fatal(err)
	}
	gw.Register(mux)
	c, err := scripted.Dial(ctx, ts.Client(), "ws"+strings.TrimPrefix(ts.URL, "http")+gateway.WSPath, "d1", "cred-d1", &scripted.Runtime{Deltas: 2})
	if err != nil {
		b.Fatal(err)
	}
	served := make(chan struct{})
	go func() { _ = c.Serve(ctx); close(served) }()
	defer func() {
		c.WS.Close(websocket.StatusNormalClosure, "")
		<-served
		cancel()
		<-ran
		ts.Close()
	}()
	do := func(method, path, body string) string {
		req, _ := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+apiKey)
		resp, err := ts.Client().Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			b.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, out)
		}
		return string(out)
	}
	v1sid := strings.SplitN(strings.SplitN(do("POST", "/v1/agents/sessions", inlineSession), `"id":"`, 2)[1], `"`, 2)[0]
	rep, err := s.Call(ctx, server.Request{Event: func(cl core.CallID) core.Event {
		return core.CreateSession{Call: cl, Agent: core.AgentConfig{Kind: "contract", Model: "m", Environment: core.EnvNone}}
	}})
	if err != nil || rep.Result.Err != nil {
		b.Fatal(err, rep.Result.Err)
	}
	msid := rep.Result.Value.(core.SessionCreated).Session

	machineTurn := func() {
		rep, err := s.Call(ctx, server.Request{Event: func(cl core.CallID) core.Event {
			return core.SubmitTurn{Call: cl, Session: msid, Input: wire.TextInput("hello")}
		}})
		if err != nil || rep.Result.Err != nil {
			b.Fatal(err, rep.Result.Err)
		}
		sub, err := s.Subscribe(ctx, rep.Result.Value.(core.TurnSubmitted).Turn)
		if err != nil {
			b.Fatal(err)
		}
		defer sub.Close()
		for {
			o, err := sub.Next(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if o.Closed {
				if o.Err != nil {
					b.Fatal(o.Err)
				}
				return
			}
		}
	}
	// The /v1 client keeps its Session's event stream open, as the
	// machine path keeps its server: each Turn is a message posted, then
	// the stream read to the Session's idle.
	sctx, stopStream := context.WithCancel(ctx)
	defer stopStream()
	req, _ := http.NewRequestWithContext(sctx, "GET", ts.URL+"/v1/agents/sessions/"+v1sid+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+apiKey)
	stream, err := ts.Client().Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer stream.Body.Close()
	sc := bufio.NewScanner(stream.Body)
	idleLine := []byte("event: " + api.EvSessionIdle)
	v1Turn := func() {
		do("POST", "/v1/agents/sessions/"+v1sid+"/events", helloMessage)
		for sc.Scan() {
			if bytes.Equal(sc.Bytes(), idleLine) {
				return
			}
		}
		b.Fatal("the stream ended before idle")
	}
	machineTurn() // warm every path
	v1Turn()
	var machine, v1 time.Duration
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		machineTurn()
		t1 := time.Now()
		v1Turn()
		machine, v1 = machine+t1.Sub(t0), v1+time.Since(t1)
	}
	n := float64(b.N)
	b.ReportMetric(float64(machine.Nanoseconds())/n, "machine-ns/turn")
	b.ReportMetric(float64(v1.Nanoseconds())/n, "v1-ns/turn")
	b.ReportMetric(float64(v1)/float64(machine), "v1/machine")
}

// doAs sends a request with a bearer secret and wants status.
func doAs(b *testing.B, ts *httptest.Server, secret, method, path, body string, status int) string {
	req, _ := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+secret)
	resp, err := ts.Client().Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != status {
		b.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, out)
	}
	return string(out)
}
