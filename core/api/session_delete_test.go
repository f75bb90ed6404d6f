package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/gateway/scripted"
	"github.com/turnstile-sim/turnstile/core/server"
)

// withResources is e's Core behind another API over the resource store
// res (the gateway stays on e): two of them over one store are a restart
// of the shell.
func (e *env) withResources(res api.ResourceStore) *env {
	e.t.Helper()
	a, err := api.New(e.s, api.Options{OperatorToken: token, Keys: testKeys{}, Resources: res})
	if err != nil {
		e.t.Fatal(err)
	}
	mux := http.NewServeMux()
	a.Register(mux)
	ts := httptest.NewServer(mux)
	e.t.Cleanup(ts.Close)
	c := *e
	c.ts = ts
	return &c
}

// sessionGone checks every /v1 route of Session sid answers 404
// unknown_session and the list leaves it out.
func (e *env) sessionGone(sid, tid string) {
	e.t.Helper()
	base := "/v1/agents/sessions/" + sid
	for _, r := range [][3]string{
		{"GET", base, ""},
		{"POST", base, `{"metadata":{"a":"b"}}`},
		{"DELETE", base, ""},
		{"GET", base + "/events", ""},
		{"POST", base + "/events", helloMessage},
		{"POST", base + "/events", `{"events":[{"type":"agent.session.input.cancel"}]}`},
		{"GET", base + "/turns", ""},
		{"GET", base + "/turns/" + tid, ""},
		{"GET", base + "/turns/" + tid + "/items", ""},
		{"GET", base + "/items", ""},
	} {
		st, body := e.v1(r[0], r[1], r[2])
		expectV1(e.t, r[0]+" "+r[1]+" of a deleted session", st, body, 404, api.TypeInvalidRequest, api.CodeUnknownSession)
	}
	st, body := e.v1("GET", "/v1/agents/sessions", "")
	if st != 200 || strings.Contains(body, `"id":"`+sid+`"`) {
		e.t.Fatalf("list shows deleted session %s: %d %s", sid, st, body)
	}
}

func TestSessionDeleteHidesItAndKeepsCoreHistory(t *testing.T) {
	base := newEnv(t)
	stop := base.connect(&scripted.Runtime{Deltas: 1})
	defer stop()
	res := api.NewMemoryResources()
	e := base.withResources(res)
	s := e.v1Session(inlineSession)
	kept := e.v1Session(inlineSession)
	ch, closeStream := e.v1Stream(s.ID, "")
	tid := e.postEvents(s.ID, helloMessage).Receipts[0].TurnID
	until(t, ch, api.EvSessionIdle)
	closeStream()
	writes := e.writes()
	st, body := e.v1("DELETE", "/v1/agents/sessions/"+s.ID, "")
	if st != 200 || body != `{"id":"`+s.ID+`","object":"agent.session.deleted","deleted":true}`+"\n" {
		t.Fatalf("delete: %d %s", st, body)
	}
	if w := e.writes(); w != writes {
		t.Fatalf("a delete wrote %d machine records", w-writes)
	}
	e.sessionGone(s.ID, tid)
	// Core's durable history stays: the machine still has the Session and
	// its Turn, and the operator routes read it.
	var has bool
	_ = e.s.Query(context.Background(), func(v server.View) {
		_, ok := v.Backend().Session(s.ID)
		rec, ok2 := v.Backend().Turn(tid)
		has = ok && ok2 && rec.State == core.TurnCompleted
	})
	if !has {
		t.Fatal("the machine lost the deleted session's history")
	}
	if st, _, _ := e.do("GET", api.OperatorPrefix+"/turns/"+tid, ""); st != 200 {
		t.Fatalf("operator read of a deleted session's turn: %d", st)
	}
	// The other Session is untouched, and listed.
	if st, body := e.v1("GET", "/v1/agents/sessions", ""); st != 200 || !strings.Contains(body, `"id":"`+kept.ID+`"`) {
		t.Fatalf("list: %d %s", st, body)
	}
	// A restarted shell reads the mark from the store.
	e.withResources(res).sessionGone(s.ID, tid)
}

func TestSessionDeleteRefusesAnUnfinishedTurn(t *testing.T) {
	base := newEnv(t)
	stop := base.connect(&scripted.Runtime{Hold: true})
	defer stop()
	res := api.NewMemoryResources()
	e := base.withResources(res)
	s := e.v1Session(`{"agent":{"model":"m","x_agents_core":{"harness":"contract"}},"environment":{"type":"none"},"metadata":{"k":"v"}}`)
	ch, closeStream := e.v1Stream(s.ID, "")
	defer closeStream()
	tid := e.postEvents(s.ID, helloMessage).Receipts[0].TurnID
	until(t, ch, api.EvTurnInProgress)
	record, _, _ := res.GetResource(context.Background(), "session", s.ID)
	writes := e.writes()
	st, body := e.v1("DELETE", "/v1/agents/sessions/"+s.ID, "")
	d := expectV1(t, "delete with a running turn", st, body, 409, api.TypeInvalidRequest, api.CodeSessionActive)
	if !strings.Contains(d.Message, tid) {
		t.Fatalf("refusal names no turn: %+v", d)
	}
	if w := e.writes(); w != writes {
		t.Fatalf("a refused delete wrote %d machine records", w-writes)
	}
	if after, _, _ := res.GetResource(context.Background(), "session", s.ID); string(after) != string(record) {
		t.Fatalf("a refused delete changed the record:\n%s\n%s", record, after)
	}
	var got api.SessionObject
	if st, body := e.v1("GET", "/v1/agents/sessions/"+s.ID, ""); st != 200 || json.Unmarshal([]byte(body), &got) != nil ||
		got.Status != "in_progress" || got.Metadata["k"] != "v" {
		t.Fatalf("after a refused delete: %d %s", st, body)
	}
	// Once the Turn ended the Session can go.
	e.postEvents(s.ID, `{"events":[{"type":"agent.session.input.cancel"}]}`)
	until(t, ch, api.EvSessionIdle)
	if st, body := e.v1("DELETE", "/v1/agents/sessions/"+s.ID, ""); st != 200 {
		t.Fatalf("delete after the turn ended: %d %s", st, body)
	}
	e.sessionGone(s.ID, tid)
}

func TestSessionDeleteOfUnknownAndMachineSessions(t *testing.T) {
	e := newEnv(t)
	st, body := e.v1("DELETE", "/v1/agents/sessions/s-999", "")
	expectV1(t, "delete unknown", st, body, 404, api.TypeInvalidRequest, api.CodeUnknownSession)
	// A Session the machine has and the shell has no record of (created
	// below /v1) is deleted too.
	rep, err := e.s.Call(context.Background(), server.Request{Event: func(c core.CallID) core.Event {
		return core.CreateSession{Call: c, Agent: core.AgentConfig{Kind: "contract", Model: "m", Environment: core.EnvNone}}
	}})
	if err != nil || rep.Result.Err != nil {
		t.Fatal(err, rep.Result.Err)
	}
	sid := rep.Result.Value.(core.SessionCreated).Session
	if st, body := e.v1("GET", "/v1/agents/sessions/"+sid, ""); st != 200 {
		t.Fatalf("retrieve: %d %s", st, body)
	}
	if st, body := e.v1("DELETE", "/v1/agents/sessions/"+sid, ""); st != 200 {
		t.Fatalf("delete: %d %s", st, body)
	}
	e.sessionGone(sid, "t-1")
}
