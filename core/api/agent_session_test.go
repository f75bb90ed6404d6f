package api_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/gateway/scripted"
)

const inlineSession = `{"agent":{"model":"m","x_agents_core":{"harness":"contract"}},"environment":{"type":"none"}}`

func (e *env) v1Session(body string) api.SessionObject {
	e.t.Helper()
	st, out := e.v1("POST", "/v1/agents/sessions", body)
	var s api.SessionObject
	if st != 200 || json.Unmarshal([]byte(out), &s) != nil || s.Object != "agent.session" {
		e.t.Fatalf("create session: %d %s", st, out)
	}
	return s
}

// sseEvent is one event of a /v1 session stream.
type sseEvent struct {
	ID, Type string
	Data     map[string]any
}

// v1Stream opens the session's event stream (after lastID when given)
// and returns its events as they come; stop closes it.
func (e *env) v1Stream(sid, lastID string) (<-chan sseEvent, func()) {
	e.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", e.ts.URL+"/v1/agents/sessions/"+sid+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+apiKey)
	req.Header.Set("Accept", "text/event-stream")
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := e.ts.Client().Do(req)
	if err != nil {
		cancel()
		e.t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		cancel()
		e.t.Fatalf("stream: %d", resp.StatusCode)
	}
	ch := make(chan sseEvent, 256)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(ch)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var cur sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				ch <- cur
				cur = sseEvent{}
			case strings.HasPrefix(line, "id: "):
				cur.ID = line[4:]
			case strings.HasPrefix(line, "event: "):
				cur.Type = line[7:]
			case strings.HasPrefix(line, "data: "):
				_ = json.Unmarshal([]byte(line[6:]), &cur.Data)
			}
		}
	}()
	return ch, func() { cancel(); <-done }
}

// until reads events until one of type typ (failing after 10 s).
func until(t *testing.T, ch <-chan sseEvent, typ string) []sseEvent {
	t.Helper()
	var got []sseEvent
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatalf("stream ended before %s: %v", typ, types(got))
			}
			got = append(got, ev)
			if ev.Type == typ {
				return got
			}
		case <-timeout:
			t.Fatalf("no %s in 10 s: %v", typ, types(got))
		}
	}
}

func types(evs []sseEvent) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Type)
	}
	return out
}

func (e *env) postEvents(sid, body string, header ...string) api.EventsReceipt {
	e.t.Helper()
	st, out := e.v1("POST", "/v1/agents/sessions/"+sid+"/events", body, header...)
	var r api.EventsReceipt
	if st != 200 || json.Unmarshal([]byte(out), &r) != nil {
		e.t.Fatalf("post events %s: %d %s", body, st, out)
	}
	return r
}

const helloMessage = `{"events":[{"type":"agent.session.input.message","input":[{"role":"user","content":[{"type":"input_text","text":"hello"}]}]}]}`

