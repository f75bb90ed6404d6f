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

const sessionBody = `{"agent":{"kind":"contract","model":"m"},"environment":{"type":"none"}}`

func (e *env) session() string {
	e.t.Helper()
	st, body, _ := e.do("POST", "/api/v1/sessions", sessionBody)
	if st != 201 {
		e.t.Fatalf("create session: %d %s", st, body)
	}
	return field(e.t, body, "session_id")
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

func TestTurnLifecycleOverHTTP(t *testing.T) {
	e := newEnv(t)
	stop := e.connect(&scripted.Runtime{Deltas: 2})
	defer stop()
	sid := e.session()
	st, body, _ := e.do("POST", "/api/v1/sessions/"+sid+"/turns", `{"text":"hello"}`)
	if st != 201 {
		t.Fatalf("submit: %d %s", st, body)
	}
	tid := field(t, body, "turn_id")
	evs := e.sse("/api/v1/turns/" + tid + "/events")
	want := [][3]string{{"1", "delta", `{"delta":"d1 ","sequence":1}`}, {"2", "delta", `{"delta":"d2 ","sequence":2}`},
		{"3", "done", `{"content":"echo: hello","metadata":{"agent_session_id":"native-t-1"}}`}, {"", "end", `{"turn_id":"` + tid + `"}`}}
	if len(evs) != len(want) {
		t.Fatalf("events = %v", evs)
	}
	for i := range want {
		if evs[i] != want[i] {
			t.Fatalf("event %d = %v, want %v", i, evs[i], want[i])
		}
	}
	// Resume after the first event: no loss, no duplicate.
	resumed := e.sse("/api/v1/turns/"+tid+"/events", "Last-Event-ID", "1")
	if len(resumed) != 3 || resumed[0][0] != "2" || resumed[1][0] != "3" || resumed[2][1] != "end" {
		t.Fatalf("resumed = %v", resumed)
	}
	st, body, _ = e.do("GET", "/api/v1/turns/"+tid, "")
	var tj api.TurnJSON
	if st != 200 || json.Unmarshal([]byte(body), &tj) != nil || tj.State != "completed" || tj.Content != "echo: hello" || tj.Events != 3 {
		t.Fatalf("get turn: %d %s", st, body)
	}
	st, body, _ = e.do("GET", "/api/v1/sessions/"+sid+"/turns", "")
	if st != 200 || !strings.Contains(body, `"id":"`+tid+`"`) {
		t.Fatalf("list turns: %d %s", st, body)
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

func TestSteerAndCancelOverHTTP(t *testing.T) {
	e := newEnv(t)
	stop := e.connect(&scripted.Runtime{Hold: true})
	defer stop()
	sid := e.session()
	_, body, _ := e.do("POST", "/api/v1/sessions/"+sid+"/turns", `{"input":[{"content":[{"type":"input_text","text":"go"}]}]}`)
	tid := field(t, body, "turn_id")
	waitState(t, e, tid, "running")
	st, body, _ := e.do("POST", "/api/v1/turns/"+tid+"/inputs", `{"text":"more"}`)
	if st != 201 || field(t, body, "input_id") != "1" {
		t.Fatalf("steer: %d %s", st, body)
	}
	st, body, _ = e.do("POST", "/api/v1/turns/"+tid+"/cancel", "")
	if st != 202 {
		t.Fatalf("cancel: %d %s", st, body)
	}
	waitState(t, e, tid, "cancelled")
	st, body, _ = e.do("POST", "/api/v1/turns/"+tid+"/cancel", "")
	if st != 409 || field(t, body, "error") != api.CodeTurnTerminal {
		t.Fatalf("second cancel: %d %s", st, body)
	}
}

// waitState reads the Turn until it reaches state (each read is a round
// trip through the loop; nothing sleeps).
func waitState(t *testing.T, e *env, tid, state string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		_, body, _ := e.do("GET", "/api/v1/turns/"+tid, "")
		if field(t, body, "state") == state {
			return
		}
	}
	t.Fatalf("turn %s never reached %s", tid, state)
}

func TestIdempotencyKeyAnswersOnceDurably(t *testing.T) {
	e := newEnv(t)
	st1, b1, _ := e.do("POST", "/api/v1/sessions", sessionBody, "Idempotency-Key", "abc")
	st2, b2, h2 := e.do("POST", "/api/v1/sessions", sessionBody, "Idempotency-Key", "abc")
	if st1 != 201 || st2 != 201 || b1 != b2 || h2.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("first %d %s, retry %d %s %v", st1, b1, st2, b2, h2)
	}
	if n := len(sessions(t, e)); n != 1 {
		t.Fatalf("%d sessions after a retried create", n)
	}
	st, body, _ := e.do("POST", "/api/v1/sessions", `{"agent":{"kind":"contract","model":"other"},"environment":{"type":"none"}}`, "Idempotency-Key", "abc")
	if st != 422 || field(t, body, "error") != api.CodeIdempotencyConflict {
		t.Fatalf("reused key: %d %s", st, body)
	}
	// The same key on another route is another request.
	sid := field(t, b1, "session_id")
	st, body, _ = e.do("POST", "/api/v1/sessions/"+sid+"/turns", `{"text":"x"}`, "Idempotency-Key", "abc")
	st2, body2, _ := e.do("POST", "/api/v1/sessions/"+sid+"/turns", `{"text":"x"}`, "Idempotency-Key", "abc")
	if st != 201 || body != body2 || len(e.turns(t)) != 1 {
		t.Fatalf("turn retry: %d %s / %d %s, %d turns", st, body, st2, body2, len(e.turns(t)))
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

func TestBadInputIsNamed400AndChangesNothing(t *testing.T) {
	e := newEnv(t)
	sid := e.session()
	writes := e.writes()
	big := `{"text":"` + strings.Repeat("a", api.BodyBytesMax) + `"}`
	cases := []struct {
		path, body string
		status     int
		code       string
	}{
		{"/api/v1/sessions", `{"agent":`, 400, api.CodeBadJSON},
		{"/api/v1/sessions", `[]`, 400, api.CodeBadJSON},
		{"/api/v1/sessions", sessionBody + `{}`, 400, api.CodeBadJSON},
		{"/api/v1/sessions", `{"agent":{"kind":"contract","model":"m","colour":"red"},"environment":{"type":"none"}}`, 400, api.CodeUnknownField},
		{"/api/v1/sessions", `{"agent":{"kind":"contract","model":7},"environment":{"type":"none"}}`, 400, api.CodeBadJSON},
		{"/api/v1/sessions", `{"agent":{"kind":"contract","model":"m"},"environment":{"type":"moon"}}`, 400, api.CodeInvalidConfig},
		{"/api/v1/sessions", `{"agent":{"kind":"","model":"m"},"environment":{"type":"none"}}`, 400, api.CodeInvalidConfig},
		{"/api/v1/sessions", `{"agent":{"kind":"contract","model":"m","harness_config":[1]},"environment":{"type":"none"}}`, 400, api.CodeInvalidConfig},
		{"/api/v1/sessions", `{"agent":{"kind":"contract","model":"m","text_verbosity":"loud"},"environment":{"type":"none"}}`, 400, api.CodeInvalidConfig},
		{"/api/v1/sessions/" + sid + "/turns", big, 413, api.CodeBodyTooLarge},
		{"/api/v1/sessions/" + sid + "/turns", `{}`, 400, api.CodeInvalidInput},
		{"/api/v1/sessions/" + sid + "/turns", `{"text":"a","input":[]}`, 400, api.CodeInvalidInput},
		{"/api/v1/sessions/" + sid + "/turns", `{"input":[]}`, 400, api.CodeInvalidInput},
		{"/api/v1/sessions/" + sid + "/turns", `{"input":[{"content":[{"type":"input_audio"}]}]}`, 400, api.CodeInvalidInput},
		{"/api/v1/sessions/" + sid + "/turns", `{"input":[{"content":[{"type":"input_text","text":"a","lang":"en"}]}]}`, 400, api.CodeUnknownField},
		{"/api/v1/sessions/s-404/turns", `{"text":"a"}`, 404, api.CodeUnknownSession},
		{"/api/v1/turns/t-404/inputs", `{"text":"a"}`, 404, api.CodeUnknownTurn},
		{"/api/v1/turns/t-404/cancel", ``, 404, api.CodeUnknownTurn},
		{"/api/v1/turns/t-404/cancel", `{"why":1}`, 400, api.CodeUnknownField},
	}
	for _, c := range cases {
		st, body, _ := e.do("POST", c.path, c.body)
		if st != c.status || field(t, body, "error") != c.code {
			t.Errorf("POST %s %.40q: %d %s, want %d %s", c.path, c.body, st, body, c.status, c.code)
		}
	}
	for _, path := range []string{"/api/v1/turns/t-404", "/api/v1/turns/t-404/events", "/api/v1/sessions/s-404/turns"} {
		st, body, _ := e.do("GET", path, "")
		if st != 404 {
			t.Errorf("GET %s: %d %s", path, st, body)
		}
	}
	st, body, _ := e.do("GET", "/api/v1/turns/t-1/events", "", "Last-Event-ID", "x")
	if st != 400 || field(t, body, "error") != api.CodeBadLastEventID {
		t.Errorf("bad Last-Event-ID: %d %s", st, body)
	}
	st, body, _ = e.do("DELETE", "/api/v1/sessions", "")
	if st != 405 || field(t, body, "error") != api.CodeMethodNotAllowed {
		t.Errorf("DELETE: %d %s", st, body)
	}
	if w := e.writes(); w != writes {
		t.Fatalf("rejected requests wrote %d records", w-writes)
	}
}

func TestOperatorTokenRequired(t *testing.T) {
	e := newEnv(t)
	for _, h := range []string{"", "Bearer", "Bearer wrong", "Basic " + token, "bearer " + token, "Bearer cred-d1"} {
		for _, r := range api.Routes() {
			path := strings.NewReplacer("{session}", "s-1", "{turn}", "t-1", "{agent}", "agent_1").Replace(r.Path)
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

func TestBrokenObservationEndsWithObservationError(t *testing.T) {
	e := newEnv(t)
	stop := e.connect(&scripted.Runtime{Hold: true})
	sid := e.session()
	_, body, _ := e.do("POST", "/api/v1/sessions/"+sid+"/turns", `{"text":"go"}`)
	tid := field(t, body, "turn_id")
	waitState(t, e, tid, "running")
	got := make(chan [][3]string, 1)
	go func() { got <- e.sse("/api/v1/turns/" + tid + "/events") }()
	waitSubscribed(t, e)
	stop() // the Runtime goes away while the Turn runs
	evs := <-got
	if len(evs) != 1 || evs[0][1] != api.EventObservationError || !strings.Contains(evs[0][2], `"error":"disconnected"`) {
		t.Fatalf("events = %v", evs)
	}
	for _, ev := range evs {
		if ev[1] == "done" || ev[1] == "error" {
			t.Fatalf("fabricated %s", ev[1])
		}
	}
	// A late reader of the failed Turn sees the same explicit error.
	late := e.sse("/api/v1/turns/" + tid + "/events")
	if len(late) != 1 || late[0][1] != api.EventObservationError {
		t.Fatalf("late events = %v", late)
	}
}

// waitSubscribed waits until the machine holds a subscriber.
func waitSubscribed(t *testing.T, e *env) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		n := 0
		_ = e.s.Query(context.Background(), func(v server.View) { n = len(v.Machine().Subscribers()) })
		if n > 0 {
			return
		}
	}
	t.Fatal("no subscriber")
}

func TestLimitsAreNamed429(t *testing.T) {
	e := newEnv(t)
	sid := e.session()
	// No Runtime: Turns stay queued until the Session's queue is full.
	var st int
	var body string
	for i := 0; i < 65; i++ {
		st, body, _ = e.do("POST", "/api/v1/sessions/"+sid+"/turns", `{"text":"q"}`)
	}
	if st != 429 || field(t, body, "error") != api.CodeQueueFull {
		t.Fatalf("65th Turn: %d %s", st, body)
	}
	// A queued Turn's event stream waits; the 17th reader is refused.
	var streams []*http.Response
	defer func() {
		for _, r := range streams {
			r.Body.Close()
		}
	}()
	for i := 0; i < 17; i++ {
		req, _ := http.NewRequest("GET", e.ts.URL+"/api/v1/turns/t-1/events", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := e.ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		streams = append(streams, resp)
		if i < 16 && resp.StatusCode != 200 {
			t.Fatalf("stream %d: %d", i, resp.StatusCode)
		}
		if i == 16 {
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 429 || field(t, string(b), "error") != api.CodeSubscriberLimit {
				t.Fatalf("17th stream: %d %s", resp.StatusCode, b)
			}
		}
	}
}
