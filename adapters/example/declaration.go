package example

import (
	"context"
	"io"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// Kind is the example's registered kind.
const Kind = "wordecho"

// Capabilities decides every member in one literal: text streaming,
// durable Turns with applied receipts, plain and durable steering,
// cancellation and preparation; nothing else. It has no native tools and
// no subagents, so execution controls, tool observations (there is no
// tool call to report) and subagent control hold by construction. These
// are exactly what Core requires of every text Turn without an
// environment, so Core admits the kind. No helper fills the members: one
// added to the wire type later stays undecided, and the declaration check
// fails, until it is decided here.
func Capabilities() wire.AgentKindCapabilities {
	yes, no := wire.CapabilitySupported, wire.CapabilityUnsupported
	return wire.AgentKindCapabilities{
		Streaming: yes, DurableTurns: yes, DurableInputReceipts: yes, Preparation: yes,
		EnvironmentNone: yes, ExecutionControls: yes, SubagentControl: yes,
		Steering: yes, ToolObservations: yes,

		Usage: no, Permissions: no, Resume: no, NativeSessionRecovery: no,
		MessageItems: no, SubagentObservations: no, LocalEnvironment: no,
		WorkspaceAuthoring: no, WorkspaceReadPreparation: no, WorkspaceOutputExport: no,
		ProgrammaticToolCallingDisable: no, WebSearchControl: no, TextVerbosity: no,
		StructuredOutput: no, ToolSearch: no, MessageImages: no, FunctionResultImages: no,
		FunctionTools: no, MCPHTTPTools: no, MCPHTTPRequired: no, MCPHTTPBearerAuth: no,
	}
}

// Declaration declares the kind; discovery installs e.
func Declaration(e *Engine) agent.Declaration {
	return agent.Declaration{
		Kind:          Kind,
		Capabilities:  Capabilities(),
		Configuration: agent.ModelConfiguration{Protocols: []agent.ModelProtocol{}},
		Discover: func(context.Context, map[string]string, io.Writer) (*agent.Runtime, error) {
			return &agent.Runtime{
				Descriptor: wire.SupportedAgentKind{Kind: Kind, Available: true, Capabilities: Capabilities()},
				Sessions:   e,
				Executors:  e,
			}, nil
		},
	}
}