func TestSessionsCreateRetrieveUpdateListDelete(t *testing.T) {
	e := newEnv(t)
	_, body := e.v1("POST", "/v1/agents", v1AgentBody)
	agentID := decodeAgent(t, body).ID
	s := e.v1Session(`{"agent_id":"` + agentID + `","environment":{"type":"none"},"metadata":{"k":"v"}}`)
	if s.Agent.ID == nil || *s.Agent.ID != agentID || s.Agent.Model != "gpt-test" || *s.Agent.Instructions != "be brief" ||
		s.Agent.XAgentsCore.Harness != "contract" || s.Status != "idle" || s.Metadata["k"] != "v" ||
		string(s.Environment) != `{"type":"none"}` || len(s.RequiredActions) != 0 || len(s.VaultIDs) != 0 {
		t.Fatalf("session %+v", s)
	}
	// The Session froze the Agent: a later update of the Agent does not reach it.
	e.v1("POST", "/v1/agents/"+agentID, `{"model":"other","instructions":null}`)
	st, got := e.v1("GET", "/v1/agents/sessions/"+s.ID, "")
	var rs api.SessionObject
	if st != 200 || json.Unmarshal([]byte(got), &rs) != nil || rs.Agent.Model != "gpt-test" || *rs.Agent.Instructions != "be brief" {
		t.Fatalf("retrieve: %d %s", st, got)
	}
	st, got = e.v1("POST", "/v1/agents/sessions/"+s.ID, `{"metadata":{"a":"b"}}`)
	if st != 200 || !strings.Contains(got, `"metadata":{"a":"b"}`) {
		t.Fatalf("update: %d %s", st, got)
	}
	st, got = e.v1("POST", "/v1/agents/sessions/"+s.ID, `{"agent":{"model":"x"}}`)
	expectV1(t, "update agent", st, got, 400, api.TypeInvalidRequest, api.CodeNotSupported)
	// An Agent without harness_config or tools freezes none.
	_, body = e.v1("POST", "/v1/agents", `{"model":"plain","x_agents_core":{"harness":"contract"}}`)
	plain := e.v1Session(`{"agent_id":"` + decodeAgent(t, body).ID + `","environment":{"type":"none"}}`)
	if plain.Agent.Model != "plain" || string(plain.Agent.XAgentsCore.HarnessConfig) != "null" {
		t.Fatalf("plain session %+v", plain.Agent)
	}
	s2 := e.v1Session(inlineSession)
	s3 := e.v1Session(inlineSession)
	if s2.Agent.ID != nil {
		t.Fatalf("inline agent has an ID: %+v", s2.Agent)
	}
	st, got = e.v1("GET", "/v1/agents/sessions?limit=2", "")
	if st != 200 || !strings.Contains(got, `"first_id":"`+s3.ID+`"`) || !strings.Contains(got, `"last_id":"`+s2.ID+`"`) ||
		!strings.Contains(got, `"has_more":true`) {
		t.Fatalf("list: %d %s", st, got)
	}
	st, got = e.v1("GET", "/v1/agents/sessions?limit=2&after="+s2.ID, "")
	if st != 200 || !strings.Contains(got, `"first_id":"`+plain.ID+`"`) || !strings.Contains(got, `"last_id":"`+s.ID+`"`) || !strings.Contains(got, `"has_more":false`) {
		t.Fatalf("page 2: %d %s", st, got)
	}
	st, got = e.v1("GET", "/v1/agents/sessions?agent_id="+agentID, "")
	if st != 200 || strings.Count(got, `"object":"agent.session"`) != 1 || !strings.Contains(got, s.ID) {
		t.Fatalf("by agent: %d %s", st, got)
	}
	st, got = e.v1("GET", "/v1/agents/sessions?after=s-999", "")
	expectV1(t, "bad cursor", st, got, 400, api.TypeInvalidRequest, api.CodeBadCursor)
	st, got = e.v1("DELETE", "/v1/agents/sessions/"+s.ID, "")
	if st != 200 || !strings.Contains(got, `"object":"agent.session.deleted","deleted":true`) {
		t.Fatalf("delete: %d %s", st, got)
	}
	st, got = e.v1("GET", "/v1/agents/sessions/"+s.ID, "")
	expectV1(t, "retrieve deleted", st, got, 404, api.TypeInvalidRequest, api.CodeUnknownSession)
	for _, m := range []string{"GET", "DELETE"} {
		st, got = e.v1(m, "/v1/agents/sessions/s-999", "")
		expectV1(t, m+" unknown", st, got, 404, api.TypeInvalidRequest, api.CodeUnknownSession)
	}
	st, got = e.v1("POST", "/v1/agents/sessions/s-999", `{"metadata":{}}`)
	expectV1(t, "update unknown", st, got, 404, api.TypeInvalidRequest, api.CodeUnknownSession)
}

