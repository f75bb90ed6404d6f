package check

import (
	"cmp"
	"slices"

	"github.com/turnstile-sim/turnstile/wire"
)

// SessionSpec is a Session's agent configuration as the API client asked
// for it (the request, not Core's frozen record), with the engine profile
// the deployment configured for its Harness kind. The oracles of
// execution_prepare derive Core's frozen values from it by the seeds'
// rules, written out again here.
type SessionSpec struct {
	Kind          string
	Model         string
	SystemPrompt  string
	ModelProvider string // "" when the Session froze none
	HarnessConfig []byte // nil when the Agent set none
	TextVerbosity string // as requested; "" means the default

	Environment   string // EnvNone, "self_hosted" or "openai_hosted"
	EnvironmentID string

	OutputSchema                   []byte // non-nil asks for json_schema output
	MultiAgent                     bool
	FunctionTools                  []wire.FunctionTool
	ToolSearch                     bool
	DisableProgrammaticToolCalling bool
	FunctionResultImages           bool
	MCPServers                     []wire.MCPHTTPServer

	// The engine profile of Kind declares these controls.
	ProfileWebSearchControl bool
	ProfileTextVerbosity    bool
}

// EnvNone is the Environment type without an execution environment.
const EnvNone = "none"

// Frozen values the seeds give for a Session's configuration.
const (
	webSearchDisabled = "disabled" // execution_controls.web_search, always
	stateKeyPrefix    = "agents-api-"
	originService     = "service"
	originEnvironment = "environment"
)

// frozenVerbosity is the text verbosity Core must send for the Session.
func (s SessionSpec) frozenVerbosity() string { return cmp.Or(s.TextVerbosity, "medium") }

// toolSearch: tool search is on when asked for or when a function loads
// lazily (deferred loading enables it).
func (s SessionSpec) toolSearch() bool {
	return s.ToolSearch || slices.ContainsFunc(s.FunctionTools, func(ft wire.FunctionTool) bool { return ft.DeferLoading })
}

// frozenMCP is the Session's MCP servers with the connection origin
// defaulted at creation (service without an environment, environment
// with one).
func (s SessionSpec) frozenMCP() []wire.MCPHTTPServer {
	out, origin := make([]wire.MCPHTTPServer, 0, len(s.MCPServers)), originEnvironment
	if s.Environment == EnvNone {
		origin = originService
	}
	for _, m := range s.MCPServers {
		m.ConnectionOrigin = cmp.Or(m.ConnectionOrigin, origin)
		out = append(out, m)
	}
	return out
}

// Capability names other oracles ask a declaration for (JSON members of
// AgentKindCapabilities).
const (
	capToolObservations         = "tool_observations"
	capNativeSessionRecovery    = "native_session_recovery"
	capWorkspaceReadPreparation = "workspace_read_preparation"
)

// RequiredCapabilities is the seed's admission table: the capabilities a
// Turn of the Session needs at device selection and at the final check.
// recovery says the Session must recover native history it cannot name
// (it started a Turn and no native session ID is known); images that the
// Turn's input carries an image. The result is in table order.
func RequiredCapabilities(s SessionSpec, recovery, images bool) []string {
	req := []string{"streaming", "steering", "durable_turns", "durable_input_receipts",
		"preparation", "execution_controls", capToolObservations}
	add := func(cond bool, names ...string) {
		if cond {
			req = append(req, names...)
		}
	}
	add(s.Environment == EnvNone, "environment_none")
	add(s.Environment != EnvNone, "local_environment", capWorkspaceReadPreparation, "workspace_output_export")
	add(recovery, capNativeSessionRecovery)
	add(s.ProfileWebSearchControl, "web_search_control")
	add(s.ProfileTextVerbosity, "text_verbosity")
	add(s.OutputSchema != nil, "structured_output", "message_items")
	add(s.MultiAgent, "subagent_observations")
	add(!s.MultiAgent, "subagent_control")
	add(s.toolSearch(), "tool_search")
	add(s.DisableProgrammaticToolCalling, "programmatic_tool_calling_disable")
	add(len(s.FunctionTools) > 0, "function_tools")
	add(images, "message_images")
	add(s.FunctionResultImages, "function_result_images")
	add(len(s.MCPServers) > 0, "mcp_http_tools")
	add(slices.ContainsFunc(s.MCPServers, mcpRequired), "mcp_http_required")
	add(slices.ContainsFunc(s.MCPServers, mcpBearer), "mcp_http_bearer_auth")
	return req
}

// missingCapabilities lists, sorted, the required names not supported by
// the declaration; a name the declaration does not know counts as missing.
func missingCapabilities(required []string, declared wire.AgentKindCapabilities) []string {
	var out []string
	for _, name := range required {
		if v, _ := declared.Lookup(name); !v.IsSupported() { // unknown: unspecified
			out = append(out, name)
		}
	}
	return sortedUnique(out)
}

// An MCP server needs mcp_http_required when required, mcp_http_bearer_auth with a token.
func mcpRequired(m wire.MCPHTTPServer) bool { return m.Required }
func mcpBearer(m wire.MCPHTTPServer) bool   { return m.BearerToken != "" }

func hasImages(in wire.MessageInput) bool {
	for _, m := range in {
		for _, p := range m.Content {
			if p.Type == wire.ContentInputImage {
				return true
			}
		}
	}
	return false
}
