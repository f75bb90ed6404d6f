// Package acp is the Harness family of ACP agents: a generic client of the
// Agent Client Protocol v1 (JSON-RPC 2.0 over the agent's stdin and
// stdout) with one vendor Profile per kind ("acp:" + profile name).
//
// # Native source
//
// The adapter is qualified against the real ACP agent
// @agentclientprotocol/claude-agent-acp (AgentVersion), which drives the
// pinned Claude Code binary: scripts/fetch-acp.sh fetches it and each
// package it loads with `npm pack`, verifies every tarball's SHA-256 and
// installs them offline under the cache (CachedAgent). The tests run it
// against claudetest, the fake Anthropic Messages API. MiniMax Code
// (`mcode acp`) is not served here: its profile is qualified only against
// the scripted Go agent in acptest. The adapter never installs an agent:
// one that does not start or speaks another ACP version makes the kind
// unavailable with a diagnostic.
//
// # Lifecycle
//
// NewExecutor starts Options.Command under clirunner (its own process
// group; TERM, grace, KILL; stdout drained before Wait), sends initialize
// (protocol version 1; the client's fs and terminal capabilities false),
// checks that the agent still advertises what the kind declares and
// creates the session with session/new, or loads the recorded one with
// session/load (strict: an unknown session is ErrResume, never a fresh
// session), both with the profile's _meta (for claude-agent-acp: the
// removed tools, no predicted follow-up prompts, the session's model),
// then sets the profile's session mode (session/set_mode). The working
// directory is the bound workspace for a local environment, otherwise a
// private directory per Session. No prompt is sent.
//
// StartTurn sends one session/prompt. The Turn's events are the
// session/update notifications of its session until the prompt's answer:
// agent_message_chunk text as deltas (the message ID as item),
// agent_thought_chunk as thinking, tool_call as tool_call before and
// tool_call_update completed or failed as tool_call after. The answer ends
// the Turn: its usage, then done; end_turn is a completion, another stop
// reason an error, and a JSON-RPC error a run error classified from its
// code only. Updates while no Turn runs (a load's replay, a late update)
// are dropped.
//
// # Cancel, deadline and faults
//
// Cancel sends session/cancel and answers every pending permission
// request cancelled; the Turn settles on the prompt's answer (stopReason
// cancelled) and the process runs the next Turn. An agent that does not
// answer within the grace period is retired, as is one that exits or
// writes a line that is not JSON-RPC 2.0 (ErrMalformed). A permission
// request arriving after the cancel is answered cancelled. The adapter's
// own deadline (Options.Stall) cancels a Turn without updates and fails it
// with request_timeout; a pending permission request pauses it.
//
// # Steering
//
// ACP v1 has no steering; a profile names its vendor's extension.
// SteerDurable sends it: a nil error is native acceptance
// (claude-agent-acp `_session/steering` answering injected; MiniMax Code
// `mcode/session/steer` answering steered, or duplicate for a
// clientRequestId it already took). No agent reports that the model
// consumed the input, so the receipt is never applied: a refusal
// (promptRequired, a JSON-RPC error) is ErrTurnInactive, and an accepted
// input whose Turn ended is ErrApplyUnknown, never replayed. Durable input
// receipts are therefore unsupported.
//
// # Permissions
//
// With a profile that qualifies permissions (claude-agent-acp), each
// session/request_permission is a permission_request answered by
// RespondPermission with the agent's allow or reject option; an unknown or
// answered ID is ErrNotPending. The MiniMax Code profile runs tools
// unattended, as the seed has MiniMax bypass permissions: each request is
// answered with the allow option, and Permissions is unsupported.
//
// # Declared capabilities
//
// See Capabilities: streaming, usage, durable turns, preparation,
// environment none and local environment, tool observations and resume
// for every profile; steering, permissions, execution controls and
// subagent control as the profile proves them. Everything else, durable
// input receipts included, is unsupported with a fixed reason and no
// native effect. A model is accepted where the profile passes it (the
// agent's own configuration chooses otherwise); no model provider, native
// harness configuration or system prompt is. Core's profile of every ACP
// kind admits no active input (core/engine.ACPProfile).
package acp
