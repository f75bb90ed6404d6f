package api_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
	"github.com/turnstile-sim/turnstile/core/gateway"
	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/internal/pipenet"
	"github.com/turnstile-sim/turnstile/wire"
)

// turnView reads the Turn through the API.
func (e *env) turnView(tid string) api.TurnJSON {
	e.t.Helper()
	st, body, _ := e.do("GET", "/core/v1/turns/"+tid, "")
	var tj api.TurnJSON
	if st != 200 || json.Unmarshal([]byte(body), &tj) != nil {
		e.t.Fatalf("get turn %s: %d %s", tid, st, body)
	}
	return tj
}

// ixOf returns interaction id of a Turn view, failing when it is absent.
func ixOf(t *testing.T, tj api.TurnJSON, id string) api.InteractionJSON {
	t.Helper()
	for _, ix := range tj.Interactions {
		if ix.ID == id {
			return ix
		}
	}
	t.Fatalf("turn %s lists no interaction %s: %+v", tj.ID, id, tj.Interactions)
	return api.InteractionJSON{}
}

// waitTurn polls the Turn until ok holds (10 s of wall time).
func (e *env) waitTurn(tid, what string, ok func(api.TurnJSON) bool) api.TurnJSON {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if tj := e.turnView(tid); ok(tj) {
			return tj
		}
	}
	e.t.Fatalf("turn %s never %s: %+v", tid, what, e.turnView(tid))
	return api.TurnJSON{}
}

func statusIs(id, status string) func(api.TurnJSON) bool {
	return func(tj api.TurnJSON) bool {
		for _, ix := range tj.Interactions {
			if ix.ID == id {
				return ix.Status == status
			}
		}
		return false
	}
}

// askedTurn submits a Turn and waits until its three interactions are
// listed pending.
func (e *env) askedTurn() string {
	e.t.Helper()
	tid := e.submit(e.session(), "go")
	tj := e.waitTurn(tid, "listed three interactions", func(tj api.TurnJSON) bool { return len(tj.Interactions) == 3 })
	want := map[string]string{"perm-1": "permission", "ask-1": "user_choice", "call-1": "function_call"}
	for _, ix := range tj.Interactions {
		if want[ix.ID] != ix.Kind || ix.Status != "pending" || ix.Attempts != 0 || ix.DeliveryID != "" {
			e.t.Fatalf("asked interaction %+v, want kind %q pending, no attempt", ix, want[ix.ID])
		}
	}
	return tid
}

// post answers through the API and returns the delivery ID of a 202.
func (e *env) postAnswer(path, body string, header ...string) string {
	e.t.Helper()
	st, out, _ := e.do("POST", path, body, header...)
	if st != http.StatusAccepted || field(e.t, out, "delivery_id") == "" {
		e.t.Fatalf("POST %s %s: %d %s, want 202 with a delivery ID", path, body, st, out)
	}
	return field(e.t, out, "delivery_id")
}

// approval is the /v1 approval result event for permission request req.
func approval(req, decision string) string {
	return `{"events":[{"type":"agent.session.input.mcp_approval_request_result","request_id":"` + req +
		`","response":{"type":"mcp_tool_call","decision":"` + decision + `"}}]}`
}

// toolResult is the /v1 tool result event for call of Turn tid.
func toolResult(tid, call, output string) string {
	return `{"events":[{"type":"agent.session.input.tool_result","turn_id":"` + tid + `","call_id":"` + call +
		`","success":true,"output":"` + output + `"}]}`
}

// answerV1 posts an answer event to Turn tid's Session and returns the
// delivery ID of its receipt.
func (e *env) answerV1(tid, body string, header ...string) string {
	e.t.Helper()
	r := e.postEvents(e.turnView(tid).SessionID, body, header...)
	if len(r.Receipts) != 1 || r.Receipts[0].DeliveryID == "" {
		e.t.Fatalf("answer %s: %+v, want a delivery ID", body, r)
	}
	return r.Receipts[0].DeliveryID
}

// wantRefusedV1 posts an answer event to Turn tid's Session and wants the
// named /v1 refusal with nothing written.
func (e *env) wantRefusedV1(tid, body string, status int, code string) {
	e.t.Helper()
	sid := e.turnView(tid).SessionID
	before := e.writes()
	st, out := e.v1("POST", "/v1/agents/sessions/"+sid+"/events", body)
	if st != status || !strings.Contains(out, `"code":"`+code+`"`) {
		e.t.Fatalf("POST %s: %d %s, want %d %s", body, st, out, status, code)
	}
	if e.writes() != before {
		e.t.Fatalf("POST %s: refused, yet the store was written", body)
	}
}

