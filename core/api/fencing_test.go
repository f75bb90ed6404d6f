package api_test

import (
	"context"
	"crypto/sha256"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/gateway/scripted"
	"github.com/turnstile-sim/turnstile/core/server"
)

const quiesceBody = `{"device_id":"d1","environment_id":"env-1"}`

// quiesceWhenConnected waits until Core has read the Runtime's first
// heartbeat (before it a quiesce is refused device_not_connected, an
// answer an Idempotency-Key would keep), then posts a quiesce.
func (e *env) quiesceWhenConnected(body string, header ...string) (int, string, http.Header) {
	e.t.Helper()
	for {
		st, out, _ := e.do("GET", "/core/v1/devices", "")
		if st == 200 && strings.Contains(out, `"connected":true`) && strings.Contains(out, `"last_heartbeat_at"`) {
			break
		}
		runtime.Gosched() // the Runtime's heartbeat is in flight on a real socket
	}
	return e.do("POST", "/core/v1/suspensions", body, header...)
}

// suspensionState polls the suspension until it leaves state from.
func (e *env) suspensionState(id, from string) string {
	e.t.Helper()
	for {
		st, body, _ := e.do("GET", "/core/v1/suspensions/"+id, "")
		if st != 200 {
			e.t.Fatalf("get suspension %s: %d %s", id, st, body)
		}
		if s := field(e.t, body, "state"); s != from {
			return s
		}
		runtime.Gosched()
	}
}

func TestFencingOverHTTP(t *testing.T) {
	e := newEnv(t)
	rt := &scripted.Runtime{}
	stop := e.connect(rt)
	defer stop()
	st, body, _ := e.quiesceWhenConnected(quiesceBody, "Idempotency-Key", "q1")
	if st != 202 || field(t, body, "suspend_id") != "sus-1" {
		t.Fatalf("quiesce: %d %s", st, body)
	}
	st, again, h := e.do("POST", "/core/v1/suspensions", quiesceBody, "Idempotency-Key", "q1")
	if st != 202 || again != body || h.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("retried quiesce: %d %s %v", st, again, h)
	}
	if s := e.suspensionState("sus-1", "quiescing"); s != "quiesced" {
		t.Fatalf("after the Runtime's reply: %s", s)
	}
	if q := rt.Quiesces(); q["sus-1"] != 1 || len(q) != 1 {
		t.Fatalf("quiesce frames: %v", q)
	}
	st, body, _ = e.do("POST", "/core/v1/suspensions", `{"device_id":"d1","environment_id":"env-1"}`)
	if st != 409 || field(t, body, "error") != api.CodeSuspensionConflict {
		t.Fatalf("second quiesce of the Environment: %d %s", st, body)
	}
	st, body, _ = e.do("POST", "/core/v1/suspensions/sus-1/resume", "", "Idempotency-Key", "r1")
	if st != 202 || field(t, body, "suspend_id") != "sus-1" {
		t.Fatalf("resume: %d %s", st, body)
	}
	if s := e.suspensionState("sus-1", "resuming"); s != "resumed" {
		t.Fatalf("after the resume reply: %s", s)
	}
	st, body, _ = e.do("POST", "/core/v1/suspensions/sus-1/resume", `{"rollback":true}`)
	if st != 409 || field(t, body, "error") != api.CodeSuspensionTerminal {
		t.Fatalf("second resume: %d %s", st, body)
	}
	st, again, h = e.do("POST", "/core/v1/suspensions/sus-1/resume", "", "Idempotency-Key", "r1")
	if st != 202 || h.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("retried resume: %d %s", st, again)
	}
	if r := rt.Resumes(); !slices.Equal(r["sus-1"], []bool{false}) || len(r) != 1 {
		t.Fatalf("resume frames (rollback flags): %v", r)
	}
	st, body, _ = e.do("GET", "/core/v1/suspensions/sus-1", "")
	want := `{"suspend_id":"sus-1","device_id":"d1","environment_id":"env-1","state":"resumed","attempts":2,"rollback":false}` + "\n"
	if st != 200 || body != want {
		t.Fatalf("suspension: %d %s, want %s", st, body, want)
	}
}

