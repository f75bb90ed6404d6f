package claude

import (
	"context"
	"fmt"
	"io"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// Kind is the registered kind of the Claude Code Harness.
const Kind = "claude"

// Capabilities is the complete capability declaration, each member decided
// from what the pinned CLI does over stream-json and the adapter tests:
//
//   - streaming, usage, steering, durable turns and durable input receipts:
//     stream_event text deltas, the result's usage, user messages carrying
//     our uuid, command_lifecycle and result.user_message_uuids as the
//     applied receipt, the result as settlement.
//   - preparation, environment none and local environment: one CLI process
//     per Executor started without model input, in a private working
//     directory or in the bound workspace.
//   - execution controls and subagent control: web search disabled and
//     the subagent tools removed with --disallowedTools; the tests read
//     the model request's tool list.
//   - tool observations: tool_use blocks and their tool_result become
//     tool_call before/after, each with its engine-neutral observation.
//   - permissions: --permission-prompt-tool stdio in the native default
//     permission mode; every can_use_tool is a permission_request answered
//     by RespondPermission.
//   - resume: --resume of the exact session in a new process; an unknown
//     session is an error, never a fresh conversation.
//   - unsupported: native session recovery (a session is found by the ID
//     Core recorded only), message items, text verbosity and structured
//     output (no native control), web search control beyond "disabled",
//     programmatic tool calling, function tools, tool search, MCP, images,
//     subagent observations and every workspace operation.
func Capabilities() wire.AgentKindCapabilities {
	s, u := wire.CapabilitySupported, wire.CapabilityUnsupported
	return wire.AgentKindCapabilities{
		Streaming:                      s,
		Usage:                          s,
		Steering:                       s,
		DurableTurns:                   s,
		DurableInputReceipts:           s,
		Preparation:                    s,
		EnvironmentNone:                s,
		LocalEnvironment:               s,
		ExecutionControls:              s,
		SubagentControl:                s,
		ToolObservations:               s,
		Permissions:                    s,
		Resume:                         s,
		NativeSessionRecovery:          u,
		MessageItems:                   u,
		SubagentObservations:           u,
		WorkspaceAuthoring:             u,
		WorkspaceReadPreparation:       u,
		WorkspaceOutputExport:          u,
		ProgrammaticToolCallingDisable: u,
		WebSearchControl:               u,
		TextVerbosity:                  u,
		StructuredOutput:               u,
		ToolSearch:                     u,
		MessageImages:                  u,
		FunctionResultImages:           u,
		FunctionTools:                  u,
		MCPHTTPTools:                   u,
		MCPHTTPRequired:                u,
		MCPHTTPBearerAuth:              u,
	}
}

// Fixed, safe reasons of designed refusals.
const (
	reasonImages        agent.UnsupportedReason = "claude adapter accepts text input only"
	reasonWorkspace     agent.UnsupportedReason = "claude adapter qualifies no workspace operation"
	reasonFunctions     agent.UnsupportedReason = "claude adapter has no public function tools"
	reasonToolSearch    agent.UnsupportedReason = "claude adapter has no tool search"
	reasonMCP           agent.UnsupportedReason = "claude adapter does not qualify MCP servers"
	reasonSubagents     agent.UnsupportedReason = "claude adapter does not observe subagents"
	reasonProgrammatic  agent.UnsupportedReason = "claude has no control for programmatic tool calling"
	reasonMessages      agent.UnsupportedReason = "claude adapter does not report message items"
	reasonVerbosity     agent.UnsupportedReason = "claude has no text verbosity control"
	reasonStructured    agent.UnsupportedReason = "claude adapter does not qualify structured output"
	reasonWebSearch     agent.UnsupportedReason = "claude adapter only runs with web search disabled"
	reasonHarnessConfig agent.UnsupportedReason = "claude adapter accepts no native harness configuration"
	reasonProvider      agent.UnsupportedReason = "claude adapter connects to the Anthropic Messages API only"
	reasonRecovery      agent.UnsupportedReason = "claude adapter resumes only a recorded native session"
)

// Configuration is the claude kind's model configuration: the CLI talks to
// the Anthropic Messages API (ANTHROPIC_BASE_URL).
func Configuration() agent.ModelConfiguration {
	return agent.ModelConfiguration{Protocols: []agent.ModelProtocol{agent.ProtocolAnthropicMessages}}
}

// Declaration declares the claude kind. Discovery reports nothing when no
// binary is configured, and an unavailable kind (with a diagnostic) when
// the binary is missing or has another version than the pinned one.
func Declaration(opts Options) agent.Declaration {
	caps := Capabilities()
	return agent.Declaration{
		Kind:          Kind,
		Capabilities:  caps,
		Configuration: Configuration(),
		Discover: func(ctx context.Context, _ map[string]string, diag io.Writer) (*agent.Runtime, error) {
			if opts.Binary == "" {
				return nil, nil
			}
			h := New(opts)
			desc := wire.SupportedAgentKind{Kind: Kind, Available: true, Version: Version, Capabilities: caps}
			if got, err := CheckBinary(ctx, opts.Binary); err != nil {
				fmt.Fprintf(diag, "claude: kind unavailable: %v\n", err)
				desc.Available, desc.Version = false, got
				return &agent.Runtime{Descriptor: desc, Sessions: h}, nil
			}
			return &agent.Runtime{Descriptor: desc, Sessions: h, Executors: h}, nil
		},
	}
}
