package acp

import (
	"context"
	"fmt"
	"io"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// Capabilities is the complete declaration of p's kind before discovery
// (discovery only narrows it to what the agent advertises), each member
// decided from what ACP v1 and the profile prove:
//
//   - streaming, usage, durable turns: session/update chunks in order, the
//     prompt answer's usage, the prompt answer as the Turn's settlement.
//   - preparation, environment none and local environment: one agent
//     process per Executor, initialized and given a session without model
//     input, in a private working directory or the bound workspace.
//   - tool observations: tool_call before, tool_call_update completed or
//     failed after, each with its engine-neutral observation.
//   - resume: session/load of the exact recorded session in a new process;
//     an unknown session is an error, never a fresh conversation.
//   - steering and durable input receipts: the profile's steering
//     extension; native acceptance is the written stage of a steer, and the
//     receipt is applied only on the profile's proof of application inside
//     the Turn (ApplyProof: claude-agent-acp's replayed user message that
//     Claude Code started), otherwise unknown (ErrApplyUnknown) once the
//     Turn ended, never replayed. A profile without proof (mcode) ends
//     every accepted steer unknown.
//   - permissions: the profile hands session/request_permission to the
//     Turn.
//   - execution controls and subagent control: the profile's session _meta
//     removes the web and subagent tools.
//   - unsupported: native session recovery, message
//     items, text verbosity, structured output, web search control beyond
//     disabled, programmatic tool calling, function tools, tool search, MCP,
//     images, subagent observations and every workspace operation.
func Capabilities(p Profile) wire.AgentKindCapabilities {
	s, u := wire.CapabilitySupported, wire.CapabilityUnsupported
	decide := func(ok bool) wire.CapabilitySupport {
		if ok {
			return s
		}
		return u
	}
	return wire.AgentKindCapabilities{
		Streaming:                      s,
		Usage:                          s,
		Steering:                       decide(p.Steer != nil),
		DurableTurns:                   s,
		DurableInputReceipts:           decide(p.Steer != nil),
		Preparation:                    s,
		EnvironmentNone:                s,
		LocalEnvironment:               s,
		ExecutionControls:              decide(p.Controls),
		SubagentControl:                decide(p.Controls),
		ToolObservations:               s,
		Permissions:                    decide(p.Permissions),
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

// advertised narrows caps to what the agent's initialize answer
// advertises: resume needs loadSession, steering and durable input
// receipts the profile's extension.
func advertised(p Profile, caps wire.AgentKindCapabilities, r initializeResult) wire.AgentKindCapabilities {
	if !r.AgentCapabilities.LoadSession {
		caps.Resume = wire.CapabilityUnsupported
	}
	if p.Steer == nil || !p.Steer.Advertised(r) {
		caps.Steering = wire.CapabilityUnsupported
		caps.DurableInputReceipts = wire.CapabilityUnsupported
	}
	return caps
}

// Fixed, safe reasons of designed refusals.
const (
	reasonImages          agent.UnsupportedReason = "acp adapter accepts text input only"
	reasonWorkspace       agent.UnsupportedReason = "acp adapter qualifies no workspace operation"
	reasonFunctions       agent.UnsupportedReason = "acp adapter has no public function tools"
	reasonToolSearch      agent.UnsupportedReason = "acp adapter has no tool search"
	reasonMCP             agent.UnsupportedReason = "acp adapter does not qualify MCP servers"
	reasonSubagents       agent.UnsupportedReason = "acp adapter does not observe subagents"
	reasonSubagentControl agent.UnsupportedReason = "acp profile has no qualified subagent control"
	reasonControls        agent.UnsupportedReason = "acp profile has no qualified execution controls"
	reasonProgrammatic    agent.UnsupportedReason = "acp has no control for programmatic tool calling"
	reasonMessages        agent.UnsupportedReason = "acp adapter does not report message items"
	reasonVerbosity       agent.UnsupportedReason = "acp has no text verbosity control"
	reasonStructured      agent.UnsupportedReason = "acp adapter does not qualify structured output"
	reasonWebSearch       agent.UnsupportedReason = "acp adapter only runs with web search disabled"
	reasonModel           agent.UnsupportedReason = "acp profile has no qualified model selection"
	reasonSystemPrompt    agent.UnsupportedReason = "acp adapter has no system prompt control"
	reasonRecovery        agent.UnsupportedReason = "acp adapter loads only a recorded native session"
	reasonSteer           agent.UnsupportedReason = "acp agent advertises no steering extension"
	reasonPermissions     agent.UnsupportedReason = "acp profile runs tools unattended"
	reasonUpdatedInput    agent.UnsupportedReason = "acp cannot pass updated tool input"
)

// Configuration is every ACP kind's model configuration: the agent's own
// configuration chooses provider and model, so none is accepted.
func Configuration() agent.ModelConfiguration {
	return agent.ModelConfiguration{Protocols: []agent.ModelProtocol{}}
}

// Declaration declares the ACP kind of opts.Profile. Discovery reports
// nothing when no agent command is configured; otherwise it starts the
// agent once and initializes it: an agent that does not start, speaks
// another ACP version or (when the profile pins one) reports another
// version is an unavailable kind with a diagnostic; an available kind's
// capabilities are narrowed to what the agent advertises.
func Declaration(opts Options) agent.Declaration {
	p := opts.Profile
	caps := Capabilities(p)
	return agent.Declaration{
		Kind:          p.Kind(),
		Capabilities:  caps,
		Configuration: Configuration(),
		Discover: func(ctx context.Context, _ map[string]string, diag io.Writer) (*agent.Runtime, error) {
			if len(opts.Command) == 0 {
				return nil, nil
			}
			h := New(opts)
			desc := wire.SupportedAgentKind{Kind: p.Kind(), Available: true, Capabilities: caps}
			got, err := h.Probe(ctx)
			if err != nil {
				fmt.Fprintf(diag, "%s: kind unavailable: %v\n", p.Kind(), err)
				desc.Available = false
				if got.AgentInfo != nil {
					desc.Version = got.AgentInfo.Version
				}
				return &agent.Runtime{Descriptor: desc, Sessions: h}, nil
			}
			if got.AgentInfo != nil {
				desc.Version = got.AgentInfo.Version
			}
			desc.Capabilities = advertised(p, caps, got)
			h.caps = desc.Capabilities
			return &agent.Runtime{Descriptor: desc, Sessions: h, Executors: h}, nil
		},
	}
}