func TestSessionCreateRefusesBadInput(t *testing.T) {
	e := newEnv(t)
	writes := e.writes()
	for _, c := range []struct {
		name, body, code, param string
		st                      int
	}{
		{"malformed", `{"environment":`, api.CodeBadJSON, "", 400},
		{"unknown member", `{"environment":{"type":"none"},"agent_id":"a","colour":1}`, api.CodeUnknownField, "colour", 400},
		{"no agent", `{"environment":{"type":"none"}}`, api.CodeInvalidValue, "agent", 400},
		{"both agents", `{"environment":{"type":"none"},"agent_id":"a","agent":{"model":"m"}}`, api.CodeInvalidValue, "agent", 400},
		{"unknown agent", `{"environment":{"type":"none"},"agent_id":"agent_nothing"}`, api.CodeUnknownAgent, "agent_id", 404},
		{"no environment", `{"agent":{"model":"m","x_agents_core":{"harness":"contract"}}}`, api.CodeInvalidValue, "environment", 400},
		{"environment type", `{"agent":{"model":"m","x_agents_core":{"harness":"contract"}},"environment":{"type":"moon"}}`, api.CodeInvalidValue, "environment.type", 400},
		{"self hosted", `{"agent":{"model":"m","x_agents_core":{"harness":"contract"}},"environment":{"type":"self_hosted","workspace_directory":"/w"}}`, api.CodeNotSupported, "environment.workspace_directory", 400},
		{"inline name", `{"agent":{"model":"m","name":"n","x_agents_core":{"harness":"contract"}},"environment":{"type":"none"}}`, api.CodeUnknownField, "agent.name", 400},
		{"inline x_agents_core member", `{"agent":{"model":"m","x_agents_core":{"harness":"contract","gpu":1}},"environment":{"type":"none"}}`, api.CodeUnknownField, "agent.x_agents_core.gpu", 400},
		{"inline without harness", `{"agent":{"model":"m"},"environment":{"type":"none"}}`, api.CodeInvalidValue, "agent.x_agents_core.harness", 400},
		{"inline provider key", `{"agent":{"model":"m","x_agents_core":{"harness":"contract","model_provider":{"protocol":"p","base_url":"u","api_key":"sk-SECRET"}}},"environment":{"type":"none"}}`, api.CodeNotSupported, "agent.x_agents_core.model_provider.api_key", 400},
		{"unqualified harness", `{"agent":{"model":"m","x_agents_core":{"harness":"no-such"}},"environment":{"type":"none"}}`, api.CodeEngineUnqualified, "", 400},
		{"empty input", `{"agent":{"model":"m","x_agents_core":{"harness":"contract"}},"environment":{"type":"none"},"input":""}`, api.CodeInvalidInput, "input", 400},
		{"input role", `{"agent":{"model":"m","x_agents_core":{"harness":"contract"}},"environment":{"type":"none"},"input":[{"role":"assistant","content":[{"type":"input_text","text":"x"}]}]}`, api.CodeInvalidInput, "input[0]", 400},
		{"input part", `{"agent":{"model":"m","x_agents_core":{"harness":"contract"}},"environment":{"type":"none"},"input":[{"role":"user","content":[{"type":"input_audio"}]}]}`, api.CodeInvalidInput, "input[0].content[0]", 400},
		{"stream options without stream", `{"agent":{"model":"m","x_agents_core":{"harness":"contract"}},"environment":{"type":"none"},"stream_options":{}}`, api.CodeInvalidValue, "stream_options", 400},
		{"stream options member", `{"agent":{"model":"m","x_agents_core":{"harness":"contract"}},"environment":{"type":"none"},"stream":true,"stream_options":{"colour":1}}`, api.CodeUnknownField, "stream_options.colour", 400},
		{"review", `{"agent":{"model":"m","x_agents_core":{"harness":"contract"}},"environment":{"type":"none"},"review":"auto_review"}`, api.CodeNotSupported, "review", 400},
		{"metadata", `{"agent":{"model":"m","x_agents_core":{"harness":"contract"}},"environment":{"type":"none"},"metadata":{"k":7}}`, api.CodeBadJSON, "metadata", 400},
	} {
		st, body := e.v1("POST", "/v1/agents/sessions", c.body)
		d := expectV1(t, c.name, st, body, c.st, api.TypeInvalidRequest, c.code)
		if param(d) != c.param {
			t.Errorf("%s: param %q, want %q (%s)", c.name, param(d), c.param, body)
		}
		if strings.Contains(body, "SECRET") {
			t.Fatalf("%s echoes a key: %s", c.name, body)
		}
	}
	if w := e.writes(); w != writes {
		t.Fatalf("refused sessions wrote %d records", w-writes)
	}
	st, body := e.v1("GET", "/v1/agents/sessions", "")
	if st != 200 || !strings.Contains(body, `"data":[]`) {
		t.Fatalf("sessions after refusals: %s", body)
	}
}

