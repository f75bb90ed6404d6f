package check

import (
	"strings"

	"github.com/turnstile-sim/turnstile/wire"
)

// mcpExpected restates the MCP connection rules of the seeds
// (core-runtime-protocol, MCP 连接权限; wire-reference §3.14) for an
// execution_prepare: every public server carries an explicit origin,
// missing or unknown is invalid_configuration (never defaulted); service
// needs disable_execution_environment without local_environment and
// environment needs local_environment, else unsupported_configuration; a
// blank label or URL is invalid_configuration; then the kind must declare
// mcp_http_tools, and mcp_http_required / mcp_http_bearer_auth for a
// required or credentialed server.
func mcpExpected(c wire.ExecutionConfiguration, caps wire.AgentKindCapabilities) string {
	if c.MCPHTTPServers == nil {
		return ""
	}
	servers := *c.MCPHTTPServers
	required, bearer := false, false
	for _, s := range servers {
		switch {
		case s.ConnectionOrigin == originService && c.DisableExecutionEnvironment && c.LocalEnvironment == nil:
		case s.ConnectionOrigin == originEnvironment && c.LocalEnvironment != nil && !c.DisableExecutionEnvironment:
		case s.ConnectionOrigin == originService, s.ConnectionOrigin == originEnvironment:
			return "unsupported_configuration"
		default:
			return "invalid_configuration"
		}
		if strings.TrimSpace(s.ServerLabel) == "" || strings.TrimSpace(s.ServerURL) == "" {
			return "invalid_configuration"
		}
		required = required || s.Required
		bearer = bearer || s.BearerToken != ""
	}
	if (len(servers) > 0 && !caps.MCPHTTPTools.IsSupported()) ||
		(required && !caps.MCPHTTPRequired.IsSupported()) || (bearer && !caps.MCPHTTPBearerAuth.IsSupported()) {
		return "unsupported_configuration"
	}
	return ""
}
