package api_test

import (
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/gateway/scripted"
)

// Answers are refused with named codes before anything is sent; a Turn
// lists its interactions (none here) in Core's view of it.
func TestInteractionAnswersRefusedOverHTTP(t *testing.T) {
	e := newEnv(t)
	stop := e.connect(&scripted.Runtime{Hold: true})
	defer stop()
	tid := e.submit(e.session(), "go")
	waitState(t, e, tid, "running")
	if _, body, _ := e.do("GET", "/core/v1/turns/"+tid, ""); !strings.Contains(body, `"interactions":[]`) {
		t.Fatalf("turn without interactions: %s", body)
	}
	for _, c := range []struct {
		name, body string
		status     int
		code       string
	}{
		{"unknown permission", approval("perm-1", "approve"), 404, api.CodeUnknownInteraction},
		{"unknown decision", approval("perm-1", "maybe"), 400, api.CodeInvalidInput},
		{"unknown member", `{"events":[{"type":"agent.session.input.mcp_approval_request_result","request_id":"perm-1","response":{"type":"mcp_tool_call","decision":"approve","answer":1}}]}`, 400, api.CodeUnknownField},
		{"unknown call", toolResult(tid, "call-1", ""), 404, api.CodeUnknownInteraction},
		{"result without success", `{"events":[{"type":"agent.session.input.tool_result","turn_id":"` + tid + `","call_id":"call-1"}]}`, 400, api.CodeInvalidInput},
		{"unknown turn", toolResult("t-99", "call-1", ""), 404, api.CodeUnknownTurn},
	} {
		t.Run(c.name, func(t *testing.T) { e.wantRefusedV1(tid, c.body, c.status, c.code) })
	}
	for _, c := range []struct {
		name, path, body string
		status           int
		code             string
	}{
		{"unknown prompt", "/core/v1/turns/" + tid + "/user-choices/ask-1", `{"cancelled":true}`, 404, api.CodeUnknownInteraction},
		{"legacy answers member", "/core/v1/turns/" + tid + "/user-choices/ask-1", `{"answers":[{"question_id":"q","answer":"x"}]}`, 400, api.CodeUnknownField},
		{"unknown turn", "/core/v1/turns/t-99/user-choices/ask-1", `{"cancelled":false}`, 404, api.CodeUnknownTurn},
	} {
		e.wantRefused(c.path, c.body, c.status, c.code)
	}
}
