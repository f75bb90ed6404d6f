package claude

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// removedTools are the native tools every Executor runs without: web
// search and fetch (web search is disabled), the question tool (no user
// choice is qualified) and the subagent tools (subagents are off).
var removedTools = []string{"WebSearch", "WebFetch", "AskUserQuestion", "Task", "SendMessage", "ListAgents"}

// defaultVerbosity is the text verbosity Core sends when none was chosen.
const defaultVerbosity = "medium"

// nativeConfig is what an Executor passes to the CLI.
type nativeConfig struct {
	model, instructions string
}

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
	if _, ok := c.AgentOptions[wire.AgentOptionModelProvider]; ok {
		return nc, agent.Unsupported(reasonProvider)
	}
	if raw, ok := c.AgentOptions[wire.AgentOptionHarnessConfig]; ok {
		var hc map[string]json.RawMessage
		if json.Unmarshal(raw, &hc) != nil || len(hc) > 0 {
			return nc, agent.Unsupported(reasonHarnessConfig)
		}
	}
	opt := func(key string) string {
		var s string
		_ = json.Unmarshal(c.AgentOptions[key], &s)
		return s
	}
	nc.model, nc.instructions = opt(wire.AgentOptionModel), opt(wire.AgentOptionSystemPrompt)
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
	case c.ObserveSubagentIdentities:
		return agent.Unsupported(reasonSubagents)
	case c.MaxConcurrentSubagents != nil && *c.MaxConcurrentSubagents > 0:
		return agent.Unsupported(reasonSubagents)
	case c.WorkspaceAuthoring:
		return agent.Unsupported(reasonWorkspace)
	case c.ObserveMessages:
		return agent.Unsupported(reasonMessages)
	}
	if x := c.ExecutionControls; x != nil {
		switch {
		case x.DisableProgrammaticToolCalling:
			return agent.Unsupported(reasonProgrammatic)
		case x.TextVerbosity != "" && x.TextVerbosity != defaultVerbosity:
			// The CLI has no verbosity control: only the default level,
			// which asks for nothing, is accepted.
			return agent.Unsupported(reasonVerbosity)
		case x.OutputFormat != nil:
			return agent.Unsupported(reasonStructured)
		case x.WebSearch != "" && x.WebSearch != "disabled":
			return agent.Unsupported(reasonWebSearch)
		}
	}
	return nil
}

// args are the CLI arguments of one Executor: stream-json both ways with
// partial messages, permission prompts on stdio, the chosen or resumed
// session, the model and system prompt, and the removed tools.
func (nc nativeConfig) args(session string, resume bool) []string {
	a := []string{
		"--output-format", "stream-json", "--input-format", "stream-json", "--verbose",
		"--include-partial-messages", "--permission-prompt-tool", "stdio",
		"--permission-mode", "default",
		"--disallowedTools", strings.Join(removedTools, ","),
	}
	if resume {
		a = append(a, "--resume", session)
	} else {
		a = append(a, "--session-id", session)
	}
	if nc.model != "" {
		a = append(a, "--model", nc.model)
	}
	if nc.instructions != "" {
		a = append(a, "--append-system-prompt", nc.instructions)
	}
	return a
}