func (e *env) wantRefused(path, body string, status int, code string) {
	e.t.Helper()
	before := e.writes()
	st, out, _ := e.do("POST", path, body)
	if st != status || field(e.t, out, "error") != code {
		e.t.Fatalf("POST %s %s: %d %s, want %d %s", path, body, st, out, status, code)
	}
	if e.writes() != before {
		e.t.Fatalf("POST %s %s: refused, yet the store was written", path, body)
	}
}

// A permission, a user choice and a function result answered through the
// HTTP API reach the Runtime as frames under fresh delivery IDs, their
// applied receipts resolve them in the Turn view, and a retried POST with
// the same Idempotency-Key sends nothing again.
func TestInteractionsAnsweredAndAppliedOverHTTP(t *testing.T) {
	e := newEnv(t)
	p := newAskPeer(false)
	stop := e.connectPeer(p)
	defer stop()
	tid := e.askedTurn()
	turn := "/core/v1/turns/" + tid

	d1 := e.answerV1(tid, approval("perm-1", "approve"), "Idempotency-Key", "k-perm")
	if again := e.answerV1(tid, approval("perm-1", "approve"), "Idempotency-Key", "k-perm"); again != d1 {
		t.Fatalf("answer under %s, retried under %s", d1, again)
	}
	sid := e.turnView(tid).SessionID
	if st, out := e.v1("POST", "/v1/agents/sessions/"+sid+"/events", approval("perm-1", "deny"), "Idempotency-Key", "k-perm"); st != 422 || !strings.Contains(out, api.CodeIdempotencyConflict) {
		t.Fatalf("key reused with another body: %d %s", st, out)
	}
	tj := e.waitTurn(tid, "applied perm-1", statusIs("perm-1", "applied"))
	if ix := ixOf(t, tj, "perm-1"); ix.DeliveryID != d1 || ix.Attempts != 1 || ix.ErrorCode != "" {
		t.Fatalf("applied permission %+v, want delivery %s after one attempt", ix, d1)
	}
	e.wantRefusedV1(tid, approval("perm-1", "approve"), 409, api.CodeInteractionClosed)

	choicePath := turn + "/user-choices/ask-1"
	e.wantRefused(choicePath, `{"answers":[{"question_id":"q9","answers":["x"]}]}`, 400, api.CodeInvalidAnswer)
	e.wantRefused(choicePath, `{"answers":[{"question_id":"q2","answers":["l"]}],"cancelled":true}`, 400, api.CodeInvalidAnswer)
	d2 := e.postAnswer(choicePath, `{"answers":[{"question_id":"q2","answers":["l"]}]}`, "Idempotency-Key", "k-choice")
	e.waitTurn(tid, "applied ask-1", statusIs("ask-1", "applied"))

	e.wantRefusedV1(tid, toolResult(tid, "call-9", ""), 404, api.CodeUnknownInteraction)
	d3 := e.answerV1(tid, toolResult(tid, "call-1", "42"), "Idempotency-Key", "k-call")
	tj = e.waitTurn(tid, "completed", func(tj api.TurnJSON) bool { return tj.State == "completed" })
	for id, d := range map[string]string{"perm-1": d1, "ask-1": d2, "call-1": d3} { //tidy:sorted each checked alone
		if ix := ixOf(t, tj, id); ix.Status != "applied" || ix.DeliveryID != d || ix.Attempts != 1 {
			t.Errorf("completed turn lists %+v, want applied under %s", ix, d)
		}
	}
	// the Turn is over: nothing of it can be answered any more
	e.wantRefusedV1(tid, toolResult(tid, "call-1", ""), 409, api.CodeTurnTerminal)
	e.wantRefused(choicePath, `{"cancelled":true}`, 409, api.CodeTurnTerminal)

	got := p.received()
	if len(got) != 3 {
		t.Fatalf("the Runtime got %d decision frames, want 3 (a replayed POST sends nothing): %+v", len(got), got)
	}
	want := []wire.Frame{
		{ID: "perm-1", Payload: wire.PermissionDecision{DeliveryID: d1, Approved: true}},
		{ID: "ask-1", Payload: wire.UserChoiceDecision{DeliveryID: d2, QuestionAnswers: []wire.QuestionAnswer{{QuestionID: "q2", Answers: []string{"l"}}}}},
		{ID: tj.RunID, Payload: wire.FunctionResult{DeliveryID: d3, CallID: "call-1", Success: true, Content: []wire.InputContent{wire.TextPart("42")}}},
	}
	for i := range want {
		if got[i].ID != want[i].ID || !reflect.DeepEqual(got[i].Payload, want[i].Payload) {
			t.Errorf("frame %d: %s %+v, want %s %+v", i, got[i].ID, got[i].Payload, want[i].ID, want[i].Payload)
		}
	}
}

