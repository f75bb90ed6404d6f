// Package api is Core's public HTTP API, served next to the Runtime
// gateway over the same server.Server: create a Session, submit a Turn,
// steer an input, cancel, read a Turn, list a Session's Turns, and watch a
// Turn's run events as Server-Sent Events. The routes are Routes();
// openapi.json (OpenAPI 3.1, embedded as OpenAPI) describes them and a
// test keeps the two equal.
//
// Core's own operator routes live under the administrator prefix /core/v1
// (OperatorPrefix): the device list (GET /core/v1/devices) and suspension
// fencing (/core/v1/suspensions...). They are authenticated by the
// operator token only; an API key is never an operator token.
//
// Every call needs `Authorization: Bearer <operator token>`; a device
// credential is never an operator token. Bodies are at most 1 MiB and
// decoded strictly. Every error is {"error": <code>, "detail": <text>} with
// a code of Codes, and a call answered with an error changed nothing.
//
// POST calls honour Idempotency-Key durably: the answer is stored in the
// same commit as the call's writes; a retry with the same key and body gets
// the first answer back (Idempotent-Replayed: true) and creates nothing; the
// same key with a different body is 422 idempotency_conflict.
//
// The event stream is backed by the machine's SubscribeDurable: each event
// carries its persisted sequence as the SSE id, Last-Event-ID resumes after
// it, and the stream ends with `end` or with an explicit
// `observation_error`, never a fabricated done.
//
// A Session's agent configuration may carry function_tools and mcp_servers
// in their wire shapes; the machine refuses at creation (invalid_config)
// any configuration whose execution_prepare the wire validators would
// refuse. An explicit `"mcp_servers":[]` is not the same as leaving it out:
// it reaches the Runtime as mcp_http_servers: [] (no MCP server), while an
// absent or null member leaves mcp_http_servers out (native behaviour). Listing a Session's Turns is paged: `limit` (1..200, default 50)
// and `after` (a Turn of the Session; the previous page's next_after).
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
package api
