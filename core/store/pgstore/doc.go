// Package pgstore is Core's store on a PostgreSQL server: core.Store and
// every optional store of the embedded SQLite store (suspensions,
// Environment preparations, devices, idempotency answers, and the API
// resource records: Agents, Sessions of the Agents API, API keys, Vaults
// and credentials) over one schema of one database, through
// github.com/jackc/pgx/v5. It is a shell: it does network I/O, and the
// simulator never imports it.
//
// # Connection
//
// Open(dsn) takes a libpq connection string, as a URL
// (postgres://user:password@host:5432/db?sslmode=require, or over a Unix
// socket postgres://user@/db?host=/run/postgresql) or as key=value pairs
// (host=db.internal user=core dbname=core). search_path=S places the tables
// in schema S (it must exist); otherwise they go to the first schema of
// the server's search_path, normally public. The password never appears in
// an error. A string that does not parse is ErrDSN, a server that cannot
// be reached (or refuses the login, or has no such database)
// ErrUnreachable, a search_path naming no schema ErrNoSchema. A pool of
// MaxConns connections serves Commit and the operator methods.
//
// # Group commit and the mirror
//
// As in the SQLite store, Open loads every record into an in-memory
// mirror (a store.Memory) in one repeatable-read transaction, and every
// core.Store read is served from it. A core.Store write updates the
// mirror at once and joins the pending batch; Commit sends the whole batch
// as one pipelined round trip inside one transaction and returns when the
// server has committed it. A crash (or a failed Commit) loses the batch as
// a unit: the next Open finds exactly the state of the last Commit. The
// store is fail-stop: a write it cannot accept panics before it is
// recorded (an out-of-sequence input or event, a payload that is no
// registered wire type, a value beyond bigint, a key with a NUL byte or
// invalid UTF-8, which PostgreSQL text cannot hold), and a failed Commit
// makes every later Commit return the same error.
//
// Devices and resource records are written at once, each change in its
// own transaction, and read from the database, so a change made by
// another process (turnstile core device add) is seen at once.
// Idempotency answers join the pending batch.
//
// # Schema
//
//	schema_version(id=1, store='turnstile core', version)
//	counters(id=1, sessions, turns, preparations)
//	sessions(ord, id PRIMARY KEY, seq, body)       listed by seq, then first write
//	turns(ord, id PRIMARY KEY, seq, session, body) listed by seq, then first write
//	inputs(turn, idx, body)                        primary key (turn, idx)
//	events(turn, seq, type, kind, payload)         primary key (turn, seq)
//	devices(id, credential_hash, revoked, created_at, revoked_at)
//	idempotency(key bytea, answer bytea)
//	suspensions(seq PRIMARY KEY, id UNIQUE, body)
//	preparations(seq PRIMARY KEY, id UNIQUE, body)
//	resources(seq identity, kind, id, body bytea)  UNIQUE (kind, id)
//	lease(id=1, holder, epoch, expires_at)         the active Core's lease
//
// Bodies are the records' encoding/json text, as in the SQLite store.
// Migrations are an ordered list in code (schema.go); each runs in its own
// transaction under an advisory lock, together with its schema_version
// bump, so two Cores opening one empty schema at once migrate it once.
// Open refuses a schema of a newer version (ErrSchemaNewer) and a schema
// holding another program's tables (ErrForeign) and changes nothing then;
// a stored record that does not decode is ErrBadRecord.
//
// # Lease and fencing
//
// Two Cores on one schema elect the active one through the lease row
// (lease.go): OpenLease migrates the schema without loading records;
// Acquire takes the row when it is absent or expired by the database's
// clock (now()), incrementing its epoch; Renew extends it by its TTL;
// Release lets it expire at once. The active Core opens its store with
// Lease.Store, which carries the held epoch: every write transaction
// (Commit and the device and resource writes) first reads the epoch with
// SELECT ... FOR SHARE and is rolled back with ErrFenced when it differs,
// so a Core that lost the lease (paused, cut off) commits nothing, and a
// takeover waits for a write transaction in flight. The lease is scoped to
// the schema (a table, not a cluster-wide advisory lock). Open (no lease)
// writes unfenced: the device and key commands.
package pgstore
