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
// tool_call_update completed or failed as tool_call after, each with the
// engine-neutral observation of observation.go (an execute tool naming a
// command is kind command, any other kind function with its raw input;
// the final update's raw output as output). The answer ends
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
// ACP v1 has no steering; a profile names its vendor's extension, and
// every profile with one declares steering and durable input receipts,
// which Core requires of every kind. SteerDurable sends it: a nil error is
// the written stage, native acceptance (claude-agent-acp
// `_session/steering` answering injected; MiniMax Code
// `mcode/session/steer` answering steered, or duplicate for a
// clientRequestId it already took). Acceptance is not application: the
// receipt is applied only on proof inside the Turn, a refusal
// (promptRequired, a JSON-RPC error) is ErrTurnInactive, and an accepted
// input whose Turn ended without proof is ErrApplyUnknown, never
// replayed; a retry with the same input ID keeps the receipt (and
// MiniMax Code's idempotency key).
//
// The proof is the profile's (ApplyProof). claude-agent-acp's answer
// names no message and no session/update carries a steered input back
// (the agent drops Claude Code's replay of a message it sent itself), but
// its session option claudeCode.emitRawSDKMessages forwards Claude Code's
// own messages as `_claude/sdkMessage` notifications; the profile asks
// for kinds user, command_lifecycle and result. Claude Code replays a
// user message (isReplay, its uuid and text) when it takes it into the
// conversation, reports command_lifecycle started for that uuid and names
// it in the result answering it (user_message_uuids) — the proof the
// Claude Code adapter applies on. The receipt of a steer is applied once
// a replay carrying exactly its text was also started or answered within
// the Turn; the first replay of the prompt's text is the prompt's (a
// steer can pre-empt a prompt Claude Code never replays), and a replay
// binds the oldest accepted steer of its text, once. A steer still
// unproven when its Turn ends (queued behind a pending permission request,
// or the Turn cancelled before it ran) ends unknown. MiniMax Code reports
// nothing of the kind, so every accepted mcode steer ends unknown.
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
// for every profile; steering and durable input receipts for every
// profile with a steering extension that the agent advertises; and
// permissions, execution controls and subagent control as the profile
// proves them. Everything else is unsupported with a fixed reason and no
// native effect. A model is accepted where the profile passes it (the
// agent's own configuration chooses otherwise); no model provider, native
// harness configuration or system prompt is.
//
// Core's profile of every ACP kind (core/engine.ACPProfile) qualifies no
// optional operation and only the environment-none placement, and Core
// requires of an ACP kind what it requires of every kind. It admits text
// Turns, steering with durable receipts, cancel and permission responses
// of acp:claude-agent-acp, and refuses images, structured output,
// function tools, tool search, MCP servers and workspace placements
// before any native work. It refuses every Turn of acp:mcode: that
// profile proves no execution controls or subagent control (Core requires
// execution_controls of every execution and subagent_control without
// multi-agent).
package acp