// A Turn through /v1: the stream opened before the message sees the
// Turn created, in progress, its output text, completed, then idle, each
// with the persisted cursor as its ID; Last-Event-ID resumes after one.
func TestSessionTurnStreamsToIdle(t *testing.T) {
	e := newEnv(t)
	stop := e.connect(&scripted.Runtime{Deltas: 2})
	defer stop()
	s := e.v1Session(inlineSession)
	ch, close := e.v1Stream(s.ID, "")
	r := e.postEvents(s.ID, helloMessage)
	if len(r.Receipts) != 1 || r.Receipts[0].Action != "turn_started" || r.Receipts[0].TurnID == "" {
		t.Fatalf("receipt %+v", r)
	}
	tid := r.Receipts[0].TurnID
	evs := until(t, ch, api.EvSessionIdle)
	close()
	want := []string{api.EvTurnCreated, api.EvTurnInProgress, api.EvOutputTextDelta, api.EvOutputTextDelta,
		api.EvOutputTextDone, api.EvItemDone, api.EvTurnCompleted, api.EvSessionIdle}
	if fmt.Sprint(types(evs)) != fmt.Sprint(want) {
		t.Fatalf("events %v\nwant   %v", types(evs), want)
	}
	ids := map[string]bool{}
	for _, ev := range evs {
		if ev.Data["event_id"] != ev.ID || ev.Data["type"] != ev.Type || ids[ev.ID] {
			t.Fatalf("event %+v: event_id must be its unique SSE id", ev)
		}
		ids[ev.ID] = true
		if ev.Type != api.EvSessionIdle && ev.Data["turn_id"] != tid {
			t.Fatalf("event %+v of another turn", ev)
		}
	}
	if evs[2].Data["delta"] != "d1 " || evs[3].Data["delta"] != "d2 " || evs[4].Data["text"] != "echo: hello" {
		t.Fatalf("text events %+v", evs[2:5])
	}
	turn := evs[0].Data["turn"].(map[string]any)
	if turn["subagent_id"] != nil || turn["object"] != "agent.session.turn" || turn["status"] == "" {
		t.Fatalf("created turn %+v", turn)
	}
	if msg := evs[5].Data["item"].(map[string]any); msg["type"] != "message" || msg["role"] != "assistant" || msg["status"] != "completed" {
		t.Fatalf("final message %+v", msg)
	}
	if done := evs[6].Data["turn"].(map[string]any); done["status"] != "completed" || done["error"] != nil {
		t.Fatalf("completed turn %+v", done)
	}
	if sess := evs[7].Data["session"].(map[string]any); sess["status"] != "idle" || sess["id"] != s.ID {
		t.Fatalf("idle session %+v", sess)
	}
	// Resume after the first delta: the rest, nothing repeated.
	ch, close = e.v1Stream(s.ID, evs[2].ID)
	rest := until(t, ch, api.EvSessionIdle)
	close()
	if fmt.Sprint(types(rest)) != fmt.Sprint(want[3:]) || rest[0].ID != evs[3].ID {
		t.Fatalf("resumed %v", types(rest))
	}
	// The Turn and its items.
	st, body := e.v1("GET", "/v1/agents/sessions/"+s.ID+"/turns/"+tid, "")
	if st != 200 || !strings.Contains(body, `"status":"completed"`) || !strings.Contains(body, `"session_id":"`+s.ID+`"`) {
		t.Fatalf("turn: %d %s", st, body)
	}
	st, body = e.v1("GET", "/v1/agents/sessions/"+s.ID+"/turns/"+tid+"/items?order=asc", "")
	if st != 200 || !strings.Contains(body, `"role":"user"`) || !strings.Contains(body, `"text":"hello"`) ||
		!strings.Contains(body, `"role":"assistant"`) || !strings.Contains(body, `"text":"echo: hello"`) {
		t.Fatalf("items: %d %s", st, body)
	}
	// A stream opened on an idle Session waits for the next Turn.
	ch, close = e.v1Stream(s.ID, "")
	r = e.postEvents(s.ID, helloMessage)
	next := until(t, ch, api.EvSessionIdle)
	close()
	if next[0].Type != api.EvTurnCreated || next[0].Data["turn_id"] != r.Receipts[0].TurnID {
		t.Fatalf("next turn's stream %v", types(next))
	}
	st, body = e.v1("GET", "/v1/agents/sessions/"+s.ID+"/turns?limit=1", "")
	if st != 200 || !strings.Contains(body, `"first_id":"`+r.Receipts[0].TurnID+`"`) || !strings.Contains(body, `"has_more":true`) {
		t.Fatalf("turns page: %d %s", st, body)
	}
	st, body = e.v1("GET", "/v1/agents/sessions/"+s.ID+"/events", "", "Last-Event-ID", "t-999:0:0:0:0")
	expectV1(t, "bad Last-Event-ID", st, body, 400, api.TypeInvalidRequest, api.CodeBadLastEventV1)
}

