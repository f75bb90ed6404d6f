package api_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/gateway/scripted"
)

// turnPage is one page of GET /v1/agents/sessions/{session}/turns.
type turnPage struct {
	Data    []api.TurnObject `json:"data"`
	FirstID *string          `json:"first_id"`
	LastID  *string          `json:"last_id"`
	HasMore bool             `json:"has_more"`
}

func (e *env) page(path string) turnPage {
	e.t.Helper()
	st, body := e.v1("GET", path, "")
	var p turnPage
	if st != 200 || json.Unmarshal([]byte(body), &p) != nil {
		e.t.Fatalf("GET %s: %d %s", path, st, body)
	}
	return p
}

func pageIDs(p turnPage) string {
	var ids []string
	for _, t := range p.Data {
		ids = append(ids, t.ID)
	}
	return strings.Join(ids, ",")
}

// completedTurn starts a Turn in sid and waits for its completion.
func (e *env) completedTurn(sid string) string {
	e.t.Helper()
	tid := e.submit(sid, "q")
	waitState(e.t, e, tid, "completed")
	return tid
}

// A Session's Turns list in submission order, page by page, each as it
// is read alone; another Session's Turns are not listed.
func TestListTurnsPagesInSubmissionOrder(t *testing.T) {
	e := newEnv(t)
	stop := e.connect(&scripted.Runtime{Deltas: 1})
	defer stop()
	sid, other := e.session(), e.session()
	ids := []string{e.completedTurn(sid), e.completedTurn(sid)}
	foreign := e.completedTurn(other)
	ids = append(ids, e.completedTurn(sid))
	base := "/v1/agents/sessions/" + sid + "/turns"
	all := e.page(base + "?order=asc")
	if pageIDs(all) != strings.Join(ids, ",") || all.HasMore {
		t.Fatalf("all = %+v", all)
	}
	for i, tj := range all.Data {
		_, body := e.v1("GET", base+"/"+ids[i], "")
		a, _ := json.Marshal(tj)
		var one api.TurnObject
		_ = json.Unmarshal([]byte(body), &one)
		b, _ := json.Marshal(one)
		if string(a) != string(b) || tj.Status != "completed" {
			t.Fatalf("turn %d listed as %s, read as %s", i, a, b)
		}
	}
	p1 := e.page(base + "?order=asc&limit=2")
	if pageIDs(p1) != ids[0]+","+ids[1] || !p1.HasMore || *p1.LastID != ids[1] {
		t.Fatalf("page 1 = %+v", p1)
	}
	if p2 := e.page(base + "?order=asc&limit=2&after=" + *p1.LastID); pageIDs(p2) != ids[2] || p2.HasMore {
		t.Fatalf("page 2 = %+v", p2)
	}
	if o := e.page("/v1/agents/sessions/" + other + "/turns"); pageIDs(o) != foreign {
		t.Fatalf("other session = %+v", o)
	}
	if _, body := e.v1("GET", "/v1/agents/sessions/"+e.session()+"/turns", ""); !strings.Contains(body, `"data":[]`) {
		t.Fatalf("empty session lists %s", body)
	}
}

func TestListTurnsRejectsBadQueries(t *testing.T) {
	e := newEnv(t)
	stop := e.connect(&scripted.Runtime{Deltas: 1})
	defer stop()
	sid := e.session()
	e.completedTurn(sid)
	foreign := e.completedTurn(e.session())
	writes := e.writes()
	base := "/v1/agents/sessions/" + sid + "/turns"
	for _, c := range []struct {
		path, param string
		status      int
		code        string
	}{
		{"/v1/agents/sessions/s-404/turns", "session_id", 404, api.CodeUnknownSession},
		{base + "?limit=0", "limit", 400, api.CodeBadLimit},
		{base + "?limit=-1", "limit", 400, api.CodeBadLimit},
		{base + "?limit=abc", "limit", 400, api.CodeBadLimit},
		{base + "?limit=", "limit", 400, api.CodeBadLimit},
		{base + "?limit=1&limit=2", "limit", 400, api.CodeInvalidValue},
		{base + "?limit=101", "limit", 400, api.CodeBadLimit},
		{base + "?after=t-1&after=t-1", "after", 400, api.CodeInvalidValue},
		{base + "?after=t-404", "after", 400, api.CodeBadCursor},
		{base + "?after=" + foreign, "after", 400, api.CodeBadCursor},
		{base + "?order=sideways", "order", 400, api.CodeInvalidValue},
		{base + "?colour=red", "colour", 400, api.CodeInvalidValue},
	} {
		st, body := e.v1("GET", c.path, "")
		d := expectV1(t, c.path, st, body, c.status, api.TypeInvalidRequest, c.code)
		if param(d) != c.param {
			t.Errorf("GET %s: param %q, want %q", c.path, param(d), c.param)
		}
	}
	if p := e.page(base + "?limit=100"); len(p.Data) != 1 {
		t.Fatalf("limit=100 = %+v", p)
	}
	if w := e.writes(); w != writes {
		t.Fatalf("listing wrote %d records", w-writes)
	}
}
