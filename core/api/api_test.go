package api_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"go.uber.org/goleak"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/engine"
	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
	"github.com/turnstile-sim/turnstile/core/gateway"
	"github.com/turnstile-sim/turnstile/core/gateway/scripted"
	"github.com/turnstile-sim/turnstile/core/server"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const token = "op_TOKEN-3b2f"

type env struct {
	t    *testing.T
	back *server.Memory
	s    *server.Server
	ts   *httptest.Server
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return newEnvPolicy(t, enginetest.OpenPolicy("contract"))
}

// newEnvPolicy is newEnv with Core's engine policy.
func newEnvPolicy(t *testing.T, policy *engine.Policy) *env {
	t.Helper()
	back := server.NewMemory()
	if err := back.AddDevice("d1", sha256.Sum256([]byte("cred-d1")), time.Now()); err != nil {
		t.Fatal(err)
	}
	s, err := server.New(back, server.Options{Config: core.Config{Policy: policy}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- s.Run(ctx) }()
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	a, err := api.New(s, api.Options{OperatorToken: token, Keys: testKeys{}})
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

// do sends an authorised request unless header overrides it.
func (e *env) do(method, path, body string, header ...string) (int, string, http.Header) {
	e.t.Helper()
	req, _ := http.NewRequest(method, e.ts.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := e.ts.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

func field(t *testing.T, body, name string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("body %q: %v", body, err)
	}
	s, _ := m[name].(string)
	return s
}

// session creates a Session through /v1: the contract harness, no
// environment.
func (e *env) session() string {
	e.t.Helper()
	return e.v1Session(inlineSession).ID
}

// submit sends a message to the idle Session sid through /v1 and returns
// the Turn it started.
func (e *env) submit(sid, text string, header ...string) string {
	e.t.Helper()
	body, _ := json.Marshal(map[string]any{"events": []any{map[string]any{"type": api.InputMessage, "input": text}}})
	r := e.postEvents(sid, string(body), header...)
	if len(r.Receipts) != 1 || r.Receipts[0].Action != "turn_started" {
		e.t.Fatalf("submit: %+v", r)
	}
	return r.Receipts[0].TurnID
}

func (e *env) connect(rt *scripted.Runtime) func() {
	e.t.Helper()
	c, err := scripted.Dial(context.Background(), e.ts.Client(), "ws"+strings.TrimPrefix(e.ts.URL, "http")+gateway.WSPath, "d1", "cred-d1", rt)
	if err != nil {
		e.t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = c.Serve(context.Background()); close(done) }()
	return func() { c.WS.Close(websocket.StatusNormalClosure, ""); <-done }
}

// sse reads an event stream until it ends: (id, event, data) triples.
func (e *env) sse(path string, header ...string) [][3]string {
	e.t.Helper()
	req, _ := http.NewRequest("GET", e.ts.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := e.ts.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		e.t.Fatalf("events: %d %s", resp.StatusCode, b)
	}
	var out [][3]string
	var cur [3]string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			out = append(out, cur)
			cur = [3]string{}
		case strings.HasPrefix(line, "id: "):
			cur[0] = line[4:]
		case strings.HasPrefix(line, "event: "):
			cur[1] = line[7:]
		case strings.HasPrefix(line, "data: "):
			cur[2] = line[6:]
		}
	}
	return out
}

// A Turn started through /v1 completes; Core's operator view of the Turn
// shows its content and events, and the device list its Runtime.
func TestTurnLifecycleOverHTTP(t *testing.T) {
	e := newEnv(t)
	stop := e.connect(&scripted.Runtime{Deltas: 2})
	defer stop()
	sid := e.session()
	tid := e.submit(sid, "hello")
	waitState(t, e, tid, "completed")
	st, body, _ := e.do("GET", "/core/v1/turns/"+tid, "")
	var tj api.TurnJSON
	if st != 200 || json.Unmarshal([]byte(body), &tj) != nil || tj.State != "completed" || tj.Content != "echo: hello" || tj.Events != 3 || tj.SessionID != sid {
		t.Fatalf("get turn: %d %s", st, body)
	}
	st, body, _ = e.do("GET", "/core/v1/devices", "")
	var dl struct{ Devices []api.DeviceJSON }
	if st != 200 || json.Unmarshal([]byte(body), &dl) != nil || len(dl.Devices) != 1 || !dl.Devices[0].Connected ||
		dl.Devices[0].LastHeartbeatAt == nil || dl.Devices[0].DaemonVersion != "scripted" || len(dl.Devices[0].Kinds) != 1 {
		t.Fatalf("devices: %d %s", st, body)
	}
	if strings.Contains(body, "cred-d1") {
		t.Fatal("device list leaks a credential")
	}
}

// waitState reads the Turn until it reaches state (each read is a round
// trip through the loop; nothing sleeps).
func waitState(t *testing.T, e *env, tid, state string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		_, body, _ := e.do("GET", "/core/v1/turns/"+tid, "")
		if field(t, body, "state") == state {
			return
		}
	}
	t.Fatalf("turn %s never reached %s", tid, state)
}

