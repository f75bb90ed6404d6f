package acp

import (
	"encoding/json"
	"fmt"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// claudeRemovedTools are the Claude Code tools a claude-agent-acp session
// runs without (its _meta.claudeCode.options.disallowedTools): web search
// and fetch (web search is disabled) and the subagent tools (subagents are
// off).
var claudeRemovedTools = []string{"WebSearch", "WebFetch", "Task", "Agent", "SendMessage", "ListAgents"}

// defaultVerbosity is the text verbosity Core sends when none was chosen.
const defaultVerbosity = "medium"

// buildConfig validates cfg against the profile's declaration before any
// native side effect and returns the session's model.
func buildConfig(p Profile, caps wire.AgentKindCapabilities, cfg agent.ExecutorConfig) (string, error) {
	if err := refuse(p, caps, cfg); err != nil {
		return "", err
	}
	var model string
	_ = json.Unmarshal(cfg.Configuration.AgentOptions[wire.AgentOptionModel], &model)
	return model, nil
}

func refuse(p Profile, caps wire.AgentKindCapabilities, cfg agent.ExecutorConfig) error {
	c := cfg.Configuration
	switch {
	case cfg.SessionID == "":
		return fmt.Errorf("%w: blank session ID", agent.ErrInvalidConfiguration)
	case c.AgentKind != "" && c.AgentKind != p.Kind():
		return fmt.Errorf("%w: configuration for another kind", agent.ErrInvalidConfiguration)
	case c.LocalEnvironment != nil && cfg.WorkspaceRoot == "":
		return fmt.Errorf("%w: a local environment needs a bound workspace", agent.ErrInvalidConfiguration)
	case len(c.FunctionTools) > 0:
		return agent.Unsupported(reasonFunctions)
	case c.ToolSearch:
		return agent.Unsupported(reasonToolSearch)
	case c.MCPHTTPServers != nil && len(*c.MCPHTTPServers) > 0, len(cfg.MCP.Servers) > 0:
		// the effective binding holds the installed plugins' servers too:
		// none is qualified, so none is dropped silently
		return agent.Unsupported(reasonMCP)
	case c.ObserveSubagentIdentities, c.MaxConcurrentSubagents != nil && *c.MaxConcurrentSubagents > 0:
		return agent.Unsupported(reasonSubagents)
	case c.DisableSubagents && !caps.SubagentControl.IsSupported():
		return agent.Unsupported(reasonSubagentControl)
	case c.WorkspaceAuthoring:
		return agent.Unsupported(reasonWorkspace)
	case c.ObserveMessages:
		return agent.Unsupported(reasonMessages)
	}
	if x := c.ExecutionControls; x != nil {
		switch {
		case !caps.ExecutionControls.IsSupported():
			return agent.Unsupported(reasonControls)
		case x.DisableProgrammaticToolCalling:
			return agent.Unsupported(reasonProgrammatic)
		case x.TextVerbosity != "" && x.TextVerbosity != defaultVerbosity:
			return agent.Unsupported(reasonVerbosity)
		case x.OutputFormat != nil:
			return agent.Unsupported(reasonStructured)
		case x.WebSearch != "" && x.WebSearch != "disabled":
			return agent.Unsupported(reasonWebSearch)
		}
	}
	if err := Configuration().ValidateOptions(c.AgentOptions); err != nil {
		return err
	}
	if _, ok := c.AgentOptions[wire.AgentOptionModel]; ok && !p.Model {
		return agent.Unsupported(reasonModel)
	}
	if raw, ok := c.AgentOptions[wire.AgentOptionSystemPrompt]; ok {
		var s string
		if json.Unmarshal(raw, &s) != nil || s != "" {
			return agent.Unsupported(reasonSystemPrompt)
		}
	}
	return nil
}
