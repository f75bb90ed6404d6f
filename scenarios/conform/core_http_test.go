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

// apiCore is a public API with one Session and Turn t-1: it refuses
// every answer as interaction_closed, shows one applied permission,
// accepts one quiesce, shows the suspension quiesced and refuses a
// resume as suspension_pending.
func apiCore(t *testing.T, posted *[]string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		auth := r.Header.Get("Authorization")
		switch r.Method + " " + r.URL.Path {
		case "POST /v1/agents/sessions":
			w.Write([]byte(`{"id":"s-1"}`))
		case "POST /v1/agents/sessions/s-1/events":
			if strings.Contains(string(b), "input.message") {
				w.Write([]byte(`{"receipts":[{"action":"turn_started","turn_id":"t-1"}]}`))
				return
			}
			if auth == "Bearer key" {
				*posted = append(*posted, string(b))
			}
			w.WriteHeader(http.StatusConflict)
			w.Write([]byte(`{"error":{"message":"closed","type":"invalid_request_error","param":"events[0]","code":"interaction_closed"}}`))
		case "GET /core/v1/turns/t-1":
			if auth == "Bearer tok" {
				w.Write([]byte(`{"state":"running","content":"hi","usage":{"tokens":{"input_tokens":1,"output_tokens":2,"total_tokens":3}},"interactions":[{"id":"p1","kind":"permission","status":"applied","attempts":1}]}`))
			}
		case "POST /core/v1/suspensions":
			if string(b) != `{"device_id":"dev","environment_id":"env"}` {
				t.Errorf("quiesce body %s", b)
			}
			w.WriteHeader(http.StatusAccepted)
			w.Write([]byte(`{"suspend_id":"s-1"}`))
		case "GET /core/v1/suspensions/s-1":
			w.Write([]byte(`{"suspend_id":"s-1","state":"quiesced","attempts":1,"rollback":false}`))
		case "POST /core/v1/suspensions/s-1/resume":
			w.WriteHeader(http.StatusConflict)
			w.Write([]byte(`{"error":"suspension_pending","detail":"x"}`))
		default:
			http.NotFound(w, r)
		}
	}))
}

func apiRun(srv *httptest.Server, wait time.Duration) *coreRun {
	return newCoreRun(Options{FrameTimeout: wait}.withDefaults(),
		CoreTarget{Device: "dev", APIURL: srv.URL, APIKey: "key", APIToken: "tok", HTTP: srv.Client()}, nil)
}

func api(action string, args map[string]string, input string) scenarios.Step {
	return scenarios.Step{Kind: scenarios.KindAPI, Action: action, Args: args, Input: input}
}

// TestAnswerAndInteractionOverTheAPI: a permission answer is posted as
// the Agents API's approval result with the API key and its refusal
// checked; core-interaction reads Core's view of the Turn with the
// operator token and fails on a difference.
func TestAnswerAndInteractionOverTheAPI(t *testing.T) {
	var posted []string
	srv := apiCore(t, &posted)
	defer srv.Close()
	r := apiRun(srv, 2*time.Second)
	r.API(api("submit-turn", map[string]string{"text": "hi"}, ""))
	answer := func(refused string) scenarios.Step {
		args := map[string]string{"interaction": "p1"}
		if refused != "" {
			args["refused"] = refused
		}
		return api("answer-permission", args, `{"approved":true}`)
	}
	r.API(answer("interaction_closed"))
	want := `{"events":[{"request_id":"p1","response":{"decision":"approve","type":"mcp_tool_call"},"type":"agent.session.input.mcp_approval_request_result"}]}`
	if len(logged(&r.failures)) != 0 || len(posted) != 1 || posted[0] != want {
		t.Fatalf("errors %q, posted %q", logged(&r.failures), posted)
	}
	r.API(answer(""))
	r.API(answer("invalid_answer"))
	if len(logged(&r.failures)) != 2 || !strings.Contains(logged(&r.failures)[0], "refused: 409") || !strings.Contains(logged(&r.failures)[1], `refused "interaction_closed"`) {
		t.Fatalf("errors %q", logged(&r.failures))
	}
	r.Log = scenarios.Log{}
	r.API(api("answer-permission", map[string]string{"interaction": "p1"}, `{"approved":true,"message":"ok"}`))
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

// TestFencingThroughTheAPI: quiesce binds the suspension the API
// answers; core-suspension fails on a difference; a resume the file
// expects to succeed fails when refused, and refused= names the code.
func TestFencingThroughTheAPI(t *testing.T) {
	srv := apiCore(t, new([]string))
	defer srv.Close()
	r := apiRun(srv, 100*time.Millisecond)
	r.CoreSuspension(map[string]string{"state": "quiesced"})
	if len(logged(&r.failures)) != 1 || !strings.Contains(logged(&r.failures)[0], "nothing was quiesced") {
		t.Fatalf("errors %q", logged(&r.failures))
	}
	r.Log = scenarios.Log{}
	r.API(api("quiesce", map[string]string{"environment": "env"}, ""))
	r.CoreSuspension(map[string]string{"state": "quiesced", "attempts": "1", "rollback": "false"})
	if len(logged(&r.failures)) != 0 {
		t.Fatalf("errors %q", logged(&r.failures))
	}
	r.CoreSuspension(map[string]string{"state": "resumed"})
	if len(logged(&r.failures)) != 1 || !strings.Contains(logged(&r.failures)[0], `suspension s-1: state="quiesced", want "resumed"`) {
		t.Fatalf("errors %q", logged(&r.failures))
	}
	r.Log = scenarios.Log{}
	r.API(api("resume", map[string]string{}, ""))
	if len(logged(&r.failures)) != 1 || !strings.Contains(logged(&r.failures)[0], "refused: 409") {
		t.Fatalf("errors %q", logged(&r.failures))
	}
	r.Log = scenarios.Log{}
	r.API(api("resume", map[string]string{"refused": "suspension_pending"}, ""))
	r.API(api("resume", map[string]string{"refused": "unknown_suspension"}, ""))
	if len(logged(&r.failures)) != 1 || !strings.Contains(logged(&r.failures)[0], `refused "suspension_pending"`) {
		t.Fatalf("errors %q", logged(&r.failures))
	}
}

// TestCoreStateFromTheAPI: core-state compares what Core's view of the
// Turn shows, fails on a difference and reports a member it lacks as not
// checked.
func TestCoreStateFromTheAPI(t *testing.T) {
	srv := apiCore(t, new([]string))
	defer srv.Close()
	r := apiRun(srv, 100*time.Millisecond)
	r.API(api("submit-turn", map[string]string{"text": "hi"}, ""))
	r.CoreState(map[string]string{"turn": "1", "state": "running", "content": "hi", "usage": "1/2/3", "cursor": "0"})
	if len(logged(&r.failures)) != 0 || len(r.notChecked) != 1 || !strings.Contains(r.notChecked[0], "core-state cursor=0: Core's view of the Turn does not show it") {
		t.Fatalf("errors %q, not checked %q", logged(&r.failures), r.notChecked)
	}
	r.CoreState(map[string]string{"turn": "1", "state": "failed"})
	if len(logged(&r.failures)) != 1 || !strings.Contains(logged(&r.failures)[0], `state="running", want "failed"`) {
		t.Fatalf("errors %q", logged(&r.failures))
	}
}