// A message event retried with the same Idempotency-Key answers the
// first receipt and starts no second Turn; the key with another body is
// refused.
func TestIdempotencyKeyAnswersOnceDurably(t *testing.T) {
	e := newEnv(t)
	sid := e.session()
	first := e.submit(sid, "x", "Idempotency-Key", "abc")
	if again := e.submit(sid, "x", "Idempotency-Key", "abc"); again != first || len(e.turns(t)) != 1 {
		t.Fatalf("retry: %s then %s, %d turns", first, again, len(e.turns(t)))
	}
	writes := e.writes()
	st, body := e.v1("POST", "/v1/agents/sessions/"+sid+"/events", `{"events":[{"type":"agent.session.input.message","input":"y"}]}`, "Idempotency-Key", "abc")
	if st < 400 || len(e.turns(t)) != 1 || e.writes() != writes {
		t.Fatalf("reused key with another body: %d %s, %d turns", st, body, len(e.turns(t)))
	}
}

func sessions(t *testing.T, e *env) []string {
	var out []string
	_ = e.s.Query(context.Background(), func(v server.View) {
		for _, s := range v.Backend().Sessions() {
			out = append(out, s.ID)
		}
	})
	return out
}

func (e *env) turns(t *testing.T) []string {
	var out []string
	_ = e.s.Query(context.Background(), func(v server.View) {
		for _, r := range v.Backend().Turns() {
			out = append(out, r.ID)
		}
	})
	return out
}

// The operator routes refuse bad input with named codes and change
// nothing; the Session routes' refusals are the /v1 tests'.
func TestBadInputIsNamed400AndChangesNothing(t *testing.T) {
	e := newEnv(t)
	sid := e.session()
	writes := e.writes()
	cases := []struct {
		method, path, body string
		status             int
		code               string
	}{
		{"GET", "/core/v1/turns/t-404", "", 404, api.CodeUnknownTurn},
		{"GET", "/core/v1/sessions/s-404/environment", "", 404, api.CodeUnknownSession},
		{"POST", "/core/v1/turns/t-404/user-choices/ask-1", `{"cancelled":true}`, 404, api.CodeUnknownTurn},
		{"POST", "/core/v1/turns/t-404/user-choices/ask-1", `{"cancelled":`, 400, api.CodeBadJSON},
		{"POST", "/core/v1/turns/t-404/user-choices/ask-1", `{"cancelled":true,"why":1}`, 400, api.CodeUnknownField},
		{"POST", "/core/v1/turns/t-404/user-choices/ask-1", `{"reason":"` + strings.Repeat("a", api.BodyBytesMax) + `"}`, 413, api.CodeBodyTooLarge},
		{"DELETE", "/core/v1/sessions/" + sid + "/environment", "", 405, api.CodeMethodNotAllowed},
		{"POST", "/core/v1/turns/t-1", "", 405, api.CodeMethodNotAllowed},
	}
	for _, c := range cases {
		st, body, _ := e.do(c.method, c.path, c.body)
		if st != c.status || field(t, body, "error") != c.code {
			t.Errorf("%s %s %.40q: %d %s, want %d %s", c.method, c.path, c.body, st, body, c.status, c.code)
		}
	}
	// The home-made public routes are gone.
	for _, path := range []string{"/api/v1/sessions", "/api/v1/sessions/" + sid + "/turns", "/api/v1/turns/t-1"} {
		if st, body, _ := e.do("POST", path, `{"text":"a"}`); st != 404 {
			t.Errorf("POST %s: %d %s", path, st, body)
		}
	}
	if w := e.writes(); w != writes {
		t.Fatalf("rejected requests wrote %d records", w-writes)
	}
}

func TestOperatorTokenRequired(t *testing.T) {
	e := newEnv(t)
	for _, h := range []string{"", "Bearer", "Bearer wrong", "Basic " + token, "bearer " + token, "Bearer cred-d1"} {
		for _, r := range api.Routes() {
			path := strings.NewReplacer("{session}", "s-1", "{turn}", "t-1", "{agent}", "agent_1", "{interaction}", "ask-1").Replace(r.Path)
			st, body, _ := e.do(r.Method, path, "{}", "Authorization", h)
			if strings.HasPrefix(path, "/v1/") {
				// /v1 takes API keys, never an operator token (v1_test.go).
				if st != 401 || code(v1Err(t, body)) != api.CodeInvalidAPIKey || strings.Contains(body, "wrong") {
					t.Errorf("%s %s with %q: %d %s", r.Method, path, h, st, body)
				}
				continue
			}
			if st != 401 || field(t, body, "error") != api.CodeUnauthorized || strings.Contains(body, "wrong") {
				t.Errorf("%s %s with %q: %d %s", r.Method, path, h, st, body)
			}
		}
	}
	if n := len(sessions(t, e)); n != 0 {
		t.Fatalf("%d sessions created without a token", n)
	}
}

func (e *env) writes() uint64 {
	var n uint64
	_ = e.s.Query(context.Background(), func(server.View) { n = e.back.Writes() })
	return n
}
