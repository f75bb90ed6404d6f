package daemon

import "github.com/turnstile-sim/turnstile/wire"

// mcpRefusal checks the configuration's MCP servers before a factory is
// chosen: first the shared wire validator's origin rule (a missing or
// unknown origin is invalid_configuration, an origin the binding cannot
// serve unsupported_configuration; nothing is defaulted here), then the
// kind's declared HTTP MCP, required start-up and bearer capabilities.
func mcpRefusal(c wire.ExecutionConfiguration, caps wire.AgentKindCapabilities) string {
	if c.MCPHTTPServers == nil {
		return ""
	}
	if err := c.ValidateMCPOrigins(); err != nil {
		if code := wire.ErrorCode(err); code == CodeInvalidConfiguration {
			return code
		}
		return CodeUnsupportedConfiguration
	}
	servers := *c.MCPHTTPServers
	required, bearer := false, false
	for _, s := range servers {
		required = required || s.Required
		bearer = bearer || s.BearerToken != ""
	}
	switch {
	case len(servers) > 0 && !caps.MCPHTTPTools.IsSupported(),
		required && !caps.MCPHTTPRequired.IsSupported(),
		bearer && !caps.MCPHTTPBearerAuth.IsSupported():
		return CodeUnsupportedConfiguration
	}
	return ""
}
