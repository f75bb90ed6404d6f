package engine

import "github.com/turnstile-sim/turnstile/wire"

// builtin is published once, at package initialisation; it is immutable.
var builtin = NewCatalog(SyntheticProfile(), CodexProfile(), ClaudeProfile(),
	ACPProfile("acp:claude-agent-acp", "claude-agent-acp (ACP Harness)"),
	ACPProfile("acp:mcode", "MiniMax Code (ACP Harness)"))

// Builtin returns the built-in catalog: the profiles of every Harness
// kind this repository ships (adapters/synthetic, adapters/codex,
// adapters/claude, one per profile of adapters/acp). The
// zero Policy reads it, and so does Core when its Config names no Policy.
func Builtin() *Catalog { return builtin }

// SyntheticProfile qualifies the controlled text-only Harness
// (adapters/synthetic): text turns on every placement, no optional public
// operation, no MCP origin.
func SyntheticProfile() Profile {
	no := wire.CapabilityUnsupported
	return Profile{
		Kind:  "synthetic",
		Label: "Synthetic (controlled text-only Harness)",
		Capabilities: Capabilities{
			WebSearchControl:               no,
			TextVerbosity:                  no,
			StructuredOutput:               no,
			MessageImages:                  no,
			FunctionTools:                  no,
			ToolSearch:                     no,
			FunctionResultImages:           no,
			ProgrammaticToolCallingDisable: no,
			Subagents:                      no,
			MCPRequired:                    no,
		},
		Placements:               []Placement{PlacementNone, PlacementSelfHosted, PlacementOpenAIHosted},
		MCPOrigins:               []string{},
		MCPBearer:                no,
		ConfigurationValidation:  CommonValidationOnly,
		ToolsValidation:          CommonValidationOnly,
		FunctionResultValidation: CommonValidationOnly,
	}
}

// CodexProfile qualifies the Codex app-server Harness (adapters/codex):
// text Turns without an execution environment or in a local Environment's
// bound workspace (self-hosted or OpenAI-hosted), with the web search and
// verbosity controls (so Core needs a device declaring both) and
// structured output. Images, function tools, tool search, programmatic
// tool calling, subagent observation and MCP servers are not qualified
// (the adapter declares none of them).
func CodexProfile() Profile {
	yes, no := wire.CapabilitySupported, wire.CapabilityUnsupported
	return Profile{
		Kind:  "codex",
		Label: "Codex (app-server Harness)",
		Capabilities: Capabilities{
			WebSearchControl:               yes,
			TextVerbosity:                  yes,
			StructuredOutput:               yes,
			MessageImages:                  no,
			FunctionTools:                  no,
			ToolSearch:                     no,
			FunctionResultImages:           no,
			ProgrammaticToolCallingDisable: no,
			Subagents:                      no,
			MCPRequired:                    no,
		},
		Placements:               []Placement{PlacementNone, PlacementSelfHosted, PlacementOpenAIHosted},
		MCPOrigins:               []string{},
		MCPBearer:                no,
		ConfigurationValidation:  CommonValidationOnly,
		ToolsValidation:          CommonValidationOnly,
		FunctionResultValidation: CommonValidationOnly,
	}
}

// ClaudeProfile qualifies the Claude Code CLI Harness (adapters/claude):
// text Turns without an execution environment. The CLI has no web search,
// verbosity or structured output control the adapter qualifies (web search
// is always off), so none is declared; images, function tools, tool
// search, programmatic tool calling, subagent observation and MCP servers
// are not qualified either.
func ClaudeProfile() Profile {
	no := wire.CapabilityUnsupported
	return Profile{
		Kind:  "claude",
		Label: "Claude Code (stream-json CLI Harness)",
		Capabilities: Capabilities{
			WebSearchControl:               no,
			TextVerbosity:                  no,
			StructuredOutput:               no,
			MessageImages:                  no,
			FunctionTools:                  no,
			ToolSearch:                     no,
			FunctionResultImages:           no,
			ProgrammaticToolCallingDisable: no,
			Subagents:                      no,
			MCPRequired:                    no,
		},
		Placements:               []Placement{PlacementNone},
		MCPOrigins:               []string{},
		MCPBearer:                no,
		ConfigurationValidation:  CommonValidationOnly,
		ToolsValidation:          CommonValidationOnly,
		FunctionResultValidation: CommonValidationOnly,
	}
}

// ACPProfile qualifies one ACP kind (adapters/acp): text Turns without an
// execution environment. Web search (always disabled where the vendor
// profile can), verbosity and structured output controls, images, function
// tools, tool search, programmatic tool calling, subagent observation and
// MCP servers are not qualified. Like every kind, the device must still
// declare what Core always requires (steering, durable input receipts and
// execution controls among them) and subagent control: the adapter
// declares them only where its vendor profile proves them, so a kind whose
// profile does not (acp:mcode has no execution controls) is refused by
// Core at admission.
func ACPProfile(kind, label string) Profile {
	no := wire.CapabilityUnsupported
	return Profile{
		Kind:  kind,
		Label: label,
		Capabilities: Capabilities{
			WebSearchControl:               no,
			TextVerbosity:                  no,
			StructuredOutput:               no,
			MessageImages:                  no,
			FunctionTools:                  no,
			ToolSearch:                     no,
			FunctionResultImages:           no,
			ProgrammaticToolCallingDisable: no,
			Subagents:                      no,
			MCPRequired:                    no,
		},
		Placements:               []Placement{PlacementNone},
		MCPOrigins:               []string{},
		MCPBearer:                no,
		ConfigurationValidation:  CommonValidationOnly,
		ToolsValidation:          CommonValidationOnly,
		FunctionResultValidation: CommonValidationOnly,
	}
}
