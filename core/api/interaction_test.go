package api_test

import (
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/gateway/scripted"
)

// Answers are refused with named codes before anything is sent; a Turn
// lists its interactions (none here) in its projection.
func TestInteractionAnswersRefusedOverHTTP(t *testing.T) {
	e := newEnv(t)
	stop := e.connect(&scripted.Runtime{Hold: true})
	defer stop()
	sid := e.session()
	_, body, _ := e.do("POST", "/api/v1/sessions/"+sid+"/turns", `{"text":"go"}`)
	tid := field(t, body, "turn_id")
	waitState(t, e, tid, "running")
	if _, body, _ := e.do("GET", "/api/v1/turns/"+tid, ""); !strings.Contains(body, `"interactions":[]`) {
		t.Fatalf("turn without interactions: %s", body)
	}
	cases := []struct {
		name, path, body string
		status           int
		code             string
	}{
		{"unknown permission", "/api/v1/turns/" + tid + "/permissions/perm-1", `{"approved":true}`, 404, api.CodeUnknownInteraction},
		{"approved missing", "/api/v1/turns/" + tid + "/permissions/perm-1", `{"message":"x"}`, 400, api.CodeInvalidAnswer},
		{"unknown member", "/api/v1/turns/" + tid + "/permissions/perm-1", `{"approved":true,"answer":1}`, 400, api.CodeUnknownField},
		{"unknown prompt", "/api/v1/turns/" + tid + "/user-choices/ask-1", `{"cancelled":true}`, 404, api.CodeUnknownInteraction},
		{"legacy answers member", "/api/v1/turns/" + tid + "/user-choices/ask-1", `{"answers":[{"question_id":"q","answer":"x"}]}`, 400, api.CodeUnknownField},
		{"unknown call", "/api/v1/turns/" + tid + "/function-calls/call-1/result", `{"success":true,"content":[]}`, 404, api.CodeUnknownInteraction},
		{"null content", "/api/v1/turns/" + tid + "/function-calls/call-1/result", `{"success":true}`, 400, api.CodeInvalidAnswer},
		{"unknown turn", "/api/v1/turns/t-99/permissions/perm-1", `{"approved":false}`, 404, api.CodeUnknownTurn},
	}
	for _, c := range cases {
		before := e.writes()
		st, body, _ := e.do("POST", c.path, c.body)
		if st != c.status || field(t, body, "error") != c.code {
			t.Errorf("%s: %d %s, want %d %s", c.name, st, body, c.status, c.code)
		}
		if e.writes() != before {
			t.Errorf("%s: a refused answer wrote to the store", c.name)
		}
	}
}
