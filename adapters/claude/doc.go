// Package claude is the Claude Code Harness over the CLI's stream-json
// protocol: the adapter drives the pinned CLI (Version) as the official
// SDK does, one process per Executor, newline-delimited JSON both ways.
//
// # Native source
//
// The pinned build is the npm package NPMPackage, a self-contained x86-64
// executable (package/claude, no Node needed) with SHA-256 BinarySHA256.
// scripts/fetch-claude.sh fetches it with `npm pack`, verifies the
// checksum and caches it outside the tree (CachedBinary). The adapter
// never installs Claude Code: a missing binary or another version makes
// the kind unavailable with a diagnostic. protocol.go holds the members
// of the stream-json message and control types the adapter reads (as
// @anthropic-ai/claude-agent-sdk declares them). The tests run the pinned
// binary against claudetest, a fake of the Anthropic Messages API on
// loopback: a real native engine against a controlled model.
//
// # Lifecycle
//
// NewExecutor starts `claude --output-format stream-json --input-format
// stream-json --verbose --include-partial-messages --permission-prompt-tool
// stdio --permission-mode default` under clirunner (its own process group;
// TERM, 3 s, KILL; the group reaped; stdout drained before Wait), with
// --session-id of a native session ID the adapter chooses, or --resume of
// the recorded one, and waits for the initialize control request's
// answer. No model input is sent. The working directory is the bound
// workspace for a local environment, otherwise a private directory per
// Session (the CLI files transcripts by directory, so a resume in a fresh
// process finds them). The environment turns off telemetry, the auto
// updater and non-essential traffic and bounds the CLI's API retries
// (CLAUDE_CODE_MAX_RETRIES, Options.MaxRetries); HOME is Options.Home;
// ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY come from the daemon's
// environment or Options.Env.
//
// StartTurn writes one user message carrying a fresh uuid. Output belongs
// to the Turn from its command_lifecycle started on: stream_event text
// and thinking deltas (in order, with the API message ID as item), tool
// observations (a tool_use block is tool_call before, its tool_result
// after, each with the engine-neutral observation of observation.go), usage (the results' usage summed, replacing the previous
// snapshot) and one done carrying the session ID. A result listing the
// Turn's uuids ends its native turn; anything before the Turn started or
// of inputs it did not write (a late line of a settled Turn) is dropped.
//
// # Steering
//
// SteerDurable writes another user message with its own uuid; the write
// is the written stage. The receipt is applied on proof inside this Turn:
// command_lifecycle started for that uuid or the uuid in a result's
// user_message_uuids. The CLI folds a steer into the running native turn
// at the next tool boundary. A steer that misses the fold (no tool
// boundary left) runs as the CLI's next native turn right after the
// result: the seed keeps steering inside the active Turn, so that native
// turn is still this Turn — the Turn settles only when every input it
// wrote is done (listed in a result) or cancelled, its output streams to
// the same Run, and the receipt is applied when it starts. A steer the
// CLI cancels before it ran answers ErrTurnInactive; one whose Turn ends
// without either (the CLI died, or an interrupt left it queued) answers
// ErrApplyUnknown and is never replayed.
//
// # Cancel, deadline and errors
//
// Cancel sends the interrupt control request with cancel_queued, so queued
// inputs are cancelled too, and returns; the Turn settles on the result
// (terminal_reason aborted_streaming or aborted_tools) or at once when
// the CLI cancelled every input before it ran, and the same process runs
// the next Turn with its history. A CLI that does not settle within the
// grace period after an interrupt is retired. The adapter's own deadline
// (Options.Stall) interrupts a Turn without native progress — API
// retries are none, a pending permission request pauses it — and fails it
// with the status the CLI was retrying, connection_failed, or
// request_timeout. A failed result is classified from structured fields
// only (is_error, the assistant's error type, api_error_status,
// terminal_reason), never from text; the CLI reports some failures with
// subtype success. An API failure without any HTTP status (a refused
// connection, which the CLI calls server_error) is connection_failed.
//
// # Permissions
//
// The CLI runs in its native default permission mode, without the SDK
// sandbox, and asks the adapter through can_use_tool. Each request is a
// permission_request whose ID is the control request ID (tool, title,
// description and input); RespondPermission answers allow (with the
// updated input when given) or deny (with the decision's message). An
// unknown or answered ID is ErrNotPending; a request the CLI withdraws or
// the Turn outlives is withdrawn with a permission_cancel. The question
// tool is removed, so no user choice is ever pending.
//
// # Declared capabilities
//
// Supported: streaming, usage, steering, durable turns and input
// receipts, preparation, environment none and local environment (the
// bound workspace as working directory), execution controls (web search
// is always disabled by removing WebSearch and WebFetch; the default text
// verbosity is accepted, no other, as the CLI has no verbosity control),
// subagent control (the subagent tools are removed), tool observations,
// permissions and resume (strict: an unknown session is ErrResume, never
// a fresh conversation). Unsupported, with fixed reasons and no native
// effect: native session recovery (only a recorded session ID is
// resumed), message items, text verbosity, structured output, web search
// control beyond disabled, programmatic tool calling, function tools, tool
// search, MCP servers, images, subagent observations and every workspace
// operation.
package claude
