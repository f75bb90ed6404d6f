// Package api is Core's public HTTP API, served next to the Runtime
// gateway over the same server.Server: the Agents API under /v1 (below),
// its one public API, and Core's operator routes under /core/v1. The
// routes are Routes(); openapi.json (OpenAPI 3.1, embedded as OpenAPI)
// describes them and a test keeps the two equal.
//
// Core's own operator routes live under the administrator prefix /core/v1
// (OperatorPrefix): administration (admin.go: device enrolment, whose
// answer shows the new credential once, revocation, which closes the
// device's live connection with 4001 at once, and the device list under
// /core/v1/devices; API keys of /v1 under /core/v1/keys; the Harness
// kinds of Core's engine policy, GET /core/v1/kinds, read-only because
// the policy is fixed at start; every Environment preparation, GET
// /core/v1/preparations), suspension fencing and its list
// (/core/v1/suspensions...), and the Session operations the Agents
// API has no form for: a Turn's delivery view (GET /core/v1/turns/{turn}:
// its Run, attempt, input receipts and interaction outcomes), user-choice
// answers (POST /core/v1/turns/{turn}/user-choices/{interaction}), the
// Session's Environment preparation view (GET
// /core/v1/sessions/{session}/environment), and workspace reads (GET
// /core/v1/sessions/{session}/workspace/file|directory|export). They are
// authenticated by the operator token only; an API key or a device
// credential is never an operator token. Bodies are at most 1 MiB and
// decoded strictly. Every error is {"error": <code>, "detail": <text>}
// with a code of Codes, and a call answered with an error changed nothing.
// A user-choice answer honours Idempotency-Key durably: the answer is
// stored in the same commit as the call's writes; a retry with the same
// key and body gets the first answer back (Idempotent-Replayed: true) and
// sends nothing; the same key with a different body is 422
// idempotency_conflict.
//
// The workspace export (workspace_export.go) is streamed: each chunk is
// written to the client before Core pulls the next, so memory stays at a
// chunk whatever the archive's size. The body is a complete tar only when
// it ends with the trailer Workspace-Export-Outcome: completed (sent
// after the Runtime confirmed the release of its read-only profile); an
// export that fails after the stream began cuts the connection without
// the chunked terminator, so the client's read fails, and one that fails
// before its first chunk is a JSON WorkspaceAnswer.
//
// Suspension fencing (fencing.go): POST /core/v1/suspensions quiesces the
// Runtime of a device for one Environment and answers 202 with the
// suspend_id once the request is recorded and sent; POST
// /core/v1/suspensions/{suspend}/resume resumes it (rollback optional,
// implied after an unknown outcome); GET /core/v1/suspensions/{suspend}
// shows the state the Runtime's replies decided. A resumed suspension is
// final, across Core restarts too: a later resume is 409
// suspension_terminal and sends nothing. Without a store that keeps
// suspension records the calls are 503 fencing_unavailable.
//
// # The Agents API (/v1)
//
// Under /v1 Core serves the beta Agents resources of the official OpenAI
// SDK (base URL <core>/v1; v1.go and the files it names). Every call needs
// `Authorization: Bearer <API key>`, checked by Options.Keys (without one
// every /v1 call is 401); the SDK's OpenAI-Beta header is accepted. Bodies
// are at most 5 MiB (413 body_too_large) and decoded strictly. Every error
// is {"error":{"message","type","param","code"}}: the machine's named
// errors keep their codes and statuses, param names the parameter at
// fault, and a refusal other than 429 and 503 carries X-Should-Retry:
// false so that the SDK does not repeat it. A path no route has is 404
// unknown_route, a known path with another method 405. Lists are cursor
// pages {"object":"list","data","first_id","last_id","has_more"} paged
// with after and limit (1..100, default 20), newest first unless
// order=asc.
//
// Agents (agent.go) are kept in Options.Resources (SQLite in `turnstile
// core`): Core's additions live in x_agents_core (harness, model_provider
// with a write-only api_key handed to Options.ProviderKeys, harness_config);
// any other member there is 400 unknown_field, and settings Core cannot
// honour (reasoning effort, service tiers, web search, ...) are 400
// not_supported. A Session (session.go) is the machine's Session: it
// freezes the Agent's configuration at creation; its metadata, the Agent
// it came from and its Turns' creation times are a shell record beside
// it. Deleting a Session (session_delete.go) marks its shell record
// deleted: every /v1 route then answers it 404 unknown_session and lists
// leave it out; a Session with an unfinished Turn is refused 409
// session_active. Core's durable history of a deleted Session (its
// Turns, inputs and run events) is not destroyed: the machine keeps it
// and the operator routes read it. Input events (session_events.go) map onto the machine: a
// message starts a Turn, or is steered into the unfinished one; cancel is
// the Turn cancel; a tool result is the function result; an approval
// result is the permission decision; each keeps the machine's codes, and
// Idempotency-Key makes each event durable-idempotent (a retried message
// replays its first answer whether that started a Turn or steered one). The event stream
// (session_stream.go) is derived from committed records only, woken by
// server.Changed; each event's ID is a cursor of persisted sequences and
// Last-Event-ID resumes after it. Turns and Items (turns.go,
// session_history.go) are the persisted history, steered inputs with
// their receipts included.
//
// API keys (apikey.go): Keys is the KeyVerifier of `turnstile core`. Core
// issues keys (`turnstile core key add|list|revoke`), shows a secret once
// (prefix tsk_, 256 random bits), keeps only its SHA-256 as a resource
// record, and reads the record on every check, so a key revoked by another
// process is refused from its next request on.
//
// Vaults and Credentials (vault.go, vault_routes.go; /v1/vaults): a
// Credential's secret (a static_bearer token, an mcp_oauth access token,
// an environment_variable value) is write-only: sealed with AES-256-GCM
// under Options.VaultKey (the -vault-key file: 64 hex digits), bound to
// its vault and credential IDs, never answered, never in an error message
// or a log line; inside Core it is a Secret, which prints [redacted].
// Without a vault key every credential route is 503
// vault_key_unconfigured. Vaults.MCPBearer and Vaults.EnvironmentSecret
// resolve a Session's secrets from its vault_ids; an MCP server whose
// bearer token is a credential ID keeps that ID in the Session record, and
// Vaults.FrameSecrets (server.Options.PrepareFrame in `turnstile core`)
// puts the secret in the execution_prepare frame only. An Agent's model
// provider key is sealed the same way (Vaults.StoreProviderKey). Core
// does not refresh OAuth tokens (refresh is 400 not_supported).
//
// Environments (agents_environment.go; /v1/agents/environments): an
// Environment is Core's binding — its kind and the canonical UUID a bound
// Session carries to the Runtime, answered as x_agents_core.environment_id
// — and, for openai_hosted, the definition (inline files, skills, plugins,
// setup commands) every connection installs through runtime_prepare.
// Environment Files are the workspace of the latest Session bound to it
// (a write, a directory read; 409 environment_not_connected before any; a
// write is not deduplicated, so Idempotency-Key on it is 400
// not_supported). A Session's environment is bound at creation: none, an
// inline self_hosted or openai_hosted environment (recorded once the
// machine created the Session), or an existing openai_hosted Environment
// by environment_id (404 unknown_environment otherwise). Its vault_ids
// name existing Vaults (404 unknown_vault), and every MCP tool's
// credential_id of its Agent lies in one of them (404
// unknown_credential); the Session keeps the references, never a secret.
// Templates, Files API and Skills API references, packages, network,
// desktop, env and capability directories are 400 not_supported, and so
// are Session artifacts (the Runtime protocol reports none).
package api
