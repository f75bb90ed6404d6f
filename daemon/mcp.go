package daemon

import "github.com/turnstile-sim/turnstile/wire"

// mcpOriginRefusal applies the shared wire validator's origin rule to the
// configuration's MCP servers before a factory is chosen: a missing or
// unknown origin is invalid_configuration, an origin the binding cannot
// serve unsupported_configuration; nothing is defaulted here. The kind's
// declared HTTP MCP, required start-up and bearer capabilities are
// wire.CheckCapabilities' rows, checked after it.
func mcpOriginRefusal(c wire.ExecutionConfiguration) string {
	if c.MCPHTTPServers == nil {
		return ""
	}
	if err := c.ValidateMCPOrigins(); err != nil {
		if code := wire.ErrorCode(err); code == CodeInvalidConfiguration {
			return code
		}
		return CodeUnsupportedConfiguration
	}
	return ""
}
