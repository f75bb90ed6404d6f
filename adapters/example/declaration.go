package example

import (
	"context"
	"io"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// Kind is the example's registered kind.
const Kind = "wordecho"

// Capabilities decides every member: text streaming, durable Turns with
// applied receipts, cancellation and preparation; nothing else. It has
// no native tools and no subagents, so execution controls and subagent
// control hold by construction.
func Capabilities() wire.AgentKindCapabilities {
	caps := wire.AllCapabilities(wire.CapabilityUnsupported)
	for _, on := range []*wire.CapabilitySupport{&caps.Streaming, &caps.EnvironmentNone, &caps.Preparation,
		&caps.ExecutionControls, &caps.SubagentControl, &caps.DurableInputReceipts, &caps.DurableTurns} {
		*on = wire.CapabilitySupported
	}
	return caps
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
