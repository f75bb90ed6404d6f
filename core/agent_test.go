package core_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

// TestCreateSessionRefusesWhatTheWireRefuses: a configuration whose
// execution_prepare would fail the wire codec or validator is refused at
// creation, naming the wire member, and nothing is written.
func TestCreateSessionRefusesWhatTheWireRefuses(t *testing.T) {
	for _, c := range []struct {
		name   string
		mutate func(*core.AgentConfig)
		member string
	}{
		{"parameters not an object", func(a *core.AgentConfig) {
			a.FunctionTools = []wire.FunctionTool{{Name: "f", Parameters: []byte(`[1]`)}}
		}, "parameters"},
		{"parameters not JSON", func(a *core.AgentConfig) {
			a.FunctionTools = []wire.FunctionTool{{Name: "f", Parameters: []byte(`{`)}}
		}, "execution_prepare"},
		{"blank tool name", func(a *core.AgentConfig) {
			a.FunctionTools = []wire.FunctionTool{{Name: "  "}}
		}, "function_tools[0].name"},
		{"blank MCP label", func(a *core.AgentConfig) {
			a.MCPServers = []wire.MCPHTTPServer{{ServerLabel: " ", ServerURL: "https://mcp"}}
		}, "server_label"},
		{"blank MCP URL", func(a *core.AgentConfig) {
			a.MCPServers = []wire.MCPHTTPServer{{ServerLabel: "l", ServerURL: "\t"}}
		}, "server_url"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newRig(t)
			a := defaultAgent()
			c.mutate(&a)
			r := h.api(core.CreateSession{Call: "c", Agent: a})
			require.ErrorIs(t, r.Err, core.ErrInvalidConfig)
			require.True(t, strings.Contains(r.Err.Error(), c.member), "error %q names %s", r.Err, c.member)
			require.EqualValues(t, 0, h.st.Writes(), "rejected call wrote to the store")
			require.Empty(t, h.st.Sessions())
		})
	}
}

// TestFunctionToolsAndMCPServersReachExecutionPrepare: the frozen tools and
// servers are what execution_prepare carries, and the frame decodes and
// validates on the Runtime side.
func TestFunctionToolsAndMCPServersReachExecutionPrepare(t *testing.T) {
	h := newRig(t)
	caps := with(with(baseCaps(), "function_tools", wire.CapabilitySupported), "mcp_http_tools", wire.CapabilitySupported)
	h.connect("d1", 1, caps)
	a := defaultAgent()
	tools := []wire.FunctionTool{{Name: "lookup", Description: "find", Parameters: []byte(`{"type":"object"}`)}}
	allowed := []string{"search"}
	a.FunctionTools = tools
	a.MCPServers = []wire.MCPHTTPServer{{ServerLabel: "docs", ServerURL: "https://mcp.example", AllowedTools: &allowed}}
	sid := h.session(a)
	rec, ok := h.st.Session(sid)
	require.True(t, ok)
	require.Equal(t, tools, rec.Agent.FunctionTools)
	require.Equal(t, wire.OriginService, rec.Agent.MCPServers[0].ConnectionOrigin, "origin frozen for environment none")
	h.submit(sid, "x")
	prep := one[wire.ExecutionPrepare](t, h.last)
	c := prep.P.Configuration
	require.Equal(t, tools, c.FunctionTools)
	require.Equal(t, rec.Agent.MCPServers, *c.MCPHTTPServers)
	b, err := wire.Encode(wire.Frame{ID: prep.ID, Payload: prep.P})
	require.NoError(t, err)
	f, err := wire.Decode(b)
	require.NoError(t, err)
	require.NoError(t, wire.Validate(f.Payload))
}
