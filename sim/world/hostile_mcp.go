package world

import (
	"bytes"

	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// mcpPrepares: prepares of Sessions of its own whose MCP servers break the
// connection rules of wire reference §3.14: an environment origin on a
// Session without an Environment, a missing or unknown origin, a blank
// label or URL, and (only where the kind declares it unsupported) a
// required server or a bearer token; function tools where the kind
// declares function_tools unsupported. The checker derives each answer from
// its own restatement of the configuration table and the daemon's declared
// capabilities (check.CondTable), never from the probe.
func (in *injector) mcpPrepares() {
	h := &in.u.hostile
	service := wire.MCPHTTPServer{ConnectionOrigin: wire.OriginService, ServerLabel: "docs", ServerURL: "https://mcp.example/docs"}
	variants := []func(*wire.MCPHTTPServer) string{
		func(s *wire.MCPHTTPServer) string { return `"connection_origin":"environment"` },
		func(s *wire.MCPHTTPServer) string { return `"connection_origin":""` },
		func(s *wire.MCPHTTPServer) string { return `"connection_origin":"elsewhere"` },
		func(s *wire.MCPHTTPServer) string { return `"server_label":" "` },
		func(s *wire.MCPHTTPServer) string { return `"server_url":" "` },
	}
	caps, ok := in.kindCaps()
	if ok && !caps.MCPHTTPRequired.IsSupported() {
		variants = append(variants, func(s *wire.MCPHTTPServer) string { s.Required = true; return "" })
	}
	if ok && !caps.MCPHTTPBearerAuth.IsSupported() {
		variants = append(variants, func(s *wire.MCPHTTPServer) string { s.BearerToken = "x-token"; return "" })
	}
	tools := ok && !caps.FunctionTools.IsSupported()
	if tools {
		// function tools where the kind declares function_tools
		// unsupported (whatever it says of tool_search)
		variants = append(variants, func(s *wire.MCPHTTPServer) string { return "function_tools" })
	}
	v := variants[in.r.IntN(len(variants))]
	srv := service
	edit := v(&srv)
	s, req := h.mint("s"), h.mint("p")
	c := hostileConfig(s, "m")
	c.MCPHTTPServers = &[]wire.MCPHTTPServer{srv}
	if edit == "function_tools" {
		edit, c.MCPHTTPServers = "", nil
		c.FunctionTools = []wire.FunctionTool{{Name: "lookup", Description: "look something up"}}
	}
	b := encodeFrame(req, wire.ExecutionPrepare{SessionID: s, Configuration: c})
	if edit != "" {
		// the encoder refuses these members: edit the bytes
		name, _, _ := bytes.Cut([]byte(edit), []byte(":"))
		var from []byte
		switch string(name) {
		case `"connection_origin"`:
			from = []byte(`"connection_origin":"service"`)
		case `"server_label"`:
			from = []byte(`"server_label":"docs"`)
		default:
			from = []byte(`"server_url":"https://mcp.example/docs"`)
		}
		b = bytes.Replace(b, from, []byte(edit), 1)
	}
	in.sendRaw(b, check.HostileProbe{Action: check.HostilePrepareMCP, ReplyID: req})
}

// kindCaps returns the capabilities the attacked daemon's first kind is
// configured with (the world's ground truth).
func (in *injector) kindCaps() (wire.AgentKindCapabilities, bool) {
	d := in.u.deviceByID(in.dev)
	if d == nil || len(d.Daemon.Kinds) == 0 {
		return wire.AgentKindCapabilities{}, false
	}
	return d.Daemon.Kinds[0].Capabilities, true
}
