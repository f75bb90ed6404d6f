// Package codex is the Harness adapter for Codex, driving `codex
// app-server` (JSON-RPC over stdio) of the pinned Version.
//
// # Native source
//
// The pinned build is the npm version alias NPMPackage; its binary is
// vendor/x86_64-unknown-linux-musl/bin/codex with SHA-256 BinarySHA256.
// scripts/fetch-codex.sh fetches it with `npm pack`, verifies the checksum
// and caches it outside the tree (CachedBinary). The adapter never
// installs Codex: a missing binary or another version makes the kind
// unavailable with a diagnostic. protocol.go holds the JSON-RPC types,
// checked against `codex app-server generate-json-schema` of the pinned
// binary by TestProtocolMatchesGeneratedSchema.
//
// # Lifecycle
//
// NewExecutor starts one `codex app-server` (clirunner: its own process
// group; TERM, 3 s, KILL; the group reaped after the child exits; stdout
// drained before Wait), runs initialize and thread/start, or thread/resume
// of the configured thread (strict: an unknown thread is ErrResume, never
// a fresh thread). app-server runs in ExecutorConfig.WorkspaceRoot, the
// workspace the Runtime bound for a local Environment, which is also the
// thread's cwd; without one (environment none) it runs in a private
// working directory the Executor creates and Close removes. The bound
// workspace belongs to the Environment: Close never removes it. No model
// input is sent. Until StartTurn returns a Turn the Executor is an
// executable preparation: CancelPrepared and Release stop app-server,
// drain its output and remove the private working directory, after which
// it refuses every Turn. StartTurn sends turn/start and
// returns once it is answered; every notification carrying the Turn's
// native ID is turned into events in app-server's order, anything else (a
// late event of a settled Turn) is dropped. turn/completed settles the
// Turn (completed, interrupted, or failed with the codexErrorInfo mapped to
// an engine code); app-server exiting settles it non-reusable.
//
// # Events
//
// Each tool item (commandExecution, fileChange, mcpToolCall,
// dynamicToolCall, webSearch) is a tool_call before at item/started and
// after at item/completed, each carrying the engine-neutral observation of
// what app-server reported (observation.go): kind command (command, cwd,
// exit code, duration, aggregated output), function (apply_patch with the
// changes as arguments; a dynamic tool with its arguments and output
// content), mcp (server, tool, arguments, result or error, duration) or
// web_search (the action); status in_progress before, then completed,
// failed (failed or declined) or incomplete. A member app-server left
// null stays absent. With observe_messages each agentMessage is an
// output_message in_progress at item/started and completed with its text
// at item/completed, both with the native phase (commentary,
// partial_answer, final_answer; absent when the model gave none);
// without it no output_message is emitted.
//
// SteerDurable writes turn/steer with the input ID as clientUserMessageId:
// the write is the written stage, the userMessage item echoing that
// clientId the applied receipt; a Turn that ends without the echo leaves
// the input ErrApplyUnknown, never replayed. Cancel sends turn/interrupt
// once turn/started arrived (app-server refuses it earlier). A Turn stuck
// in native retries for Options.RetryBudget without progress is
// interrupted and reported as connection_failed.
//
// Approvals: by default the thread runs with approval policy never and
// full access, so app-server asks for none; an approval request that comes
// anyway is declined, and the permission interfaces answer Unsupported.
// The adapter adds no native sandbox in either mode: the thread always
// runs with sandbox danger-full-access, no permission profile and no
// wrapper, and NewExecutor checks the policy app-server reports applying
// (ErrNativePolicy otherwise). With Options.Approvals = ApprovalsOnRequest
// (declared by ApprovalCapabilities) the native approval policy is
// untrusted (Codex's on-request asks nothing under full access): each
// item/commandExecution or item/fileChange requestApproval of the Turn's
// native turn is a permission_request whose ID is the JSON-RPC request
// ID; RespondPermission writes accept or decline, an unknown or answered
// ID is ErrNotPending, and a Turn that settles first withdraws each
// unanswered request with a permission_cancel.
package codex
