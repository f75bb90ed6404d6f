package core

import "github.com/turnstile-sim/turnstile/wire"

// Capability names (JSON member names of AgentKindCapabilities).
const (
	capStreaming                = "streaming"
	capSteering                 = "steering"
	capDurableTurns             = "durable_turns"
	capDurableInputReceipts     = "durable_input_receipts"
	capPreparation              = "preparation"
	capExecutionControls        = "execution_controls"
	capToolObservations         = "tool_observations"
	capEnvironmentNone          = "environment_none"
	capLocalEnvironment         = "local_environment"
	capWorkspaceReadPreparation = "workspace_read_preparation"
	capWorkspaceOutputExport    = "workspace_output_export"
	capNativeSessionRecovery    = "native_session_recovery"
	capWebSearchControl         = "web_search_control"
	capTextVerbosity            = "text_verbosity"
	capStructuredOutput         = "structured_output"
	capMessageItems             = "message_items"
	capSubagentObservations     = "subagent_observations"
	capSubagentControl          = "subagent_control"
	capToolSearch               = "tool_search"
	capProgrammaticDisable      = "programmatic_tool_calling_disable"
	capFunctionTools            = "function_tools"
	capMessageImages            = "message_images"
	capFunctionResultImages     = "function_result_images"
	capMCPHTTPTools             = "mcp_http_tools"
	capMCPHTTPRequired          = "mcp_http_required"
	capMCPHTTPBearerAuth        = "mcp_http_bearer_auth"
)

// alwaysRequired are required for every execution on a Harness.
var alwaysRequired = []string{
	capStreaming, capSteering, capDurableTurns, capDurableInputReceipts,
	capPreparation, capExecutionControls, capToolObservations,
}

// Requirements lists, in the admission table's order, the capabilities a
// Turn of session s needs. images reports whether the Turn's input (initial
// or active) carries an image.
func Requirements(s SessionRecord, profile EngineProfile, images bool) []string {
	return appendRequirements(nil, s, profile, images)
}

// appendRequirements appends Requirements(s, profile, images) to dst.
func appendRequirements(dst []string, s SessionRecord, profile EngineProfile, images bool) []string {
	a := s.Agent
	req := append(dst, alwaysRequired...)
	if a.Environment == EnvNone {
		req = append(req, capEnvironmentNone)
	} else {
		req = append(req, capLocalEnvironment, capWorkspaceReadPreparation, capWorkspaceOutputExport)
	}
	if s.StartedTurns > 0 && s.NativeSessionID == "" {
		req = append(req, capNativeSessionRecovery)
	}
	if profile.WebSearchControl {
		req = append(req, capWebSearchControl)
	}
	if profile.TextVerbosity {
		req = append(req, capTextVerbosity)
	}
	if a.OutputSchema != nil {
		req = append(req, capStructuredOutput, capMessageItems)
	}
	if a.MultiAgent {
		req = append(req, capSubagentObservations)
	} else {
		req = append(req, capSubagentControl)
	}
	if a.ToolSearch || deferredFunctions(a.FunctionTools) {
		req = append(req, capToolSearch)
	}
	if a.DisableProgrammaticToolCalling {
		req = append(req, capProgrammaticDisable)
	}
	if len(a.FunctionTools) > 0 {
		req = append(req, capFunctionTools)
	}
	if images {
		req = append(req, capMessageImages)
	}
	if a.FunctionResultImages {
		req = append(req, capFunctionResultImages)
	}
	return appendMCPRequirements(req, a.MCPServers)
}

func appendMCPRequirements(req []string, servers []wire.MCPHTTPServer) []string {
	if len(servers) == 0 {
		return req
	}
	req = append(req, capMCPHTTPTools)
	required, bearer := false, false
	for _, s := range servers {
		required = required || s.Required
		bearer = bearer || s.BearerToken != ""
	}
	if required {
		req = append(req, capMCPHTTPRequired)
	}
	if bearer {
		req = append(req, capMCPHTTPBearerAuth)
	}
	return req
}

func deferredFunctions(tools []wire.FunctionTool) bool {
	for _, t := range tools {
		if t.DeferLoading {
			return true
		}
	}
	return false
}

// missingCapability returns the first capability of req that caps does
// not declare supported, or "".
func missingCapability(caps wire.AgentKindCapabilities, req []string) string {
	for _, name := range req {
		v, found := caps.Lookup(name)
		if !found {
			assert.Failf("required capability %q is not a declaration field", name)
		}
		if !v.IsSupported() {
			return name
		}
	}
	return ""
}

// requirement is a set of required capabilities: the names in the
// admission table's order (the first missing one is the one reported)
// and the same names as a set, bit i standing for the member of
// wire.CapabilityIndex i.
type requirement struct {
	names []string
	set   uint64
}

// newRequirement is the requirement of names. Every name must be a
// member of the declaration.
func newRequirement(names ...string) requirement {
	r := requirement{names: names}
	for _, name := range names {
		i, ok := wire.CapabilityIndex(name)
		if !ok {
			assert.Failf("required capability %q is not a declaration field", name)
			continue
		}
		r.set |= 1 << i
	}
	return r
}

// Requirements of the workspace operations, checked against a
// connection's snapshot (checkConn).
var (
	reqNone          = newRequirement()
	reqWorkspaceRead = newRequirement(capWorkspaceReadPreparation)
	reqExport        = newRequirement(capWorkspaceReadPreparation, capWorkspaceOutputExport)
)

// declaredKind is a kind of a connection's snapshot with the set of the
// capabilities it declares supported (wire's SupportedSet), taken when the
// heartbeat is applied.
type declaredKind struct {
	wire.SupportedAgentKind
	supported uint64
}

// admission is the outcome of checking one connection for one Turn.
type admission int

const (
	admitUndeclared admission = iota // unknown snapshot, kind undeclared or unavailable
	admitMissing                     // kind declared available but a capability is missing
	admitOK
)

// checkConn applies the admission table to a connection's current
// snapshot. It never looks at another kind. A requirement the snapshot
// covers (every bit of req.set among the kind's supported ones) misses
// nothing; otherwise missingCapability names the first missing capability
// in req's order.
func checkConn(c *conn, kind string, req requirement) (admission, string, wire.AgentKindCapabilities) {
	if c == nil || !c.known {
		return admitUndeclared, "", wire.AgentKindCapabilities{}
	}
	k, ok := c.kinds[kind]
	if !ok || !k.Available {
		return admitUndeclared, "", wire.AgentKindCapabilities{}
	}
	if req.set&^k.supported != 0 {
		miss := missingCapability(k.Capabilities, req.names)
		assert.That(miss != "", "requirement set not covered, yet missingCapability names nothing")
		return admitMissing, miss, k.Capabilities
	}
	return admitOK, "", k.Capabilities
}
