package api_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/wire"
)

func agentBody(extra string) string {
	return `{"agent":{"kind":"contract","model":"m",` + extra + `},"environment":{"type":"none"}}`
}

func TestCreateSessionFreezesFunctionToolsAndMCPServers(t *testing.T) {
	e := newEnv(t)
	st, body, _ := e.do("POST", "/api/v1/sessions", agentBody(
		`"function_tools":[{"name":"lookup","description":"find","parameters":{"type":"object"}},{"name":"later","defer_loading":true}],`+
			`"mcp_servers":[{"server_label":"docs","server_url":"https://mcp.example","allowed_tools":["search"],"required":true,"bearer_token":"vault-ref"}]`))
	if st != 201 {
		t.Fatalf("create: %d %s", st, body)
	}
	sid := field(t, body, "session_id")
	var rec core.SessionRecord
	if err := e.s.Query(context.Background(), func(v server.View) { rec, _ = v.Backend().Session(sid) }); err != nil {
		t.Fatal(err)
	}
	a := rec.Agent
	want := []wire.FunctionTool{{Name: "lookup", Description: "find", Parameters: json.RawMessage(`{"type":"object"}`)},
		{Name: "later", DeferLoading: true}}
	if len(a.FunctionTools) != 2 || a.FunctionTools[0].Name != want[0].Name || string(a.FunctionTools[0].Parameters) != string(want[0].Parameters) ||
		a.FunctionTools[0].Description != "find" || !a.FunctionTools[1].DeferLoading || !a.ToolSearch {
		t.Fatalf("frozen function tools %+v (tool search %v)", a.FunctionTools, a.ToolSearch)
	}
	if len(a.MCPServers) != 1 {
		t.Fatalf("frozen MCP servers %+v", a.MCPServers)
	}
	m := a.MCPServers[0]
	if m.ConnectionOrigin != wire.OriginService || m.ServerLabel != "docs" || m.ServerURL != "https://mcp.example" ||
		m.AllowedTools == nil || len(*m.AllowedTools) != 1 || !m.Required || m.BearerToken != "vault-ref" {
		t.Fatalf("frozen MCP server %+v", m)
	}
}

func TestCreateSessionRefusesBadToolsAndServers(t *testing.T) {
	e := newEnv(t)
	writes := e.writes()
	for _, c := range []struct {
		name, extra, code string
	}{
		{"tools not an array", `"function_tools":{"name":"f"}`, api.CodeBadJSON},
		{"tool unknown member", `"function_tools":[{"name":"f","strict":true}]`, api.CodeUnknownField},
		{"tool name not a string", `"function_tools":[{"name":7}]`, api.CodeBadJSON},
		{"tool without name", `"function_tools":[{"description":"d"}]`, api.CodeInvalidConfig},
		{"blank tool name", `"function_tools":[{"name":"  "}]`, api.CodeInvalidConfig},
		{"duplicate tool", `"function_tools":[{"name":"f"},{"name":"f"}]`, api.CodeInvalidConfig},
		{"parameters not an object", `"function_tools":[{"name":"f","parameters":[1]}]`, api.CodeInvalidConfig},
		{"parameters a string", `"function_tools":[{"name":"f","parameters":"schema"}]`, api.CodeInvalidConfig},
		{"servers not an array", `"mcp_servers":"docs"`, api.CodeBadJSON},
		{"server unknown member", `"mcp_servers":[{"server_label":"l","server_url":"u","headers":{}}]`, api.CodeUnknownField},
		{"server without URL", `"mcp_servers":[{"server_label":"l"}]`, api.CodeInvalidConfig},
		{"blank server label", `"mcp_servers":[{"server_label":" ","server_url":"https://x"}]`, api.CodeInvalidConfig},
		{"unknown origin", `"mcp_servers":[{"server_label":"l","server_url":"https://x","connection_origin":"moon"}]`, api.CodeInvalidConfig},
		{"environment origin without environment", `"mcp_servers":[{"server_label":"l","server_url":"https://x","connection_origin":"environment","bearer_token":"tok-SECRET"}]`, api.CodeInvalidConfig},
		{"allowed_tools not an array", `"mcp_servers":[{"server_label":"l","server_url":"https://x","allowed_tools":"all"}]`, api.CodeBadJSON},
	} {
		st, body, _ := e.do("POST", "/api/v1/sessions", agentBody(c.extra))
		if st != 400 || field(t, body, "error") != c.code {
			t.Errorf("%s: %d %s, want 400 %s", c.name, st, body, c.code)
		}
		if strings.Contains(body, "tok-SECRET") {
			t.Errorf("%s: the answer echoes a bearer token: %s", c.name, body)
		}
	}
	if w := e.writes(); w != writes {
		t.Fatalf("rejected sessions wrote %d records", w-writes)
	}
}

// A kind the engine catalog has no profile for is a named refusal, not
// an internal error, and creates nothing.
func TestCreateSessionRefusesAnUnqualifiedEngine(t *testing.T) {
	e := newEnv(t)
	writes := e.writes()
	st, body, _ := e.do("POST", "/api/v1/sessions", `{"agent":{"kind":"no-such-engine","model":"m"},"environment":{"type":"none"}}`)
	if st != 400 || field(t, body, "error") != api.CodeEngineUnqualified {
		t.Fatalf("%d %s, want 400 %s", st, body, api.CodeEngineUnqualified)
	}
	if w := e.writes(); w != writes {
		t.Fatalf("a refused session wrote %d records", w-writes)
	}
}
