package wire

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// AgentStateKeyPrefix prefixes the Session's state key: the Runtime
// requires agent_state_key = AgentStateKeyPrefix + session_id.
const AgentStateKeyPrefix = "agents-api-"

// AgentStateKey returns the state key the Runtime requires for a Session.
func AgentStateKey(sessionID string) string { return AgentStateKeyPrefix + sessionID }

func codeErr(code, field, detail string) error {
	return &CodeError{Code: code, Field: field, Detail: detail}
}

// Validate checks execution_prepare. Errors are *CodeError values carrying
// the preparation code the Runtime answers with (invalid_configuration,
// unsupported_configuration or unsupported_read_preparation).
//
// The wire validator owns every rule that needs only the payload: blank
// session, Run input present, state key, strict_resume, workspace_authoring,
// the environment rule, agent_options keys, MCP origins, function tools and
// the read-only profile. The Runtime owns the rest: capability checks
// against its own declaration (see CheckCapabilities), workspace binding,
// request conflicts, capacity, session ownership and native history.
func (p ExecutionPrepare) Validate() error {
	const f = "execution_prepare"
	if strings.TrimSpace(p.SessionID) == "" {
		return codeErr(PrepInvalidConfiguration, f+".session_id", "blank")
	}
	c := p.Configuration
	cf := f + ".configuration"
	switch {
	case c.RunID != "":
		return codeErr(PrepInvalidConfiguration, cf+".run_id", "must be empty for preparation")
	case c.ConversationID != "":
		return codeErr(PrepInvalidConfiguration, cf+".conversation_id", "must be empty for preparation")
	case c.Input != nil:
		return codeErr(PrepInvalidConfiguration, cf+".input", "must be absent for preparation")
	case c.WorkspaceAuthoring:
		return codeErr(PrepInvalidConfiguration, cf+".workspace_authoring", "must be false for preparation")
	case c.AgentStateKey != AgentStateKey(p.SessionID):
		return codeErr(PrepInvalidConfiguration, cf+".agent_state_key", "must be agents-api-<session_id>")
	case !c.StrictResume:
		return codeErr(PrepInvalidConfiguration, cf+".strict_resume", "must be true")
	}
	if c.WorkspaceReadOnly {
		return c.validateReadOnly(cf)
	}
	return c.validateCommon(cf)
}

// validateCommon holds the configuration rules shared by execution_prepare
// and the legacy prompt_request.
func (c ExecutionConfiguration) validateCommon(f string) error {
	if strings.TrimSpace(c.AgentKind) == "" {
		return codeErr(PrepInvalidConfiguration, f+".agent_kind", "blank")
	}
	if c.MaxConcurrentSubagents != nil && *c.MaxConcurrentSubagents < 0 {
		return codeErr(PrepInvalidConfiguration, f+".max_concurrent_subagents", "negative")
	}
	if (c.LocalEnvironment != nil) == c.DisableExecutionEnvironment {
		return codeErr(PrepUnsupportedConfiguration, f+".local_environment",
			"exactly one of local_environment and disable_execution_environment")
	}
	if c.LocalEnvironment != nil && strings.TrimSpace(c.LocalEnvironment.ID) == "" {
		return codeErr(PrepInvalidConfiguration, f+".local_environment.id", "blank")
	}
	if err := validateAgentOptions(c.AgentOptions, f+".agent_options"); err != nil {
		return err
	}
	if err := c.ExecutionControls.validate(f + ".execution_controls"); err != nil {
		return err
	}
	if err := c.validateMCP(f + ".mcp_http_servers"); err != nil {
		return err
	}
	return c.validateFunctionTools(f)
}

// AllowedAgentOptions lists the accepted agent_options keys, sorted.
var AllowedAgentOptions = []string{
	AgentOptionHarnessConfig, AgentOptionModel, AgentOptionModelProvider, AgentOptionSystemPrompt,
}