// A message while a Turn runs is steered into it (its receipt names the
// input, whose state shows in the Turn's items); cancel cancels the
// running Turn; a cancel once it finished is 409 turn_terminal.
func TestSessionSteerAndCancel(t *testing.T) {
	e := newEnv(t)
	stop := e.connect(&scripted.Runtime{Hold: true})
	defer stop()
	s := e.v1Session(inlineSession)
	st, body := e.v1("POST", "/v1/agents/sessions/"+s.ID+"/events", `{"events":[{"type":"agent.session.input.cancel"}]}`)
	expectV1(t, "cancel without turn", st, body, 409, api.TypeInvalidRequest, api.CodeNoTurn)
	ch, close := e.v1Stream(s.ID, "")
	defer close()
	tid := e.postEvents(s.ID, helloMessage).Receipts[0].TurnID
	until(t, ch, api.EvTurnInProgress)
	r := e.postEvents(s.ID, `{"events":[{"type":"agent.session.input.message","input":"and more"}]}`)
	if rc := r.Receipts[0]; rc.Action != "steered" || rc.TurnID != tid || rc.InputID == "" {
		t.Fatalf("steer receipt %+v", rc)
	}
	e.waitTurn(tid, "accepted the steer", func(tj api.TurnJSON) bool { return len(tj.Inputs) == 1 && tj.Inputs[0].State == "accepted" })
	st, body = e.v1("GET", "/v1/agents/sessions/"+s.ID+"/items?order=asc", "")
	if st != 200 || !strings.Contains(body, `"text":"and more"`) || !strings.Contains(body, `"x_agents_core":{"input_id":"1","state":"accepted"}`) {
		t.Fatalf("items with the steer: %d %s", st, body)
	}
	r = e.postEvents(s.ID, `{"events":[{"type":"agent.session.input.cancel"}]}`, "Idempotency-Key", "cancel-1")
	if rc := r.Receipts[0]; rc.Action != "cancel_requested" || rc.TurnID != tid {
		t.Fatalf("cancel receipt %+v", rc)
	}
	evs := until(t, ch, api.EvSessionIdle)
	if got := types(evs); got[len(got)-2] != api.EvTurnCancelled {
		t.Fatalf("cancel stream %v", got)
	}
	// A retry with the same key gets the first answer back.
	if r2 := e.postEvents(s.ID, `{"events":[{"type":"agent.session.input.cancel"}]}`, "Idempotency-Key", "cancel-1"); fmt.Sprint(r2) != fmt.Sprint(r) {
		t.Fatalf("replayed %+v, want %+v", r2, r)
	}
	writes := e.writes()
	st, body = e.v1("POST", "/v1/agents/sessions/"+s.ID+"/events", `{"events":[{"type":"agent.session.input.cancel"}]}`)
	expectV1(t, "cancel of a finished turn", st, body, 409, api.TypeInvalidRequest, api.CodeTurnTerminal)
	if w := e.writes(); w != writes {
		t.Fatalf("a refused cancel wrote %d records", w-writes)
	}
}

