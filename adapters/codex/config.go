package codex

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// Configuration is the codex kind's model configuration: app-server talks
// to a model provider over the Responses API (wire_api = "responses").
func Configuration() agent.ModelConfiguration {
	return agent.ModelConfiguration{Protocols: []agent.ModelProtocol{agent.ProtocolOpenAIResponses}}
}

// Approval modes of Options.Approvals.
const (
	// ApprovalsNever (the default): tools run unattended with the
	// launching user's rights (approval policy never, full access), so
	// app-server never asks for an approval.
	ApprovalsNever = "never"
	// ApprovalsOnRequest: tools still run with full access and no native
	// sandbox, but app-server asks before each file change and each
	// command it does not know to be safe (native approval policy
	// untrusted); each such approval is a permission request of the Turn.
	ApprovalsOnRequest = "on-request"
)

// Native approval policies and sandbox mode. Both modes run with full
// access: the adapter adds no native sandbox (no workspace-write or
// read-only sandbox, no permission profile, no bubblewrap). Codex's own
// on-request policy asks nothing under full access, so the on-request
// mode uses untrusted, which asks whatever the sandbox.
const (
	policyNever     = "never"
	policyUntrusted = "untrusted"
	sandboxFull     = "danger-full-access"
	// appliedFull is the SandboxPolicy tag app-server reports for
	// sandboxFull.
	appliedFull = "dangerFullAccess"
)

// CheckApprovals validates an approval mode of Options.Approvals.
func CheckApprovals(mode string) error {
	switch mode {
	case "", ApprovalsNever, ApprovalsOnRequest:
		return nil
	}
	return fmt.Errorf("codex: approval mode %q is not %q or %q", mode, ApprovalsNever, ApprovalsOnRequest)
}

// approvals reports whether the Harness runs in the on-request mode.
func (h *Harness) approvals() bool { return h.opts.Approvals == ApprovalsOnRequest }

func (h *Harness) approvalPolicy() string {
	if h.approvals() {
		return policyUntrusted
	}
	return policyNever
}

// ErrNativePolicy reports a thread app-server started or resumed with
// another approval policy or sandbox than the adapter asked for (a
// managed requirements file may constrain both): the Executor is not
// used.
var ErrNativePolicy = errors.New("codex: app-server applied another approval policy or sandbox")

// checkApplied compares the policy app-server reports for the thread with
// the one asked for: full access, and the mode's approval policy.
func (h *Harness) checkApplied(approval json.RawMessage, sandbox sandboxPolicy) error {
	var got string
	if json.Unmarshal(approval, &got) != nil || got != h.approvalPolicy() {
		return fmt.Errorf("%w: approval policy %s, want %q", ErrNativePolicy, approval, h.approvalPolicy())
	}
	if sandbox.Type != appliedFull {
		return fmt.Errorf("%w: sandbox %q, want %q", ErrNativePolicy, sandbox.Type, appliedFull)
	}
	return nil
}

// Accepted execution control values.
var (
	webSearchModes  = map[string]bool{"disabled": true, "cached": true, "live": true}
	verbosityLevels = map[string]bool{"low": true, "medium": true, "high": true}
)

// nativeConfig is what an Executor sends to thread/start or thread/resume
// and with each turn/start.
type nativeConfig struct {
	model, provider, instructions string
	config                        map[string]any
	outputSchema                  json.RawMessage
	observeMessages               bool
}

// controlledKeys are thread config keys the adapter sets itself; a
// harness_config naming one of them is refused.
var controlledKeys = []string{"web_search", "model_verbosity", "features"}