// TestFencingRefusals: every bad request is a named error, and none
// records or sends anything.
func TestFencingRefusals(t *testing.T) {
	e := newEnv(t)
	rt := &scripted.Runtime{}
	st, body, _ := e.do("POST", "/core/v1/suspensions", quiesceBody)
	if st != 409 || field(t, body, "error") != api.CodeDeviceNotConnected {
		t.Fatalf("quiesce without a connection: %d %s", st, body)
	}
	stop := e.connect(rt)
	defer stop()
	big := `{"device_id":"d1","environment_id":"` + strings.Repeat("e", api.BodyBytesMax) + `"}`
	for _, c := range []struct {
		name, method, path, body string
		status                   int
		code                     string
	}{
		{"not json", "POST", "/core/v1/suspensions", `{`, 400, api.CodeBadJSON},
		{"empty body", "POST", "/core/v1/suspensions", ``, 400, api.CodeBadJSON},
		{"trailing data", "POST", "/core/v1/suspensions", quiesceBody + `{}`, 400, api.CodeBadJSON},
		{"wrong type", "POST", "/core/v1/suspensions", `{"device_id":1,"environment_id":"e"}`, 400, api.CodeBadJSON},
		{"unknown member", "POST", "/core/v1/suspensions", `{"device_id":"d1","environment_id":"e","force":true}`, 400, api.CodeUnknownField},
		{"oversize", "POST", "/core/v1/suspensions", big, 413, api.CodeBodyTooLarge},
		{"no device", "POST", "/core/v1/suspensions", `{"environment_id":"e"}`, 400, api.CodeInvalidFencingRequest},
		{"blank device", "POST", "/core/v1/suspensions", `{"device_id":" ","environment_id":"e"}`, 400, api.CodeInvalidFencingRequest},
		{"no environment", "POST", "/core/v1/suspensions", `{"device_id":"d1"}`, 400, api.CodeInvalidFencingRequest},
		{"control character", "POST", "/core/v1/suspensions", `{"device_id":"d1","environment_id":"e\n1"}`, 400, api.CodeInvalidFencingRequest},
		{"long environment", "POST", "/core/v1/suspensions", `{"device_id":"d1","environment_id":"` + strings.Repeat("e", 257) + `"}`, 400, api.CodeInvalidFencingRequest},
		{"unknown device", "POST", "/core/v1/suspensions", `{"device_id":"d9","environment_id":"e"}`, 409, api.CodeDeviceNotConnected},
		{"resume not json", "POST", "/core/v1/suspensions/sus-1/resume", `rollback`, 400, api.CodeBadJSON},
		{"resume wrong type", "POST", "/core/v1/suspensions/sus-1/resume", `{"rollback":"yes"}`, 400, api.CodeBadJSON},
		{"resume unknown member", "POST", "/core/v1/suspensions/sus-1/resume", `{"now":true}`, 400, api.CodeUnknownField},
		{"resume unknown", "POST", "/core/v1/suspensions/sus-1/resume", `{}`, 404, api.CodeUnknownSuspension},
		{"read unknown", "GET", "/core/v1/suspensions/sus-1", ``, 404, api.CodeUnknownSuspension},
		{"wrong method", "DELETE", "/core/v1/suspensions/sus-1", ``, 405, api.CodeMethodNotAllowed},
	} {
		st, body, _ := e.do(c.method, c.path, c.body)
		if st != c.status || field(t, body, "error") != c.code {
			t.Errorf("%s: %d %s, want %d %s", c.name, st, body, c.status, c.code)
		}
	}
	req, _ := http.NewRequest("POST", e.ts.URL+"/core/v1/suspensions", strings.NewReader(quiesceBody))
	req.Header.Set("Authorization", "Bearer cred-d1") // a device credential is no operator token
	resp, err := e.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Fatalf("quiesce with a device credential: %d", resp.StatusCode)
	}
	if q, r := rt.Quiesces(), rt.Resumes(); len(q) != 0 || len(r) != 0 {
		t.Fatalf("a refused request reached the Runtime: %v %v", q, r)
	}
	// Nothing was recorded: the first accepted quiesce is still sus-1.
	st, body, _ = e.quiesceWhenConnected(quiesceBody)
	if st != 202 || field(t, body, "suspend_id") != "sus-1" {
		t.Fatalf("first accepted quiesce: %d %s", st, body)
	}
}

// noFencing is a backend that keeps no suspension records.
type noFencing struct{ server.Backend }

func TestFencingUnavailableWithoutTheTable(t *testing.T) {
	back := server.NewMemory()
	_ = back.AddDevice("d1", sha256.Sum256([]byte("cred-d1")), time.Now())
	s, err := server.New(noFencing{back}, server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- s.Run(ctx) }()
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	defer func() { cancel(); <-ran; ts.Close() }()
	a, _ := api.New(s, api.Options{OperatorToken: token})
	a.Register(mux)
	e := &env{t: t, back: back, s: s, ts: ts}
	for path, body := range map[string]string{"/core/v1/suspensions": quiesceBody, "/core/v1/suspensions/sus-1/resume": ""} {
		st, out, _ := e.do("POST", path, body)
		if st != 503 || field(t, out, "error") != api.CodeFencingUnavailable {
			t.Fatalf("POST %s without a suspension table: %d %s", path, st, out)
		}
	}
}

// TestOperatorRoutesUnderCorePrefix: the device list and suspension
// fencing are served under /core/v1 only; their former /api/v1 paths are
// not routes any more (404, nothing recorded), while the Runtime gateway
// and the Session routes keep /api/v1.
func TestOperatorRoutesUnderCorePrefix(t *testing.T) {
	e := newEnv(t)
	var operator int
	for _, r := range api.Routes() {
		switch {
		case strings.HasPrefix(r.Path, api.OperatorPrefix+"/"):
			operator++
		case strings.Contains(r.Path, "/devices"), strings.Contains(r.Path, "/suspensions"):
			t.Errorf("operator route %s %s outside %s", r.Method, r.Path, api.OperatorPrefix)
		}
	}
	if operator != 18 {
		t.Fatalf("%d routes under %s, want the four suspension routes, the three device routes, the three key routes, kinds, preparations and the six Session operations", operator, api.OperatorPrefix)
	}
	if st, body, _ := e.do("GET", "/core/v1/devices", ""); st != 200 || !strings.Contains(body, `"devices"`) {
		t.Fatalf("GET /core/v1/devices: %d %s", st, body)
	}
	writes := e.writes()
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/api/v1/devices", ""},
		{"POST", "/api/v1/suspensions", quiesceBody},
		{"GET", "/api/v1/suspensions/sus-1", ""},
		{"POST", "/api/v1/suspensions/sus-1/resume", `{}`},
	} {
		if st, body, _ := e.do(c.method, c.path, c.body); st != 404 {
			t.Errorf("%s %s: %d %s, want 404", c.method, c.path, st, body)
		}
	}
	if w := e.writes(); w != writes {
		t.Fatalf("calls on the former paths wrote %d records", w-writes)
	}
}
