package daemon

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/wire"
)

// TestPrepareMCPOrigins: the Runtime applies the shared origin rule and
// the kind's MCP capabilities before any factory is chosen; a refusal
// makes no native call.
func TestPrepareMCPOrigins(t *testing.T) {
	full := testCaps()
	full.MCPHTTPTools, full.MCPHTTPRequired, full.MCPHTTPBearerAuth = wire.CapabilitySupported, wire.CapabilitySupported, wire.CapabilitySupported
	toolsOnly := testCaps()
	toolsOnly.MCPHTTPTools = wire.CapabilitySupported
	cfg := testConfig()
	cfg.Kinds = []KindConfig{
		{Kind: "contract", Available: true, Version: "1", Capabilities: full},
		{Kind: "toolsonly", Available: true, Version: "1", Capabilities: toolsOnly},
		{Kind: "nomcp", Available: true, Version: "1", Capabilities: testCaps()},
	}
	service := wire.MCPHTTPServer{ConnectionOrigin: wire.OriginService, ServerLabel: "m", ServerURL: "https://mcp.example"}
	with := func(kind string, edit func(*wire.MCPHTTPServer)) func(*wire.ExecutionPrepare) {
		return func(p *wire.ExecutionPrepare) {
			s := service
			edit(&s)
			p.Configuration.AgentKind = kind
			p.Configuration.MCPHTTPServers = &[]wire.MCPHTTPServer{s}
		}
	}
	keep := func(*wire.MCPHTTPServer) {}
	cases := []struct {
		name string
		mut  func(*wire.ExecutionPrepare)
		code string
	}{
		{"service accepted", with("contract", keep), ""},
		{"empty list accepted without capability", func(p *wire.ExecutionPrepare) {
			p.Configuration.AgentKind = "nomcp"
			p.Configuration.MCPHTTPServers = &[]wire.MCPHTTPServer{}
		}, ""},
		{"required and bearer accepted", with("contract", func(s *wire.MCPHTTPServer) { s.Required, s.BearerToken = true, "tok" }), ""},
		{"missing origin", with("contract", func(s *wire.MCPHTTPServer) { s.ConnectionOrigin = "" }), CodeInvalidConfiguration},
		{"unknown origin", with("contract", func(s *wire.MCPHTTPServer) { s.ConnectionOrigin = "browser" }), CodeInvalidConfiguration},
		{"environment origin without environment", with("contract", func(s *wire.MCPHTTPServer) { s.ConnectionOrigin = wire.OriginEnvironment }), CodeUnsupportedConfiguration},
		{"blank label", with("contract", func(s *wire.MCPHTTPServer) { s.ServerLabel = " " }), CodeInvalidConfiguration},
		{"blank url", with("contract", func(s *wire.MCPHTTPServer) { s.ServerURL = "" }), CodeInvalidConfiguration},
		{"no mcp capability", with("nomcp", keep), CodeUnsupportedConfiguration},
		{"required not declared", with("toolsonly", func(s *wire.MCPHTTPServer) { s.Required = true }), CodeUnsupportedConfiguration},
		{"bearer not declared", with("toolsonly", func(s *wire.MCPHTTPServer) { s.BearerToken = "tok" }), CodeUnsupportedConfiguration},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRigWith(t, cfg)
			p := prepareFor("s1")
			tc.mut(&p)
			r.recv("p1", p)
			st := oneStatus(r)
			if tc.code == "" {
				require.Equal(t, wire.StatePreparing, st.State, "accepted")
				return
			}
			require.Equal(t, wire.StateRejected, st.State, "state")
			require.Equal(t, tc.code, st.ErrorCode, "code")
			require.Empty(t, r.calls(), "no native call")
		})
	}
}
