// Package server runs Core's machine as a real process: one goroutine (Run)
// owns the core.Machine and its Backend; connection readers, HTTP handlers
// and timers hand it work through a bounded inbox.
//
// # The loop
//
// Each turn of the loop takes one queued input and then whatever else is
// already queued (up to Options.BatchMax), steps the machine once per
// event, commits the backend once for the whole batch, and only then
// applies the effects of the batch in the order the machine returned them:
// frames are encoded and queued on their connection, connections closed,
// timers set or stopped on the Clock, API results handed to their waiting
// callers and observations to subscribers. So no frame and no answer ever
// leaves ahead of the durable state that justifies it (group commit). A
// failed Commit is fatal (Options.Fatal; by default the process panics) and
// the next start recovers through core.Restart, which New calls whenever
// the backend already holds records.
//
// Applying an effect never blocks: a connection's queue that is full closes
// that connection only (close code 1013) and the machine is told it is
// gone in the next step; a subscriber that falls SubscriptionMax
// observations behind loses its subscription with core.ErrSubscriberOverflow.
//
// A connection's reader hands its decoded frames to the loop through the
// connection's Inbound: the first frame into an empty queue schedules one
// drain, later ones join it, so a busy loop steps many frames per inbox
// item; at most InboundFramesMax wait, beyond that the reader blocks.
//
// Connection IDs are minted by Open in call order, so they increase per
// device in accept order, as the machine requires. Devices revoked in the
// backend (possibly by another process) have their live connection closed
// with code 4001 within Options.RevocationPoll.
//
// # Calls
//
// Call runs one public API event and waits for its committed answer; with
// an idempotency key the rendered answer is stored in the same commit, and a
// later Call with that key gets it back without reaching the machine.
// Subscribe opens a SubscribeDurable subscription. Query runs a function on
// the loop with read access to the machine and the backend.
//
// # Traces
//
// With Options.Tracer set, the loop records OpenTelemetry spans from
// outside the machine, which never sees them (tracing.go): a Turn span
// (wiretrace.SpanTurn) from the SubmitTurn the machine accepted to the commit that
// made the Turn terminal, with its state and error code; a preparation
// span (wiretrace.SpanPreparation) from the execution_prepare sent for the
// Session's oldest open Turn, under that Turn's span, to the first
// preparation_status other than preparing, or the connection's end; and
// one span per frame sent ("send <type>", under the frame's preparation
// or Turn, else a new root) or received ("receive <type>"). A frame the
// machine sends with an empty trace leaves stamped with its send span's
// W3C traceparent, so the daemon continues the trace; a received frame
// with a valid traceparent gets its receive span as that context's child,
// one without (missing, or dropped by the codec as unusable) a new root
// linked to its Turn or preparation, never a refusal. Heartbeats are
// traced only when they carry a trace. Attributes are identifiers
// (Turn, Session, preparation, frame ID, connection, device), frame
// types, states and error codes: never a credential, token, key, Vault
// secret, payload or input text. Without a tracer the hooks are nil
// checks that allocate nothing, and frames carry no trace.
// # Observation
//
// The machine writes through a store the server wraps: every write reaches
// the backend unchanged, and the server notes each Turn whose state
// changed, each Turn's first run event and each Environment preparation
// that ended. After the commit that made them durable it logs one
// "turn transition" line per change (session, turn, run, device, from,
// state, code, attempt: IDs and codes, never input or output text) and
// moves Metrics (nil: none): Turns finished by state and error code, Turn
// latency and time to first event (for Turns submitted to this process),
// preparation latency, commit latency and the Steps per commit, frames in
// and out by type, refused frames by reason, SSE streams, connections and
// connected devices. Nothing of it reaches the machine.
package server
