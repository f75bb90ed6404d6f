package world

import (
	"fmt"
	"math/rand/v2"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

// Seeded MCP servers of the Agents: a quarter of the Sessions declare one
// or two HTTP MCP servers, each with a bearer token drawn for this run
// (origin left to Core's frozen default, required and allow-lists
// varied, the origin sometimes spelled out). The tokens are the secrets mcp_tokens.go looks for in every
// trace line and wire frame. Draws come from their own stream, so the
// other workload draws are unchanged.

type wMCP struct {
	r      *rand.Rand
	tokens []string // every drawn token, in draw order
}

func (wl *workload) drawMCP(a *core.AgentConfig, i int) {
	if wl.mcp == nil {
		wl.mcp = &wMCP{r: wl.u.w.Rand("workload:mcp")}
	}
	r := wl.mcp.r
	if r.IntN(4) != 0 {
		return
	}
	n := 1 + r.IntN(2)
	a.MCPServers = make([]wire.MCPHTTPServer, n)
	for j := range n {
		tok := fmt.Sprintf("simtok-%016x%016x", r.Uint64(), r.Uint64())
		wl.mcp.tokens = append(wl.mcp.tokens, tok)
		s := wire.MCPHTTPServer{ServerLabel: fmt.Sprintf("mcp-%d-%d", i, j), ServerURL: fmt.Sprintf("https://mcp.sim/%d/%d", i, j),
			BearerToken: tok, Required: r.IntN(3) == 0}
		switch r.IntN(3) {
		case 0:
			s.AllowedTools = &[]string{}
		case 1:
			s.AllowedTools = &[]string{"search", "fetch"}
		}
		if r.IntN(4) == 0 { // the origin spelled out, matching the binding
			s.ConnectionOrigin = wire.OriginEnvironment
			if a.Environment == core.EnvNone {
				s.ConnectionOrigin = wire.OriginService
			}
		}
		a.MCPServers[j] = s
	}
}

// mcpTokens lists the tokens drawn so far.
func (wl *workload) mcpTokens() []string {
	if wl.mcp == nil {
		return nil
	}
	return wl.mcp.tokens
}

// drawEmptyMCP gives a Session without servers an explicit empty list in
// some draws, from its own stream: [] declares no servers (wire reference
// §3.14), travels as [] and requires no MCP capability, where an absent
// list keeps native behaviour.
func (wl *workload) drawEmptyMCP(a *core.AgentConfig) {
	if wl.mcpEmpty == nil {
		wl.mcpEmpty = wl.u.w.Rand("workload:mcp-empty")
	}
	if wl.mcpEmpty.IntN(4) == 0 && a.MCPServers == nil {
		a.MCPServers = []wire.MCPHTTPServer{}
	}
}
