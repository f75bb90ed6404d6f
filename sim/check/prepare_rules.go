package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/turnstile-sim/turnstile/wire"
)

// checkPrepareConfig judges prepare_configuration (rules.go) but for the
// native continuity fields (checkNativeHistory), against the Session's
// frozen values derived from the client's request.
func (l *Ledger) checkPrepareConfig(ev WireEvent, p wire.ExecutionPrepare, s *sessionFacts) {
	spec, cfg := s.spec, p.Configuration
	var bad findings
	bad.want(cfg.AgentKind == spec.Kind, "agent_kind %q, want %q", cfg.AgentKind, spec.Kind)
	bad.want(cfg.RunID == "" && cfg.ConversationID == "" && len(cfg.Input) == 0, "carries Run input or identity")
	bad.want(cfg.AgentStateKey == stateKeyPrefix+p.SessionID, "agent_state_key %q", cfg.AgentStateKey)
	bad.want(cfg.StrictResume, "strict_resume not set")
	bad.want(!cfg.WorkspaceAuthoring && !cfg.WorkspaceReadOnly, "workspace_authoring or workspace_read_only set")
	switch local := cfg.LocalEnvironment; {
	case spec.Environment == EnvNone && (!cfg.DisableExecutionEnvironment || local != nil):
		bad = append(bad, "environment none needs disable_execution_environment and no local_environment")
	case spec.Environment != EnvNone && (cfg.DisableExecutionEnvironment || local == nil):
		bad = append(bad, fmt.Sprintf("environment %s needs local_environment and no disable_execution_environment", spec.Environment))
	case local != nil && local.ID != spec.EnvironmentID:
		bad = append(bad, fmt.Sprintf("local_environment.id %q, want %q", local.ID, spec.EnvironmentID))
	}
	bad = append(bad, agentOptionsMismatch(spec, cfg.AgentOptions)...)
	if c := cfg.ExecutionControls; c == nil {
		bad = append(bad, "execution_controls missing")
	} else {
		bad.want(c.WebSearch == webSearchDisabled, "web_search %q, want %q", c.WebSearch, webSearchDisabled)
		bad.want(c.TextVerbosity == spec.frozenVerbosity(), "text_verbosity %q, want %q", c.TextVerbosity, spec.frozenVerbosity())
		bad.want(c.DisableProgrammaticToolCalling == spec.DisableProgrammaticToolCalling,
			"disable_programmatic_tool_calling %v", c.DisableProgrammaticToolCalling)
		switch {
		case spec.OutputSchema == nil && c.OutputFormat != nil:
			bad = append(bad, "output_format without an output schema")
		case spec.OutputSchema != nil && c.OutputFormat == nil:
			bad = append(bad, "output_format missing for the Agent's output schema")
		case spec.OutputSchema != nil && (c.OutputFormat.Type != wire.OutputFormatJSONSchema || !sameJSON(c.OutputFormat.Schema, spec.OutputSchema)):
			bad = append(bad, fmt.Sprintf("output_format %s %s, want json_schema with the Agent's schema", c.OutputFormat.Type, c.OutputFormat.Schema))
		}
	}
	if c := l.frames.conns[ev.Conn]; c != nil && c.known && !c.opaque {
		items := c.kinds[spec.Kind].Capabilities.MessageItems.IsSupported()
		bad.want(cfg.ObserveMessages == items, "observe_messages %v, declaration's message_items %v", cfg.ObserveMessages, items)
	}
	bad.want(cfg.ObserveSubagentIdentities == spec.MultiAgent && cfg.DisableSubagents == !spec.MultiAgent,
		"observe_subagent_identities %v, disable_subagents %v with multi_agent %v",
		cfg.ObserveSubagentIdentities, cfg.DisableSubagents, spec.MultiAgent)
	bad.want(len(cfg.FunctionTools)+len(spec.FunctionTools) == 0 || reflect.DeepEqual(cfg.FunctionTools, spec.FunctionTools),
		"function_tools differ from the Agent's")
	bad.want(cfg.ToolSearch == spec.toolSearch(), "tool_search %v, want %v", cfg.ToolSearch, spec.toolSearch())
	// absent keeps native behaviour; an explicit empty list travels as []
	switch servers := cfg.MCPHTTPServers; {
	case spec.MCPServers == nil:
		bad.want(servers == nil, "mcp_http_servers for an Agent that declared no list")
	case len(spec.MCPServers) == 0:
		bad.want(servers != nil && len(*servers) == 0, "the Agent's explicit empty mcp_http_servers does not travel as []")
	default:
		bad.want(servers != nil && reflect.DeepEqual(*servers, spec.frozenMCP()),
			"mcp_http_servers differ from the Agent's frozen servers")
	}
	if len(bad) > 0 {
		l.violate(ev.At, CheckPrepareConfiguration, "execution_prepare %s of session %s: %s",
			ev.Frame.ID, p.SessionID, strings.Join(bad, "; "))
	}
}

// findings collects what a frame gets wrong, each formatted only when
// found.
type findings []string

func (f *findings) want(ok bool, format string, args ...any) {
	if !ok {
		*f = append(*f, fmt.Sprintf(format, args...))
	}
}

