package api_test

import (
	"context"
	"testing"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/server"
)

// TestCreateSessionKeepsExplicitEmptyMCPServers: `"mcp_servers":[]`
// creates an Agent with an explicit empty server list (sent to the Runtime
// as mcp_http_servers: []), distinct from an absent or null member (no
// list: the Runtime's native behaviour).
func TestCreateSessionKeepsExplicitEmptyMCPServers(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct {
		name, extra string
		explicit    bool
	}{
		{"absent", `"multi_agent":false`, false},
		{"null", `"mcp_servers":null`, false},
		{"explicit empty", `"mcp_servers":[]`, true},
	} {
		st, body, _ := e.do("POST", "/api/v1/sessions", agentBody(c.extra))
		if st != 201 {
			t.Fatalf("%s: create: %d %s", c.name, st, body)
		}
		sid := field(t, body, "session_id")
		var rec core.SessionRecord
		if err := e.s.Query(context.Background(), func(v server.View) { rec, _ = v.Backend().Session(sid) }); err != nil {
			t.Fatal(err)
		}
		if got := rec.Agent.MCPServers != nil; got != c.explicit || len(rec.Agent.MCPServers) != 0 {
			t.Errorf("%s: frozen MCP servers %#v, want explicit=%v and empty", c.name, rec.Agent.MCPServers, c.explicit)
		}
	}
}
