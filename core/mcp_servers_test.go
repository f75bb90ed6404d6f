package core_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/wire"
)

// TestExplicitEmptyMCPServersTravelAsEmptyList: an Agent created with an
// explicit empty server list sends `"mcp_http_servers":[]` (no server at
// all, wire-reference §3.14), while one without a list leaves the member
// out (the Runtime's native behaviour). Neither needs mcp_http_tools.
func TestExplicitEmptyMCPServersTravelAsEmptyList(t *testing.T) {
	for _, c := range []struct {
		name    string
		servers []wire.MCPHTTPServer
		member  bool
	}{
		{"absent", nil, false},
		{"explicit empty", []wire.MCPHTTPServer{}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newRig(t)
			h.connect("d1", 1, baseCaps()) // no mcp_http_tools
			a := defaultAgent()
			a.MCPServers = c.servers
			sid := h.session(a)
			rec, ok := h.st.Session(sid)
			require.True(t, ok)
			require.Equal(t, c.servers == nil, rec.Agent.MCPServers == nil, "frozen list keeps absent apart from empty")
			require.Equal(t, 0, len(rec.Agent.MCPServers))
			h.submit(sid, "x")
			prep := one[wire.ExecutionPrepare](t, h.last)
			cfg := prep.P.Configuration
			require.Equal(t, c.member, cfg.MCPHTTPServers != nil)
			b, err := wire.Encode(wire.Frame{ID: prep.ID, Payload: prep.P})
			require.NoError(t, err)
			require.Equal(t, c.member, bytes.Contains(b, []byte(`"mcp_http_servers":[]`)), "%s", b)
			require.Equal(t, c.member, bytes.Contains(b, []byte(`"mcp_http_servers"`)), "%s", b)
			f, err := wire.Decode(b)
			require.NoError(t, err)
			got := f.Payload.(wire.ExecutionPrepare).Configuration.MCPHTTPServers
			require.Equal(t, c.member, got != nil, "the Runtime reads the same distinction")
			require.NoError(t, wire.Validate(f.Payload))
		})
	}
}

// TestEmptyAllowListTravelsAsEmptyList: an MCP server whose allow-list is
// empty (no tool) reaches the Runtime as `"allowed_tools":[]`, never as
// null (the native default); a nil allow-list stays null.
func TestEmptyAllowListTravelsAsEmptyList(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, fullCaps())
	a := defaultAgent()
	a.MCPServers = []wire.MCPHTTPServer{
		{ServerLabel: "none", ServerURL: "https://mcp.example/a", AllowedTools: &[]string{}},
		{ServerLabel: "default", ServerURL: "https://mcp.example/b"},
	}
	h.submit(h.session(a), "x")
	prep := one[wire.ExecutionPrepare](t, h.last)
	b, err := wire.Encode(wire.Frame{ID: prep.ID, Payload: prep.P})
	require.NoError(t, err)
	require.True(t, bytes.Contains(b, []byte(`"server_label":"none","server_url":"https://mcp.example/a","allowed_tools":[]`)), "%s", b)
	require.True(t, bytes.Contains(b, []byte(`"server_label":"default","server_url":"https://mcp.example/b","allowed_tools":null`)), "%s", b)
}