// A cancelled user choice reaches the Runtime without answers and is
// resolved by its receipt; a cancellation carrying answers is refused.
func TestUserChoiceCancelledOverHTTP(t *testing.T) {
	e := newEnv(t)
	p := newAskPeer(false)
	stop := e.connectPeer(p)
	defer stop()
	tid := e.askedTurn()
	path := "/core/v1/turns/" + tid + "/user-choices/ask-1"
	e.wantRefused(path, `{"cancelled":true,"answers":[{"question_id":"q1","answers":[]}]}`, 400, api.CodeInvalidAnswer)
	d := e.postAnswer(path, `{"cancelled":true,"reason":"not now"}`)
	tj := e.waitTurn(tid, "applied ask-1", statusIs("ask-1", "applied"))
	if ix := ixOf(t, tj, "ask-1"); ix.DeliveryID != d {
		t.Fatalf("cancelled choice %+v, want delivery %s", ix, d)
	}
	if ix := ixOf(t, tj, "perm-1"); ix.Status != "pending" {
		t.Fatalf("an unanswered permission is %s, want pending", ix.Status)
	}
	got := p.received()
	want := wire.UserChoiceDecision{DeliveryID: d, Cancelled: true, Reason: "not now"}
	if len(got) != 1 || got[0].ID != "ask-1" || !reflect.DeepEqual(got[0].Payload, want) {
		t.Fatalf("the Runtime got %+v, want one %+v on ask-1", got, want)
	}
}

// newPipeEnv is newEnv with its httptest server on a pipe listener, so
// that it runs inside a synctest bubble on fake time.
func newPipeEnv(t *testing.T) *env {
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
	ts := httptest.NewUnstartedServer(mux)
	ts.Listener.Close()
	l := pipenet.New()
	ts.Listener = l
	ts.Start()
	ts.Client().Transport.(*http.Transport).DialContext = l.Dial
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
		synctest.Wait()
	})
	return &env{t: t, back: back, s: s, ts: ts}
}

// A decision whose receipt never comes is delivering for Core's 15 s
// wait and unknown from then on — never applied; it may be answered
// again, under a fresh delivery ID.
func TestDecisionWithoutReceiptBecomesUnknownAfter15s(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newPipeEnv(t)
		p := newAskPeer(true)
		stop := e.connectPeer(p)
		defer stop()
		tid := e.askedTurn()
		d1 := e.answerV1(tid, approval("perm-1", "approve"))
		synctest.Wait()
		if got := p.received(); len(got) != 1 {
			t.Fatalf("the Runtime got %d decisions, want 1", len(got))
		}
		sent := time.Now()
		e.wantRefusedV1(tid, approval("perm-1", "approve"), 409, api.CodeDecisionInFlight)
		time.Sleep(15*time.Second - time.Millisecond)
		synctest.Wait()
		if ix := ixOf(t, e.turnView(tid), "perm-1"); ix.Status != "delivering" || ix.DeliveryID != d1 {
			t.Fatalf("%s after the send: %+v, want delivering %s", time.Since(sent), ix, d1)
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		tj := e.turnView(tid)
		if ix := ixOf(t, tj, "perm-1"); ix.Status != "unknown" || ix.DeliveryID != d1 || ix.Attempts != 1 {
			t.Fatalf("15 s without a receipt: %+v, want unknown %s", ix, d1)
		}
		if tj.State != "running" {
			t.Fatalf("a missing receipt changed the turn to %s", tj.State)
		}
		d2 := e.answerV1(tid, approval("perm-1", "approve"))
		synctest.Wait()
		got := p.received()
		if d2 == d1 || len(got) != 2 || got[1].Payload.(wire.PermissionDecision).DeliveryID != d2 {
			t.Fatalf("repeat after unknown: delivery %s (first %s), frames %+v", d2, d1, got)
		}
		if ix := ixOf(t, e.turnView(tid), "perm-1"); ix.Status != "delivering" || ix.Attempts != 2 {
			t.Fatalf("repeated decision %+v, want delivering after two attempts", ix)
		}
	})
}