func validateAgentOptions(opts map[string]json.RawMessage, f string) error {
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !oneOf(k, AllowedAgentOptions...) {
			// The key itself is not echoed: it may carry anything.
			return codeErr(PrepUnsupportedConfiguration, f, "unknown agent option")
		}
		if len(opts[k]) == 0 {
			return codeErr(PrepInvalidConfiguration, f+"."+k, "empty value")
		}
	}
	return nil
}

func (x *ExecutionControls) validate(f string) error {
	if x == nil {
		return nil
	}
	if x.WebSearch == "" {
		return codeErr(PrepInvalidConfiguration, f+".web_search", "empty")
	}
	if x.TextVerbosity == "" {
		return codeErr(PrepInvalidConfiguration, f+".text_verbosity", "empty")
	}
	if o := x.OutputFormat; o != nil {
		if o.Type != OutputFormatJSONSchema {
			return codeErr(PrepUnsupportedConfiguration, f+".output_format.type", "must be json_schema")
		}
		if len(o.Schema) == 0 {
			return codeErr(PrepInvalidConfiguration, f+".output_format.schema", "missing")
		}
	}
	return nil
}

// OutputFormatJSONSchema is the only output_format type.
const OutputFormatJSONSchema = "json_schema"

// validateMCP applies the connection_origin rule: service needs
// disable_execution_environment, environment needs local_environment.
func (c ExecutionConfiguration) validateMCP(f string) error {
	if c.MCPHTTPServers == nil {
		return nil
	}
	for i, s := range *c.MCPHTTPServers {
		sf := fmt.Sprintf("%s[%d]", f, i)
		switch s.ConnectionOrigin {
		case OriginService:
			if !c.DisableExecutionEnvironment || c.LocalEnvironment != nil {
				return codeErr(PrepUnsupportedConfiguration, sf+".connection_origin", "service origin needs disable_execution_environment")
			}
		case OriginEnvironment:
			if c.LocalEnvironment == nil || c.DisableExecutionEnvironment {
				return codeErr(PrepUnsupportedConfiguration, sf+".connection_origin", "environment origin needs local_environment")
			}
		case "":
			return codeErr(PrepInvalidConfiguration, sf+".connection_origin", "missing")
		default:
			return codeErr(PrepInvalidConfiguration, sf+".connection_origin", "unknown origin")
		}
		if strings.TrimSpace(s.ServerLabel) == "" {
			return codeErr(PrepInvalidConfiguration, sf+".server_label", "blank")
		}
		if strings.TrimSpace(s.ServerURL) == "" {
			return codeErr(PrepInvalidConfiguration, sf+".server_url", "blank")
		}
	}
	return nil
}

// validateFunctionTools checks names and the tool-search rule: when
// tool_search is set or a tool defers loading, both must hold.
func (c ExecutionConfiguration) validateFunctionTools(f string) error {
	deferred := false
	for i, t := range c.FunctionTools {
		tf := fmt.Sprintf("%s.function_tools[%d]", f, i)
		if strings.TrimSpace(t.Name) == "" {
			return codeErr(PrepInvalidConfiguration, tf+".name", "blank")
		}
		for _, u := range c.FunctionTools[:i] {
			if u.Name == t.Name {
				return codeErr(PrepInvalidConfiguration, tf+".name", "duplicate")
			}
		}
		deferred = deferred || t.DeferLoading
	}
	if (c.ToolSearch || deferred) && !(c.ToolSearch && deferred) {
		return codeErr(PrepUnsupportedConfiguration, f+".tool_search", "tool search needs a deferred function and the reverse")
	}
	return nil
}

