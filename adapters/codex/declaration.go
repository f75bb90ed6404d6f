package codex

import (
	"context"
	"fmt"
	"io"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/localworkspace"
	"github.com/turnstile-sim/turnstile/wire"
)

// Kind is the registered kind of the Codex Harness.
const Kind = "codex"

// Capabilities is the complete capability declaration, each member decided
// from what app-server of the pinned Version does and the adapter tests:
//
//   - streaming, usage, steering, durable turns and durable input receipts:
//     agentMessage deltas, thread/tokenUsage/updated, turn/steer with the
//     userMessage echo carrying our clientUserMessageId as the applied
//     receipt, turn/completed as settlement.
//   - preparation, environment none: one app-server and one thread per
//     Executor, started without model input, in a private working directory.
//   - local environment: with a local Environment, app-server runs in the
//     workspace directory the Runtime bound for it
//     (ExecutorConfig.WorkspaceRoot; its process directory and the
//     thread's cwd), so apply_patch edits land there.
//   - workspace read preparation and output export: served by the
//     Runtime's local workspace owner on the same bound directory
//     (adapters/localworkspace); the Executor and Turn themselves refuse
//     native workspace access.
//   - execution controls, web search control, text verbosity, structured
//     output and message items: web_search and model_verbosity thread
//     config, outputSchema per turn, agentMessage items as output messages
//     (in_progress at their start, completed with their text, both with
//     the native phase); the tests read them back from the model request.
//   - tool observations: command, file change, MCP, dynamic tool and web
//     search items become tool_call before/after, each carrying the
//     engine-neutral observation of what app-server reported.
//   - subagent control: the multi-agent tools are turned off.
//   - resume: thread/resume of the exact thread in a new process; a missing
//     thread is an error, never a fresh one. The thread ID is reported once
//     the thread holds a recorded user message (before, app-server cannot
//     resume it).
//   - unsupported: permissions (approval policy never, so app-server asks
//     nothing; ApprovalCapabilities is the on-request mode, approval policy
//     untrusted, still without a native sandbox), function tools and tool
//     search (no public function path yet),
//     MCP, images, programmatic tool calling (no native control), subagent
//     observations, native session recovery (a thread whose ID was never
//     reported cannot be found again once its process is gone) and
//     workspace authoring.
func Capabilities() wire.AgentKindCapabilities {
	s, u := wire.CapabilitySupported, wire.CapabilityUnsupported
	return wire.AgentKindCapabilities{
		SubagentObservations:           u,
		Streaming:                      s,
		Permissions:                    u,
		Usage:                          s,
		Resume:                         s,
		NativeSessionRecovery:          u,
		WorkspaceAuthoring:             u,
		Steering:                       s,
		MessageItems:                   s,
		ToolObservations:               s,
		EnvironmentNone:                s,
		LocalEnvironment:               s,
		Preparation:                    s,
		WorkspaceReadPreparation:       s,
		WorkspaceOutputExport:          s,
		ProgrammaticToolCallingDisable: u,
		WebSearchControl:               s,
		ExecutionControls:              s,
		TextVerbosity:                  s,
		StructuredOutput:               s,
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

// ApprovalCapabilities is the declaration of the ApprovalsOnRequest mode:
// Capabilities with permissions supported (command and file change
// approvals become permission requests answered by RespondPermission;
// tools still run with full access, no native sandbox).
func ApprovalCapabilities() wire.AgentKindCapabilities {
	c := Capabilities()
	c.Permissions = wire.CapabilitySupported
	return c
}

// capabilitiesOf is the declaration of opts' approval mode.
func capabilitiesOf(opts Options) wire.AgentKindCapabilities {
	if opts.Approvals == ApprovalsOnRequest {
		return ApprovalCapabilities()
	}
	return Capabilities()
}

// Fixed, safe reasons of designed refusals.
const (
	reasonImages       agent.UnsupportedReason = "codex adapter accepts text input only"
	reasonWorkspace    agent.UnsupportedReason = "codex adapter qualifies no workspace operation"
	reasonFunctions    agent.UnsupportedReason = "codex adapter has no public function tools"
	reasonToolSearch   agent.UnsupportedReason = "codex adapter has no tool search"
	reasonMCP          agent.UnsupportedReason = "codex adapter does not qualify MCP servers"
	reasonSubagents    agent.UnsupportedReason = "codex adapter runs without subagents"
	reasonProgrammatic agent.UnsupportedReason = "codex has no control for programmatic tool calling"
	reasonInteractions agent.UnsupportedReason = "codex adapter runs with approval policy never and answers no interaction"
)

// Declaration declares the codex kind. Discovery reports nothing when no
// binary is configured, and an unavailable kind (with a diagnostic) when
// the binary is missing or has another version than the pinned one. An
// unknown approval mode fails discovery.
func Declaration(opts Options) agent.Declaration {
	caps := capabilitiesOf(opts)
	return agent.Declaration{
		Kind:          Kind,
		Capabilities:  caps,
		Configuration: Configuration(),
		Discover: func(ctx context.Context, _ map[string]string, diag io.Writer) (*agent.Runtime, error) {
			if opts.Binary == "" {
				return nil, nil
			}
			if err := CheckApprovals(opts.Approvals); err != nil {
				return nil, err
			}
			h := New(opts)
			desc := wire.SupportedAgentKind{Kind: Kind, Available: true, Version: Version, Capabilities: caps}
			if got, err := CheckBinary(ctx, opts.Binary); err != nil {
				fmt.Fprintf(diag, "codex: kind unavailable: %v\n", err)
				desc.Available, desc.Version = false, got
				return &agent.Runtime{Descriptor: desc, Sessions: h}, nil
			}
			return &agent.Runtime{Descriptor: desc, Sessions: h, Executors: h,
				Preparations: localworkspace.Preparations{}, WorkspaceRead: true}, nil
		},
	}
}
