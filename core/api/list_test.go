package api_test

import (
	"encoding/json"
	"testing"

	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/gateway/scripted"
)

func (e *env) submit(sid string) string {
	e.t.Helper()
	st, body, _ := e.do("POST", "/api/v1/sessions/"+sid+"/turns", `{"text":"q"}`)
	if st != 201 {
		e.t.Fatalf("submit: %d %s", st, body)
	}
	return field(e.t, body, "turn_id")
}

func (e *env) page(path string) api.TurnPage {
	e.t.Helper()
	st, body, _ := e.do("GET", path, "")
	var p api.TurnPage
	if st != 200 || json.Unmarshal([]byte(body), &p) != nil {
		e.t.Fatalf("GET %s: %d %s", path, st, body)
	}
	return p
}

func TestListTurnsPagesInSubmissionOrder(t *testing.T) {
	e := newEnv(t)
	stop := e.connect(&scripted.Runtime{Deltas: 1})
	sid := e.session()
	first := e.submit(sid)
	e.sse("/api/v1/turns/" + first + "/events") // ends when the Turn is terminal
	stop()
	other := e.session()
	foreign := e.submit(other)
	ids := []string{first, e.submit(sid), e.submit(sid)}

	all := e.page("/api/v1/sessions/" + sid + "/turns")
	if len(all.Turns) != 3 || all.NextAfter != "" {
		t.Fatalf("all = %+v", all)
	}
	for i, tj := range all.Turns {
		_, body, _ := e.do("GET", "/api/v1/turns/"+ids[i], "")
		var one api.TurnJSON
		if err := json.Unmarshal([]byte(body), &one); err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(tj)
		b, _ := json.Marshal(one)
		if string(a) != string(b) {
			t.Fatalf("turn %d listed as %s, read as %s", i, a, b)
		}
	}
	if all.Turns[0].State != "completed" || all.Turns[1].State != "queued" {
		t.Fatalf("states %q %q", all.Turns[0].State, all.Turns[1].State)
	}
	p1 := e.page("/api/v1/sessions/" + sid + "/turns?limit=2")
	if len(p1.Turns) != 2 || p1.Turns[0].ID != ids[0] || p1.Turns[1].ID != ids[1] || p1.NextAfter != ids[1] {
		t.Fatalf("page 1 = %+v", p1)
	}
	p2 := e.page("/api/v1/sessions/" + sid + "/turns?limit=2&after=" + p1.NextAfter)
	if len(p2.Turns) != 1 || p2.Turns[0].ID != ids[2] || p2.NextAfter != "" {
		t.Fatalf("page 2 = %+v", p2)
	}
	if o := e.page("/api/v1/sessions/" + other + "/turns"); len(o.Turns) != 1 || o.Turns[0].ID != foreign {
		t.Fatalf("other session = %+v", o)
	}
	empty := e.session()
	_, body, _ := e.do("GET", "/api/v1/sessions/"+empty+"/turns", "")
	if body != `{"turns":[],"session":{"recovery_required":false,"usable":true}}`+"\n" {
		t.Fatalf("empty session lists %s", body)
	}
}

func TestListTurnsRejectsBadQueries(t *testing.T) {
	e := newEnv(t)
	sid := e.session()
	e.submit(sid)
	foreign := e.submit(e.session())
	writes := e.writes()
	base := "/api/v1/sessions/" + sid + "/turns"
	for _, c := range []struct {
		path   string
		status int
		code   string
	}{
		{"/api/v1/sessions/s-404/turns", 404, api.CodeUnknownSession},
		{base + "?limit=0", 400, api.CodeBadLimit},
		{base + "?limit=-1", 400, api.CodeBadLimit},
		{base + "?limit=abc", 400, api.CodeBadLimit},
		{base + "?limit=", 400, api.CodeBadLimit},
		{base + "?limit=1&limit=2", 400, api.CodeBadLimit},
		{base + "?limit=201", 400, api.CodeBadLimit},
		{base + "?after=", 400, api.CodeBadCursor},
		{base + "?after=t-1&after=t-1", 400, api.CodeBadCursor},
		{base + "?after=t-404", 400, api.CodeBadCursor},
		{base + "?after=" + foreign, 400, api.CodeBadCursor},
	} {
		st, body, _ := e.do("GET", c.path, "")
		if st != c.status || field(t, body, "error") != c.code {
			t.Errorf("GET %s: %d %s, want %d %s", c.path, st, body, c.status, c.code)
		}
	}
	if p := e.page(base + "?limit=200"); len(p.Turns) != 1 {
		t.Fatalf("limit=200 = %+v", p)
	}
	if w := e.writes(); w != writes {
		t.Fatalf("listing wrote %d records", w-writes)
	}
}
