package conform

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/scenarios"
)

// TestAnswerAndInteractionOverTheAPI: an answer call posts the step's
// body to its route and checks the refusal it must get; core-interaction
// reads the Turn's interactions and fails on a difference.
func TestAnswerAndInteractionOverTheAPI(t *testing.T) {
	var posted []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/api/v1/turns/t-1/permissions/p1":
			b := make([]byte, 64)
			n, _ := r.Body.Read(b)
			posted = append(posted, string(b[:n]))
			w.WriteHeader(http.StatusConflict)
			w.Write([]byte(`{"error":"interaction_closed"}`))
		case r.Method == http.MethodGet && r.URL.Path == "/api/v1/turns/t-1":
			w.Write([]byte(`{"state":"running","interactions":[{"id":"p1","kind":"permission","status":"applied","attempts":1}]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	r := &coreRun{o: Options{FrameTimeout: 2 * time.Second}.withDefaults(), t: CoreTarget{APIURL: srv.URL, APIToken: "tok", HTTP: srv.Client()}, turns: []string{"t-1"}}
	answer := func(refused string) scenarios.Step {
		args := map[string]string{"interaction": "p1"}
		if refused != "" {
			args["refused"] = refused
		}
		return scenarios.Step{Kind: scenarios.KindAPI, Action: "answer-permission", Args: args, Input: `{"approved":true}`}
	}
	r.answer(answer("interaction_closed"))
	if len(r.errs) != 0 || len(posted) != 1 || posted[0] != `{"approved":true}` {
		t.Fatalf("errors %q, posted %q", r.errs, posted)
	}
	r.answer(answer(""))
	r.answer(answer("invalid_answer"))
	if len(r.errs) != 2 || !strings.Contains(r.errs[0], "refused: 409") || !strings.Contains(r.errs[1], `refused "interaction_closed"`) {
		t.Fatalf("errors %q", r.errs)
	}
	r.errs = nil
	r.coreInteraction(map[string]string{"id": "p1", "status": "applied", "attempts": "1"})
	r.coreInteraction(map[string]string{"id": "p1", "status": "pending"})
	if len(r.errs) != 1 || !strings.Contains(r.errs[0], `status="applied", want "pending"`) {
		t.Fatalf("errors %q", r.errs)
	}
}
