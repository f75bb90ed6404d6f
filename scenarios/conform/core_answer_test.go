package conform

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/scenarios"
)

// TestAnswerAndInteractionOverTheAPI: a permission answer is posted as
// the Agents API's approval result with the API key and its refusal
// checked; core-interaction reads Core's view of the Turn with the
// operator token and fails on a difference.
func TestAnswerAndInteractionOverTheAPI(t *testing.T) {
	var posted []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/v1/agents/sessions/s-1/events" && r.Header.Get("Authorization") == "Bearer key":
			b, _ := io.ReadAll(r.Body)
			posted = append(posted, string(b))
			w.WriteHeader(http.StatusConflict)
			w.Write([]byte(`{"error":{"message":"closed","type":"invalid_request_error","param":"events[0]","code":"interaction_closed"}}`))
		case r.Method == http.MethodGet && r.URL.Path == "/core/v1/turns/t-1" && r.Header.Get("Authorization") == "Bearer tok":
			w.Write([]byte(`{"state":"running","interactions":[{"id":"p1","kind":"permission","status":"applied","attempts":1}]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	r := &coreRun{o: Options{FrameTimeout: 2 * time.Second}.withDefaults(), t: CoreTarget{APIURL: srv.URL, APIKey: "key", APIToken: "tok", HTTP: srv.Client()}, session: "s-1", turns: []string{"t-1"}}
	answer := func(refused string) scenarios.Step {
		args := map[string]string{"interaction": "p1"}
		if refused != "" {
			args["refused"] = refused
		}
		return scenarios.Step{Kind: scenarios.KindAPI, Action: "answer-permission", Args: args, Input: `{"approved":true}`}
	}
	r.answer(answer("interaction_closed"))
	want := `{"events":[{"request_id":"p1","response":{"decision":"approve","type":"mcp_tool_call"},"type":"agent.session.input.mcp_approval_request_result"}]}`
	if len(logged(&r.failures)) != 0 || len(posted) != 1 || posted[0] != want {
		t.Fatalf("errors %q, posted %q", logged(&r.failures), posted)
	}
	r.answer(answer(""))
	r.answer(answer("invalid_answer"))
	if len(logged(&r.failures)) != 2 || !strings.Contains(logged(&r.failures)[0], "refused: 409") || !strings.Contains(logged(&r.failures)[1], `refused "interaction_closed"`) {
		t.Fatalf("errors %q", logged(&r.failures))
	}
	r.Log = scenarios.Log{}
	r.answer(scenarios.Step{Kind: scenarios.KindAPI, Action: "answer-permission", Args: map[string]string{"interaction": "p1"}, Input: `{"approved":true,"message":"ok"}`})
	if len(logged(&r.failures)) != 1 || len(posted) != 3 || !strings.Contains(logged(&r.failures)[0], "carries no message") {
		t.Fatalf("a body the Agents API cannot carry: errors %q, posted %d", logged(&r.failures), len(posted))
	}
	r.Log = scenarios.Log{}
	r.CoreInteraction(map[string]string{"id": "p1", "status": "applied", "attempts": "1"})
	r.CoreInteraction(map[string]string{"id": "p1", "status": "pending"})
	if len(logged(&r.failures)) != 1 || !strings.Contains(logged(&r.failures)[0], `status="applied", want "pending"`) {
		t.Fatalf("errors %q", logged(&r.failures))
	}
}