func agentOptionsMismatch(spec SessionSpec, opts map[string]json.RawMessage) []string {
	// The keys the Session wants, and their values, in ascending order (agentOptionKeys).
	wanted := [len(agentOptionKeys)]bool{spec.HarnessConfig != nil, true, spec.ModelProvider != "", true}
	values := [len(agentOptionKeys)][]byte{spec.HarnessConfig, jsonText(spec.Model), jsonText(spec.ModelProvider), jsonText(spec.SystemPrompt)}
	var bad []string
	for _, key := range sortedKeys(opts) {
		if i := slices.Index(agentOptionKeys[:], key); i < 0 || !wanted[i] {
			bad = append(bad, fmt.Sprintf("agent_options carries %q", key))
		}
	}
	for i, key := range agentOptionKeys {
		got, ok := opts[key]
		switch {
		case !wanted[i]:
		case !ok:
			bad = append(bad, fmt.Sprintf("agent_options lacks %q", key))
		case !sameJSON(got, values[i]):
			bad = append(bad, fmt.Sprintf("agent_options %q is %s, want %s", key, got, values[i]))
		}
	}
	return bad
}

// agentOptionKeys are the agent_options keys a Session may want, in
// ascending order (TestAgentOptionKeysSorted), the order in which
// agentOptionsMismatch names what is missing or different.
var agentOptionKeys = [...]string{wire.AgentOptionHarnessConfig, wire.AgentOptionModel,
	wire.AgentOptionModelProvider, wire.AgentOptionSystemPrompt}

// sameJSON compares two JSON values ignoring insignificant whitespace.
func sameJSON(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true // equal texts compact alike, or fail to alike
	}
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// jsonText is s as a JSON string (a string always marshals).
func jsonText(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

// checkNativeHistory judges the native continuity fields (prepare_configuration
// and native_history, rules.go).
func (l *Ledger) checkNativeHistory(at int64, what string, cfg wire.ExecutionConfiguration, s *sessionFacts) {
	switch {
	case len(s.runs) == 0 && (cfg.RequireExistingNativeSession || cfg.AgentSessionID != ""):
		l.violate(at, CheckPrepareConfiguration,
			"%s: require_existing_native_session %v, agent_session_id %q, but Core never started a Run of the session",
			what, cfg.RequireExistingNativeSession, cfg.AgentSessionID)
	case cfg.RequireExistingNativeSession && cfg.AgentSessionID != "":
		l.violate(at, CheckPrepareConfiguration, "%s: require_existing_native_session with agent_session_id %q", what, cfg.AgentSessionID)
	case cfg.AgentSessionID != "" && !s.nativeIDs[cfg.AgentSessionID]:
		l.violate(at, CheckPrepareConfiguration, "%s: agent_session_id %q, Core received only %v for the session",
			what, cfg.AgentSessionID, sortedKeys(s.nativeIDs))
	case cfg.AgentSessionID == "" && !cfg.RequireExistingNativeSession:
		if run := l.nativeHistoryRun(s); run != "" {
			l.violate(at, CheckNativeHistory,
				"%s names no native session and does not require existing history, but run %s created native history",
				what, run)
		}
	}
}

// readOnlyPrepareSent judges a read-only profile Core sent (prepare_configuration,
// rules.go, and the seed's 工作区操作): to a device declaring the Session's
// kind available with workspace_read_preparation, with the Session's exact
// Environment and identity, release_on_completion, and nothing of an execution.
func (l *Ledger) readOnlyPrepareSent(ev WireEvent, p wire.ExecutionPrepare, s *sessionFacts) {
	what := "read-only execution_prepare " + ev.Frame.ID + " of session " + p.SessionID
	l.checkDeclaration(ev.At, ev.Conn, what, s.spec.Kind, []string{capWorkspaceReadPreparation})
	c := p.Configuration
	var bad findings
	bad.want(s.spec.Environment != EnvNone, "a Session without an Environment")
	bad.want(c.AgentKind == s.spec.Kind, "agent_kind %q, want %q", c.AgentKind, s.spec.Kind)
	bad.want(c.LocalEnvironment != nil && c.LocalEnvironment.ID == s.spec.EnvironmentID, "not the Session's Environment")
	bad.want(c.AgentStateKey == stateKeyPrefix+p.SessionID && c.StrictResume && c.ReleaseOnCompletion,
		"state key, strict_resume or release_on_completion")
	bad.want(c.RunID == "" && c.ConversationID == "" && c.Input == nil && c.AgentSessionID == "" &&
		!c.RequireExistingNativeSession, "carries Run input or native continuation")
	bad.want(c.AgentOptions == nil && c.ExecutionControls == nil && c.MCPHTTPServers == nil && c.FunctionTools == nil &&
		!c.ToolSearch && !c.DisableExecutionEnvironment && !c.WorkspaceAuthoring, "carries execution options")
	bad.want(!c.ObserveMessages && !c.ObserveToolObservations && !c.ObserveSubagentIdentities, "asks for observations")
	for _, b := range bad {
		l.violate(ev.At, CheckPrepareConfiguration, "%s: %s", what, b)
	}
}

// mcpExpected is the content code the seeds' MCP connection rules
// (core-runtime MCP 连接权限; wire-reference §3.14) give an
// execution_prepare ("" none): an origin missing or unknown (never
// defaulted), a blank label or URL is invalid_configuration; an origin its
// environment settings do not fit, or a server the kind's mcp_http_*
// capabilities do not cover, is unsupported_configuration.
func mcpExpected(c wire.ExecutionConfiguration, caps wire.AgentKindCapabilities) string {
	if c.MCPHTTPServers == nil {
		return ""
	}
	servers := *c.MCPHTTPServers
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
	}
	if (len(servers) > 0 && !caps.MCPHTTPTools.IsSupported()) ||
		(slices.ContainsFunc(servers, mcpRequired) && !caps.MCPHTTPRequired.IsSupported()) ||
		(slices.ContainsFunc(servers, mcpBearer) && !caps.MCPHTTPBearerAuth.IsSupported()) {
		return "unsupported_configuration"
	}
	return ""
}
