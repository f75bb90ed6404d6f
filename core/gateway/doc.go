// Package gateway is Core's Runtime-facing HTTP shell (wire-reference §2):
// POST /api/v1/agent-daemon/bootstrap, the WebSocket route
// GET /api/v1/agent-daemon/ws and GET /api/v1/agent-daemon/device-status,
// over a server.Server that owns the machine.
//
// Credentials travel only as `Authorization: Bearer <credential>`; only
// their SHA-256 is stored and it is compared in constant time; they are
// never echoed in a body, logged, or accepted in the URL (a request with a
// credential-like query parameter is refused with 400 missing_params).
// The upgrade checks, in order: missing device_id, version or bearer ⇒ 400
// missing_params; a version not byte-equal to wire.Version ⇒ 426
// incompatible_version, before any dispatch or registration; then the
// credential ⇒ 401 unknown_device (unknown or revoked) or bad_credential.
// ws_url in the bootstrap answer comes from the configured public URL,
// never from request headers.
//
// Each connection has a reader (the handler goroutine: read limit 4 MiB,
// frames read into a kept scratch buffer, copied out, decoded there and
// queued on the connection's server.Inbound, which the loop drains many
// frames at a time) and a writer (a queue of 64
// frames, at most 10 s per write; an overflow or a slow write closes only
// that connection). A best-effort frame (core.Send.Budget, the export
// cancel's 2 s) gets at most its budget from the moment it was queued:
// still queued when it ran out, it is dropped unwritten and the
// connection stays open; a write of it that began and did not finish in
// time closes the connection like any failed write, since part of it may
// already be on the stream. Idle close (60 s without an inbound frame), device
// replacement and invalid heartbeats are the machine's decisions, applied
// here as closes with code 1008; a revoked device is closed with 4001.
package gateway
