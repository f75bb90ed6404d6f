package wire

// ValidateMCPOrigins applies the shared connection_origin rule of
// wire-reference §3.14 to the configuration's MCP servers, alone: a
// missing or unknown origin is invalid_configuration, an origin the
// environment binding cannot serve unsupported_configuration, and a blank
// label or URL invalid_configuration. The Runtime runs it before choosing
// a factory; it never defaults an origin.
func (c ExecutionConfiguration) ValidateMCPOrigins() error {
	return c.validateMCP("execution_prepare.configuration.mcp_http_servers")
}
