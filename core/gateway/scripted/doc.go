// Package scripted is a scripted Runtime peer for Core's shell tests, load
// tests and crash tests: it answers Core's frames the way a well-behaved
// Runtime does (preparing, ready, starting, started, run output, done,
// cancel and steering receipts, accepted quiesce and resume replies)
// without any Harness. Runtime answers frames at the byte level; Client
// dials a real gateway (bootstrap, then the WebSocket) and plays a Runtime
// over it.
//
// It is a test peer, not a daemon: it keeps no admission table, never
// expires anything and trusts Core's frames.
package scripted
