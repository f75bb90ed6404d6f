package api_test

import (
	"context"
	"crypto/sha256"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
	"github.com/turnstile-sim/turnstile/core/gateway"
	"github.com/turnstile-sim/turnstile/core/server"
)

// newEnvWith is newEnv with the API built from opt (keys, resources,
// vault key, logger).
func newEnvWith(t *testing.T, opt api.Options) *env {
	t.Helper()
	back := server.NewMemory()
	if err := back.AddDevice("d1", sha256.Sum256([]byte("cred-d1")), time.Now()); err != nil {
		t.Fatal(err)
	}
	s, err := server.New(back, server.Options{Config: core.Config{Policy: enginetest.OpenPolicy("contract")}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- s.Run(ctx) }()
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	a, err := api.New(s, opt)
	if err != nil {
		t.Fatal(err)
	}
	a.Register(mux)
	gw, err := gateway.New(s, gateway.Options{PublicURL: ts.URL})
	if err != nil {
		t.Fatal(err)
	}
	gw.Register(mux)
	t.Cleanup(func() {
		cancel()
		<-ran
		ts.Close()
	})
	return &env{t: t, back: back, s: s, ts: ts}
}

// newV1Request is a /v1 request with the test API key, as e.v1 sends it,
// for tests that read the answer's headers.
func newV1Request(e *env, method, path, body string) (*http.Request, error) {
	req, err := http.NewRequest(method, e.ts.URL+path, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+apiKey)
	req.Header.Set("OpenAI-Beta", "agents=v1")
	return req, nil
}