func TestSessionEventsRefuseBadInput(t *testing.T) {
	e := newEnv(t)
	s := e.v1Session(inlineSession)
	writes := e.writes()
	for _, c := range []struct{ name, body, code, param string }{
		{"malformed", `{"events":[`, api.CodeBadJSON, ""},
		{"no events", `{"events":[]}`, api.CodeInvalidInput, "events"},
		{"unknown type", `{"events":[{"type":"agent.session.input.dance"}]}`, api.CodeInvalidValue, "events[0].type"},
		{"unknown member", `{"events":[{"type":"agent.session.input.cancel","colour":1}]}`, api.CodeUnknownField, "colour"},
		{"foreign member", `{"events":[{"type":"agent.session.input.cancel","call_id":"c"}]}`, api.CodeUnknownField, "events[0]"},
		{"message without input", `{"events":[{"type":"agent.session.input.message"}]}`, api.CodeInvalidInput, "events[0].input"},
		{"tool result without turn", `{"events":[{"type":"agent.session.input.tool_result","call_id":"c","success":true}]}`, api.CodeInvalidInput, "events[0]"},
		{"approval decision", `{"events":[{"type":"agent.session.input.mcp_approval_request_result","request_id":"r","response":{"type":"mcp_tool_call","decision":"maybe"}}]}`, api.CodeInvalidInput, "events[0].response.decision"},
		{"computer use", `{"events":[{"type":"agent.session.input.computer_use_approval_request_result"}]}`, api.CodeNotSupported, "events[0].type"},
		{"second event bad", `{"events":[{"type":"agent.session.input.cancel"},{"type":"x"}]}`, api.CodeInvalidValue, "events[1].type"},
	} {
		st, body := e.v1("POST", "/v1/agents/sessions/"+s.ID+"/events", c.body)
		d := expectV1(t, c.name, st, body, 400, api.TypeInvalidRequest, c.code)
		if param(d) != c.param {
			t.Errorf("%s: param %q, want %q", c.name, param(d), c.param)
		}
	}
	st, body := e.v1("POST", "/v1/agents/sessions/s-999/events", helloMessage)
	expectV1(t, "unknown session", st, body, 404, api.TypeInvalidRequest, api.CodeUnknownSession)
	st, body = e.v1("POST", "/v1/agents/sessions/"+s.ID+"/events",
		`{"events":[{"type":"agent.session.input.tool_result","call_id":"c","turn_id":"t-77","success":true}]}`)
	expectV1(t, "unknown turn", st, body, 404, api.TypeInvalidRequest, api.CodeUnknownTurn)
	st, body = e.v1("POST", "/v1/agents/sessions/"+s.ID+"/events",
		`{"events":[{"type":"agent.session.input.mcp_approval_request_result","request_id":"r","response":{"type":"mcp_tool_call","decision":"approve"}}]}`)
	expectV1(t, "unknown request", st, body, 404, api.TypeInvalidRequest, api.CodeUnknownInteraction)
	if w := e.writes(); w != writes {
		t.Fatalf("refused events wrote %d records", w-writes)
	}
}

