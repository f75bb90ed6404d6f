package synthetic

import (
	"context"
	"io"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/localworkspace"
	"github.com/turnstile-sim/turnstile/wire"
)

// Capabilities is the complete capability declaration of the synthetic
// Harness: text streaming with usage, durable Turns, durable and plain
// steering, cancellation and preparation, without an environment or in
// the workspace the Runtime bound for a local Environment (it touches no
// file there). Its workspace reads, read-only preparations and exports
// are served by the shared local workspace owner
// (adapters/localworkspace) on that same directory. It has
// no native tools and never spawns subagents, so execution controls, tool
// observations and subagent control (running without subagents) hold
// vacuously.
func Capabilities() wire.AgentKindCapabilities {
	s, u := wire.CapabilitySupported, wire.CapabilityUnsupported
	return wire.AgentKindCapabilities{
		SubagentObservations:           u,
		Streaming:                      s,
		Permissions:                    u,
		Usage:                          s,
		Resume:                         u,
		NativeSessionRecovery:          u,
		WorkspaceAuthoring:             u,
		Steering:                       s,
		MessageItems:                   u,
		ToolObservations:               s,
		EnvironmentNone:                s,
		LocalEnvironment:               s,
		Preparation:                    s,
		WorkspaceReadPreparation:       s,
		WorkspaceOutputExport:          s,
		ProgrammaticToolCallingDisable: u,
		WebSearchControl:               u,
		ExecutionControls:              s,
		TextVerbosity:                  u,
		StructuredOutput:               u,
		ToolSearch:                     u,
		MessageImages:                  u,
		FunctionResultImages:           u,
		SubagentControl:                s,
		DurableInputReceipts:           s,
		DurableTurns:                   s,
		FunctionTools:                  u,
		MCPHTTPTools:                   u,
		MCPHTTPRequired:                u,
		MCPHTTPBearerAuth:              u,
	}
}

// Declaration declares the synthetic kind; discovery installs h.
func Declaration(h *Harness) agent.Declaration {
	return agent.Declaration{
		Kind:          Kind,
		Capabilities:  h.capabilities(),
		Configuration: Configuration(),
		Discover: func(context.Context, map[string]string, io.Writer) (*agent.Runtime, error) {
			return &agent.Runtime{
				Descriptor:    wire.SupportedAgentKind{Kind: Kind, Available: true, Capabilities: h.capabilities()},
				Sessions:      h,
				Executors:     h,
				Preparations:  localworkspace.Preparations{},
				WorkspaceRead: true,
			}, nil
		},
	}
}