// buildConfig validates cfg before any native side effect and maps it to
// the native settings.
func buildConfig(cfg agent.ExecutorConfig) (nativeConfig, error) {
	c := cfg.Configuration
	var nc nativeConfig
	if cfg.SessionID == "" {
		return nc, fmt.Errorf("%w: blank session ID", agent.ErrInvalidConfiguration)
	}
	if c.AgentKind != "" && c.AgentKind != Kind {
		return nc, fmt.Errorf("%w: configuration for another kind", agent.ErrInvalidConfiguration)
	}
	if c.LocalEnvironment != nil && cfg.WorkspaceRoot == "" {
		return nc, fmt.Errorf("%w: a local environment needs a bound workspace", agent.ErrInvalidConfiguration)
	}
	if len(cfg.MCP.Servers) > 0 {
		// the effective binding: public servers and those the installed
		// plugins declare; none is qualified, so none is dropped silently
		return nc, agent.Unsupported(reasonMCP)
	}
	if err := refuseUnqualified(c); err != nil {
		return nc, err
	}
	if err := Configuration().ValidateOptions(c.AgentOptions); err != nil {
		return nc, err
	}
	opt := func(key string) string {
		var s string
		_ = json.Unmarshal(c.AgentOptions[key], &s)
		return s
	}
	nc.model, nc.provider, nc.instructions = opt(wire.AgentOptionModel), opt(wire.AgentOptionModelProvider), opt(wire.AgentOptionSystemPrompt)
	nc.config = map[string]any{}
	if raw, ok := c.AgentOptions[wire.AgentOptionHarnessConfig]; ok {
		var hc map[string]any
		if err := json.Unmarshal(raw, &hc); err != nil {
			return nc, fmt.Errorf("%w: agent_options.harness_config must be an object", agent.ErrInvalidConfiguration)
		}
		for _, k := range controlledKeys {
			if _, ok := hc[k]; ok {
				return nc, fmt.Errorf("%w: harness_config.%s is set by the adapter", agent.ErrUnsupportedConfiguration, k)
			}
		}
		maps.Copy(nc.config, hc)
	}
	if err := applyControls(&nc, c.ExecutionControls); err != nil {
		return nc, err
	}
	// No command execution and no subagents: the native shell,
	// multi-agent and goal tools are turned off. (Codex 0.171.0 has no
	// switch for apply_patch and view_image; they act on the working
	// directory: the Environment's bound workspace, or a private one.)
	nc.config["features"] = map[string]any{"shell_tool": false, "unified_exec": false, "multi_agent": false, "goals": false}
	nc.observeMessages = c.ObserveMessages
	return nc, nil
}

func refuseUnqualified(c wire.ExecutionConfiguration) error {
	switch {
	case len(c.FunctionTools) > 0:
		return agent.Unsupported(reasonFunctions)
	case c.ToolSearch:
		return agent.Unsupported(reasonToolSearch)
	case c.MCPHTTPServers != nil && len(*c.MCPHTTPServers) > 0:
		return agent.Unsupported(reasonMCP)
	case c.MaxConcurrentSubagents != nil && *c.MaxConcurrentSubagents > 0:
		return agent.Unsupported(reasonSubagents)
	case c.ObserveSubagentIdentities:
		return agent.Unsupported(reasonSubagents)
	case c.WorkspaceAuthoring:
		return agent.Unsupported(reasonWorkspace)
	}
	return nil
}

func applyControls(nc *nativeConfig, ec *wire.ExecutionControls) error {
	if ec == nil {
		nc.config["web_search"] = "disabled"
		return nil
	}
	if ec.DisableProgrammaticToolCalling {
		return agent.Unsupported(reasonProgrammatic)
	}
	ws := ec.WebSearch
	if ws == "" {
		ws = "disabled"
	}
	if !webSearchModes[ws] {
		return fmt.Errorf("%w: execution_controls.web_search value not supported", agent.ErrUnsupportedConfiguration)
	}
	nc.config["web_search"] = ws
	if v := ec.TextVerbosity; v != "" {
		if !verbosityLevels[v] {
			return fmt.Errorf("%w: execution_controls.text_verbosity value not supported", agent.ErrUnsupportedConfiguration)
		}
		nc.config["model_verbosity"] = v
	}
	if f := ec.OutputFormat; f != nil {
		if f.Type != "json_schema" || len(f.Schema) == 0 {
			return fmt.Errorf("%w: execution_controls.output_format must be a json_schema", agent.ErrUnsupportedConfiguration)
		}
		nc.outputSchema = f.Schema
	}
	return nil
}