// A function call and a permission request show as requires_action (the
// call also as a function_call item); the tool result and the approval
// reach the Runtime as the function result and the permission decision.
func TestSessionRequiresActionAnswered(t *testing.T) {
	e := newEnv(t)
	p := newAskPeer(false)
	stop := e.connectPeer(p)
	defer stop()
	s := e.v1Session(inlineSession)
	ch, close := e.v1Stream(s.ID, "")
	defer close()
	tid := e.postEvents(s.ID, helloMessage).Receipts[0].TurnID
	evs := until(t, ch, api.EvRequiresAction)
	evs = append(evs, until(t, ch, api.EvRequiresAction)...)
	var call map[string]any
	for _, ev := range evs {
		if ev.Type == api.EvItemAdded {
			call = ev.Data["item"].(map[string]any)
		}
	}
	if call == nil || call["type"] != "function_call" || call["call_id"] != "call-1" || call["name"] != "lookup" || call["turn_id"] != tid {
		t.Fatalf("function call item %+v in %v", call, types(evs))
	}
	st, body := e.v1("GET", "/v1/agents/sessions/"+s.ID, "")
	if st != 200 || !strings.Contains(body, `"status":"requires_action"`) || !strings.Contains(body, `"call_id":"call-1"`) ||
		!strings.Contains(body, `"request_id":"perm-1"`) {
		t.Fatalf("session: %d %s", st, body)
	}
	r := e.postEvents(s.ID, `{"events":[{"type":"agent.session.input.tool_result","call_id":"call-1","turn_id":"`+tid+`","success":true,"output":"42"},`+
		`{"type":"agent.session.input.mcp_approval_request_result","request_id":"perm-1","response":{"type":"mcp_tool_call","decision":"approve"}}]}`)
	if len(r.Receipts) != 2 || r.Receipts[0].Action != "function_result" || r.Receipts[0].DeliveryID == "" ||
		r.Receipts[1].Action != "permission_decision" || r.Receipts[1].TurnID != tid {
		t.Fatalf("receipts %+v", r)
	}
	e.waitTurn(tid, "applied both", func(tj api.TurnJSON) bool {
		return statusIs("call-1", "applied")(tj) && statusIs("perm-1", "applied")(tj)
	})
	st, body = e.v1("GET", "/v1/agents/sessions/"+s.ID+"/items?order=asc", "")
	if st != 200 || !strings.Contains(body, `"type":"function_call_output"`) || !strings.Contains(body, `"text":"42"`) {
		t.Fatalf("items: %d %s", st, body)
	}
	// The answered call cannot be answered again: the machine's code.
	st, body = e.v1("POST", "/v1/agents/sessions/"+s.ID+"/events",
		`{"events":[{"type":"agent.session.input.tool_result","call_id":"call-1","turn_id":"`+tid+`","success":true}]}`)
	expectV1(t, "answered twice", st, body, 409, api.TypeInvalidRequest, api.CodeInteractionClosed)
}

// sseAll sends a /v1 POST and reads its event stream to the end.
func (e *env) sseAll(path, body string) []sseEvent {
	e.t.Helper()
	req, _ := http.NewRequest("POST", e.ts.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+apiKey)
	resp, err := e.ts.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		e.t.Fatalf("stream: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			out = append(out, cur)
			cur = sseEvent{}
		case strings.HasPrefix(line, "id: "):
			cur.ID = line[4:]
		case strings.HasPrefix(line, "event: "):
			cur.Type = line[7:]
		case strings.HasPrefix(line, "data: "):
			_ = json.Unmarshal([]byte(line[6:]), &cur.Data)
		}
	}
	return out
}

// A create with stream: true answers the creation and the first Turn's
// events up to idle, then ends; without input, created and idle.
func TestSessionCreateStreams(t *testing.T) {
	e := newEnv(t)
	stop := e.connect(&scripted.Runtime{Deltas: 1})
	defer stop()
	evs := e.sseAll("/v1/agents/sessions", `{"agent":{"model":"m","x_agents_core":{"harness":"contract"}},"environment":{"type":"none"},`+
		`"input":"hello","stream":true,"stream_options":{"include_obfuscation":false}}`)
	want := []string{api.EvSessionCreated, api.EvTurnCreated, api.EvTurnInProgress, api.EvOutputTextDelta, api.EvOutputTextDone,
		api.EvItemDone, api.EvTurnCompleted, api.EvSessionIdle}
	if fmt.Sprint(types(evs)) != fmt.Sprint(want) {
		t.Fatalf("events %v\nwant   %v", types(evs), want)
	}
	sess := evs[0].Data["session"].(map[string]any)
	if sess["object"] != "agent.session" || evs[1].Data["session_id"] != sess["id"] {
		t.Fatalf("created %+v", evs[0].Data)
	}
	evs = e.sseAll("/v1/agents/sessions", `{"agent":{"model":"m","x_agents_core":{"harness":"contract"}},"environment":{"type":"none"},"stream":true}`)
	if fmt.Sprint(types(evs)) != fmt.Sprint([]string{api.EvSessionCreated, api.EvSessionIdle}) {
		t.Fatalf("without input %v", types(evs))
	}
}
