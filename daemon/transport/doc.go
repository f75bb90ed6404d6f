// Package transport is the daemon's connection to Core: the bootstrap
// request, the WebSocket dial, the frame reader and writer, and the
// reconnect policy. It holds no protocol decision: frames go to and come
// from the daemon machine unchanged (heartbeats included: the machine
// emits one at every Connected and every heartbeat interval, and Bootstrap
// tells the caller that interval).
//
// # Credentials
//
// The device credential travels only as `Authorization: Bearer …` on the
// bootstrap request and the WebSocket upgrade. It is never part of a URL,
// an error, a log line or a trace.
//
// # Connection
//
// Dial sends `device_id` and `version` (wire.Version) as query
// parameters and sets the read limit to wire.FrameBytesMax (4 MiB). A Conn
// writes queued frames in order on one goroutine; Send never blocks, and
// each frame's budget runs from the moment it was queued (zero:
// WriteTimeout). A failed or overrunning write closes the connection.
//
// # Reconnect
//
// Link.Run dials, reads until the connection fails and dials again after
// Policy.Next's wait: capped exponential backoff with full jitter, the
// draw taken from the caller's seeded source. Next is a pure function of
// (attempt, last error, draw). HTTP 426 (incompatible_version), 401 (the
// credential), 400, 403, WebSocket close code 4001 (device retired), a
// TLS certificate of Core's that the client's roots do not vouch for, and
// an https Core whose bootstrap names a plain ws:// URL are permanent:
// Run returns a *PermanentError whose Fix says what the operator must
// change. A successful connection, one that stayed up for
// Policy.Stable (5 s by default), resets the attempt count: the next
// loss waits as after a first failure, however briefly the connection
// lasted beyond that. Shorter connections are flapping and keep the
// count growing. A standby Core's answer (503 core_standby) waits half
// to all of StandbyRetry (1 s) and resets the count: a Core of the pair
// serves as soon as it holds the lease, and the daemon should be there
// within a second of it.
//
// Time goes through a github.com/benbjohnson/clock Clock (clock.New() in
// production; tests run the real clock inside a testing/synctest bubble).
//
// Package transporttest is a scripted Core (bootstrap and WebSocket routes)
// on an in-memory net.Pipe network, for tests of this package, of
// daemon/runner and of the command.
package transport
