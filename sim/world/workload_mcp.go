package world

import (
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

// drawMCP gives one Session in three HTTP MCP servers, from its own
// stream (so the workload's other draws stay as they are): most without
// a connection_origin (Core defaults it from the Environment binding),
// some with the matching origin spelled out, some required or with a
// bearer token (a kind that does not declare those refuses the Session).
func (wl *workload) drawMCP(env core.EnvironmentKind) []wire.MCPHTTPServer {
	r := wl.u.w.Rand("agent_mcp")
	if r.IntN(3) != 0 {
		return nil
	}
	s := wire.MCPHTTPServer{ServerLabel: "docs", ServerURL: "https://mcp.example/docs"}
	if r.IntN(4) == 0 {
		s.ConnectionOrigin = wire.OriginEnvironment
		if env == core.EnvNone {
			s.ConnectionOrigin = wire.OriginService
		}
	}
	s.Required = r.IntN(4) == 0
	if r.IntN(4) == 0 {
		s.BearerToken = "sim-token"
	}
	return []wire.MCPHTTPServer{s}
}
