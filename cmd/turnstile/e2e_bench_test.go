package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/synthetic"
	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/gateway"
	"github.com/turnstile-sim/turnstile/core/server"
	dmachine "github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/daemon/runner"
	"github.com/turnstile-sim/turnstile/daemon/transport"
)

// BenchmarkEndToEndTurn is one short Turn (one delta and done) through a
// real Core (server loop with the in-memory backend, gateway, API) and a
// real daemon with the synthetic Harness over loopback TCP: submit with
// HTTP, then read the SSE stream to its end. Run it next to the machines
// alone for the shell overhead ratio:
//
//	go test -run '^$' -bench 'CoreTurn|DaemonTurn|EndToEndTurn' -benchmem ./core ./daemon ./cmd/turnstile
func BenchmarkEndToEndTurn(b *testing.B) {
	back := server.NewMemory()
	if err := back.AddDevice(e2eDevice, sha256.Sum256([]byte(e2eCredential)), time.Now()); err != nil {
		b.Fatal(err)
	}
	srv, err := server.New(back, server.Options{})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- srv.Run(ctx) }()
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	gw, err := gateway.New(srv, gateway.Options{PublicURL: ts.URL})
	if err != nil {
		b.Fatal(err)
	}
	a, err := api.New(srv, api.Options{OperatorToken: e2eToken, Keys: api.StaticKey("bench", e2eToken)})
	if err != nil {
		b.Fatal(err)
	}
	gw.Register(mux)
	a.Register(mux)
	h := synthetic.New()
	reg, kinds, err := runner.Install(ctx, []agent.Declaration{synthetic.Declaration(h)}, nil, nil, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	d := runner.New(runner.Config{
		Machine:   dmachine.Config{Kinds: kinds, DaemonVersion: "bench"},
		Executors: reg,
		Client:    &transport.Client{CoreURL: ts.URL, DeviceID: e2eDevice, Credential: e2eCredential, HTTP: ts.Client()},
		Rand:      rand.New(rand.NewPCG(1, 1)),
		Log:       slog.New(slog.DiscardHandler),
	})
	dres := make(chan error, 1)
	go func() { _, err := d.Run(context.Background()); dres <- err }()
	c := newClient(nil, ts.URL, e2eToken) // do only: no test to fail
	sid := benchField(b, c, "POST", "/v1/agents/sessions",
		`{"agent":{"model":"synthetic-1","x_agents_core":{"harness":"synthetic"}},"environment":{"type":"none"}}`, 200, "id")
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		st, out, _, err := c.do("POST", "/v1/agents/sessions/"+sid+"/events", `{"events":[`+messageEvent("hi")+`]}`)
		var r api.EventsReceipt
		if err != nil || st != 200 || json.Unmarshal([]byte(out), &r) != nil || len(r.Receipts) != 1 {
			b.Fatalf("message: %d %s %v", st, out, err)
		}
		tid := r.Receipts[0].TurnID
		evs, err := c.events(tid, "")
		if err != nil || len(evs) == 0 || evs[len(evs)-1].Event != api.EvTurnCompleted {
			b.Fatalf("turn %s: %v %+v", tid, err, evs)
		}
	}
	b.StopTimer()
	d.Shutdown("benchmark finished")
	if err := <-dres; err != nil {
		b.Fatal(err)
	}
	ts.Close()
	cancel()
	<-ran
	gw.Wait(10 * time.Second)
}

func benchField(b *testing.B, c *client, method, path, body string, want int, field string) string {
	st, out, _, err := c.do(method, path, body)
	if err != nil || st != want {
		b.Fatalf("%s %s: %d %s %v", method, path, st, out, err)
	}
	v := jsonField(out, field)
	if strings.TrimSpace(v) == "" {
		b.Fatalf("%s %s: no %s in %s", method, path, field, out)
	}
	return v
}
