package conform

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/scenarios"
)

// apiCore is a public API with one Session and Turn t-1, running, whose
// view shows no input cursor.
func apiCore() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method + " " + r.URL.Path {
		case "POST /v1/agents/sessions":
			w.Write([]byte(`{"id":"s-1"}`))
		case "POST /v1/agents/sessions/s-1/events":
			w.Write([]byte(`{"receipts":[{"action":"turn_started","turn_id":"t-1"}]}`))
		case "GET /core/v1/turns/t-1":
			w.Write([]byte(`{"state":"running","content":"hi","usage":{"tokens":{"input_tokens":1,"output_tokens":2,"total_tokens":3}}}`))
		default:
			http.NotFound(w, r)
		}
	}))
}

func apiRun(srv *httptest.Server, wait time.Duration) *coreRun {
	return newCoreRun(Options{FrameTimeout: wait}.withDefaults(),
		CoreTarget{Device: "dev", APIURL: srv.URL, APIKey: "key", APIToken: "tok", HTTP: srv.Client()}, nil)
}

func apiStep(action string, args map[string]string, input string) scenarios.Step {
	return scenarios.Step{Kind: scenarios.KindAPI, Action: action, Args: args, Input: input}
}

// TestCoreStateFromTheAPI: core-state compares what Core's view of the
// Turn shows, fails on a difference and reports a member it lacks as not
// checked, as core-interaction does when the view shows no interactions.
func TestCoreStateFromTheAPI(t *testing.T) {
	srv := apiCore()
	defer srv.Close()
	r := apiRun(srv, 100*time.Millisecond)
	r.API(apiStep("submit-turn", map[string]string{"text": "hi"}, ""))
	r.CoreState(map[string]string{"turn": "1", "state": "running", "content": "hi", "usage": "1/2/3", "cursor": "0"})
	if len(logged(&r.failures)) != 0 || len(r.notChecked) != 1 || !strings.Contains(r.notChecked[0], "core-state cursor=0: Core's view of the Turn does not show it") {
		t.Fatalf("errors %q, not checked %q", logged(&r.failures), r.notChecked)
	}
	r.CoreState(map[string]string{"turn": "1", "state": "failed"})
	if len(logged(&r.failures)) != 1 || !strings.Contains(logged(&r.failures)[0], `state="running", want "failed"`) {
		t.Fatalf("errors %q", logged(&r.failures))
	}
	r.CoreInteraction(map[string]string{"id": "p1", "status": "applied"})
	if len(r.notChecked) != 2 || !strings.Contains(r.notChecked[1], "core-interaction id=p1: Core's view of the Turn does not show interactions") {
		t.Fatalf("not checked %q", r.notChecked)
	}
}
