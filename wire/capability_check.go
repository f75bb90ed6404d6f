package wire

// CheckCapabilities reports the first capability a configuration needs
// that decl does not support, as a *CodeError with code
// unsupported_configuration (unsupported_read_preparation for the
// read-only profile). It covers the rules decidable from the payload alone
// (wire-reference §4.2); engine-profile rules (web search, verbosity) and
// Core's environment-type and recovery rules stay with their owners.
func (c ExecutionConfiguration) CheckCapabilities(decl AgentKindCapabilities) error {
	const f = "execution_prepare.configuration"
	if c.WorkspaceReadOnly {
		if !decl.WorkspaceReadPreparation.IsSupported() {
			return codeErr(PrepUnsupportedReadPreparation, f+".workspace_read_only", "needs workspace_read_preparation")
		}
		return nil
	}
	for _, need := range c.capabilityNeeds(decl) {
		if need.when && !need.cap.IsSupported() {
			return codeErr(PrepUnsupportedConfiguration, f+"."+need.field, "needs capability "+need.name)
		}
	}
	return nil
}

type capabilityNeed struct {
	when  bool
	cap   CapabilitySupport
	name  string // capability member
	field string // configuration member that needs it
}

func (c ExecutionConfiguration) capabilityNeeds(d AgentKindCapabilities) []capabilityNeed {
	var required, bearer bool
	servers := 0
	if c.MCPHTTPServers != nil {
		servers = len(*c.MCPHTTPServers)
		for _, s := range *c.MCPHTTPServers {
			required = required || s.Required
			bearer = bearer || s.BearerToken != ""
		}
	}
	deferred := false
	for _, t := range c.FunctionTools {
		deferred = deferred || t.DeferLoading
	}
	x := c.ExecutionControls
	return []capabilityNeed{
		{true, d.Preparation, "preparation", "agent_kind"},
		{c.DisableExecutionEnvironment, d.EnvironmentNone, "environment_none", "disable_execution_environment"},
		{c.LocalEnvironment != nil, d.LocalEnvironment, "local_environment", "local_environment"},
		{x != nil, d.ExecutionControls, "execution_controls", "execution_controls"},
		{x != nil && x.DisableProgrammaticToolCalling, d.ProgrammaticToolCallingDisable,
			"programmatic_tool_calling_disable", "execution_controls.disable_programmatic_tool_calling"},
		{x != nil && x.OutputFormat != nil, d.StructuredOutput, "structured_output", "execution_controls.output_format"},
		{x != nil && x.OutputFormat != nil, d.MessageItems, "message_items", "execution_controls.output_format"},
		{c.ObserveMessages, d.MessageItems, "message_items", "observe_messages"},
		{c.ObserveToolObservations, d.ToolObservations, "tool_observations", "observe_tool_observations"},
		{c.ObserveSubagentIdentities, d.SubagentObservations, "subagent_observations", "observe_subagent_identities"},
		{c.DisableSubagents, d.SubagentControl, "subagent_control", "disable_subagents"},
		{len(c.FunctionTools) > 0, d.FunctionTools, "function_tools", "function_tools"},
		{c.ToolSearch || deferred, d.ToolSearch, "tool_search", "tool_search"},
		{servers > 0, d.MCPHTTPTools, "mcp_http_tools", "mcp_http_servers"},
		{required, d.MCPHTTPRequired, "mcp_http_required", "mcp_http_servers"},
		{bearer, d.MCPHTTPBearerAuth, "mcp_http_bearer_auth", "mcp_http_servers"},
		{c.Input.HasImages(), d.MessageImages, "message_images", "input"},
	}
}