// validateReadOnly applies the read-only profile of §3.14.
func (c ExecutionConfiguration) validateReadOnly(f string) error {
	bad := func(member string) error {
		return codeErr(PrepUnsupportedReadPreparation, f+"."+member, "not allowed in the read-only profile")
	}
	switch {
	case c.LocalEnvironment == nil:
		return codeErr(PrepUnsupportedReadPreparation, f+".local_environment", "required by the read-only profile")
	case !c.ReleaseOnCompletion:
		return codeErr(PrepUnsupportedReadPreparation, f+".release_on_completion", "required by the read-only profile")
	case c.AgentSessionID != "":
		return bad("agent_session_id")
	case c.RequireExistingNativeSession:
		return bad("require_existing_native_session")
	case c.DisableExecutionEnvironment:
		return bad("disable_execution_environment")
	case c.AgentOptions != nil:
		return bad("agent_options")
	case c.ExecutionControls != nil:
		return bad("execution_controls")
	case c.MCPHTTPServers != nil:
		return bad("mcp_http_servers")
	case c.FunctionTools != nil:
		return bad("function_tools")
	case c.ToolSearch:
		return bad("tool_search")
	case c.ObserveMessages:
		return bad("observe_messages")
	case c.ObserveToolObservations:
		return bad("observe_tool_observations")
	case c.ObserveSubagentIdentities:
		return bad("observe_subagent_identities")
	case strings.TrimSpace(c.AgentKind) == "":
		return codeErr(PrepInvalidConfiguration, f+".agent_kind", "blank")
	case strings.TrimSpace(c.LocalEnvironment.ID) == "":
		return codeErr(PrepInvalidConfiguration, f+".local_environment.id", "blank")
	}
	return nil
}

// Validate checks execution_start. The Runtime answers any failure with
// `rejected invalid_start`.
func (p ExecutionStart) Validate() error {
	switch {
	case p.ExecutorID == "":
		return missing("execution_start.executor_id")
	case p.Handle == "":
		return missing("execution_start.handle")
	case strings.TrimSpace(p.RunID) == "":
		return invalid("execution_start.run_id", "blank")
	}
	return p.Input.validateAt("execution_start.input")
}

// Validate checks execution_release (the Runtime answers `invalid_release`).
func (p ExecutionRelease) Validate() error {
	if p.Handle == "" {
		return missing("execution_release.handle")
	}
	return nil
}

// Validate checks preparation_status: a known state; a rejection carries a
// known code and no revision rule; a resource state carries a handle and a
// revision > 0; failed carries a code, other resource states none.
func (s PreparationStatus) Validate() error {
	const f = "preparation_status"
	if !oneOf(s.State, PreparationStates...) {
		return invalid(f+".state", "unknown state")
	}
	if s.ErrorCode != "" && !oneOf(s.ErrorCode, PreparationErrorCodes...) {
		return invalid(f+".error_code", "unknown preparation error code")
	}
	if s.State == StateRejected {
		if s.ErrorCode == "" {
			return missing(f + ".error_code")
		}
		if s.Operation != "" && !oneOf(s.Operation, TypeExecutionPrepare, TypeExecutionStart, TypeExecutionRelease) {
			return invalid(f+".operation", "want execution_prepare, execution_start or execution_release")
		}
		return nil
	}
	switch {
	case s.Handle == "":
		return missing(f + ".handle")
	case s.Revision == 0:
		return invalid(f+".revision", "must be > 0")
	case s.Operation != "":
		return invalid(f+".operation", "only on rejected")
	case s.State == StateFailed && s.ErrorCode == "":
		return missing(f + ".error_code")
	case s.State != StateFailed && s.ErrorCode != "":
		return invalid(f+".error_code", "only on failed or rejected")
	case (s.State == StateStarting || s.State == StateStarted) && s.RunID == "":
		return missing(f + ".run_id")
	}
	return nil
}

// Deliverable applies Core's stream rule: a rejected status is always
// delivered; any other status only with a handle equal to the stream's
// first handle (firstHandle "" = none seen yet) and a revision strictly
// greater than the last delivered one.
func (s PreparationStatus) Deliverable(firstHandle string, lastRevision uint64) bool {
	if s.State == StateRejected {
		return true
	}
	if s.Handle == "" || s.Revision == 0 || s.Revision <= lastRevision {
		return false
	}
	return firstHandle == "" || s.Handle == firstHandle
}
