package api_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/wire"
)

// frozen reads the configuration the machine froze for Session sid.
func (e *env) frozen(sid string) core.AgentConfig {
	e.t.Helper()
	var rec core.SessionRecord
	if err := e.s.Query(context.Background(), func(v server.View) { rec, _ = v.Backend().Session(sid) }); err != nil {
		e.t.Fatal(err)
	}
	return rec.Agent
}

// A Session created through /v1 freezes its Agent's function tools and
// MCP servers in the machine's configuration; an MCP server's bearer
// token is the credential reference, never a secret.
func TestCreateSessionFreezesFunctionToolsAndMCPServers(t *testing.T) {
	e := newEnv(t)
	s := e.v1Session(`{"agent":{"model":"m","x_agents_core":{"harness":"contract"},"tools":[` +
		`{"type":"function","name":"lookup","description":"find","parameters":{"type":"object"}},` +
		`{"type":"function","name":"later","defer_loading":true},` +
		`{"type":"mcp","server_label":"docs","transport":{"type":"http","server_url":"https://mcp.example"},"allowed_tools":["search"],"required":true}]},` +
		`"environment":{"type":"none"}}`)
	a := e.frozen(s.ID)
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
	if m.ServerLabel != "docs" || m.ServerURL != "https://mcp.example" ||
		m.AllowedTools == nil || len(*m.AllowedTools) != 1 || !m.Required || m.BearerToken != "" {
		t.Fatalf("frozen MCP server %+v", m)
	}
}
