// Package sqlitestore is Core's embedded on-disk store: core.Store over one
// SQLite file (modernc.org/sqlite, pure Go, through database/sql), with
// group commit. It is a shell: it does file I/O and locking, and the
// simulator never imports it.
//
// # Files and settings
//
// Open(dir) creates dir if needed and opens dir/core.db in WAL mode with
// synchronous=FULL (a committed transaction survives power loss),
// foreign_keys on and a busy timeout of BusyTimeoutMS, over a single
// connection. Other processes (an operator command enrolling a device)
// may open the same directory; SQLite's locks serialise their writes.
//
// # Group commit and the mirror
//
// Open loads every record into an in-memory mirror (a store.Memory), and
// every core.Store read is served from it. A core.Store write updates the
// mirror at once and joins the pending batch; Commit writes the whole
// batch in one transaction and returns when it is durable. A server loop
// calls Commit after the Steps it drained together and before applying
// any of their effects, so no frame or API answer leaves ahead of the
// state that justifies it. A crash between two Commits loses the batch as
// a unit: the next Open finds exactly the state of the last Commit, and
// core.Restart recovers from it. Close without Commit discards the batch
// the same way.
//
// The store is fail-stop. core.Store methods cannot return errors, so a
// write the store cannot accept (an input index or event sequence out of
// order, as store.Memory refuses it; a payload that is not a registered
// wire type; a value beyond SQLite's integer range; a write after Close)
// panics with a message before it is recorded anywhere. A failed Commit
// returns its error and every later Commit returns the same one: the
// mirror is then ahead of the disk, and the caller must stop the process.
//
// # Operator records
//
// Devices (ID, SHA-256 of the credential, revocation) are written at once,
// each change in its own transaction, and read from the file, so a change
// made by another process is seen immediately. Idempotency answers of the
// API (PutIdempotent) join the pending batch, so an answer is durable in
// the same transaction as the writes of the request it answers; the first
// answer for a key stays.
//
// # Schema
//
// Each record is one row: indexed key columns (ID, Seq, owning Turn,
// index or sequence) plus the record body as a JSON column (encoding/json
// of the Go record: field names as in Go, time.Time as RFC 3339 with
// nanoseconds and its UTC offset). Events keep their type string, the
// payload's wire type (kind) and the payload JSON, decoded back into the
// registered wire payload type. Records round-trip exactly in the
// canonical form wire.Decode produces (compact raw JSON, empty optional
// collections nil); a time keeps its instant and offset, not a zone name
// or monotonic reading.
//
//	schema_version(id=1, version)
//	counters(id=1, sessions, turns, preparations)
//	sessions(id UNIQUE, seq, body)          listed by seq, then first write
//	turns(id UNIQUE, seq, session, body)    listed by seq, then first write
//	inputs(turn, idx, body)                 primary key (turn, idx)
//	events(turn, seq, type, kind, payload)  primary key (turn, seq)
//	devices(id, credential_hash, revoked, created_at, revoked_at)
//	idempotency(key, answer)
//	suspensions(seq PRIMARY KEY, id UNIQUE, body)   core.SuspensionStore
//	preparations(seq PRIMARY KEY, id UNIQUE, body)  core.PreparationStore
//
// The suspension and Environment preparation records (schema version 3)
// make the store a core.SuspensionStore and a core.PreparationStore, so
// Core can fence and prepare Environments over it. A record keeps the Seq
// it was first written with; rewriting it under another Seq, or a Seq
// under another ID, panics before anything is recorded. Its body is the
// whole record as JSON, so fields added to a record need no migration.
//
// Migrations are an ordered list in code (schema.go); each is applied in
// its own transaction together with its schema_version bump. Open refuses
// a database whose version is newer than SchemaVersion (ErrSchemaNewer),
// a file that is no SQLite database or is damaged (ErrCorrupt), and an
// SQLite database written by another program (ErrForeign), and changes
// nothing in those cases; a stored record that does not decode is
// ErrBadRecord.
package sqlitestore
