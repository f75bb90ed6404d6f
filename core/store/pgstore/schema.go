package pgstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Errors of Open. Each wraps the server and database it names (never the
// password) and the cause.
var (
	// ErrDSN: the connection string does not parse.
	ErrDSN = errors.New("pgstore: invalid PostgreSQL connection string")
	// ErrUnreachable: no connection to the server (refused, unknown host,
	// no socket, authentication failed, timed out).
	ErrUnreachable = errors.New("pgstore: cannot connect to PostgreSQL")
	// ErrNoSchema: the connection's search_path names no existing schema,
	// so there is nowhere to create the tables.
	ErrNoSchema = errors.New("pgstore: the search_path names no existing schema")
	// ErrSchemaNewer: the database was written by a newer schema than this
	// build knows. Open changed nothing.
	ErrSchemaNewer = errors.New("pgstore: database schema is newer than this build")
	// ErrForeign: the schema holds tables this store did not write (no
	// schema_version, or one of another program).
	ErrForeign = errors.New("pgstore: not a Turnstile store")
	// ErrBadRecord: a stored record does not decode, or breaks the
	// store's own rules (an input or event sequence gap).
	ErrBadRecord = errors.New("pgstore: stored record is invalid")
)

// storeName marks the schema_version row of a Turnstile Core store, so
// another program's schema_version table is not taken for ours.
const storeName = "turnstile core"

// migration is one step of the schema history. Migrations are applied in
// order, each in its own transaction together with the version bump; a
// released migration is never edited, only followed by a new one.
type migration struct {
	version int
	name    string
	stmts   []string
}

// SchemaVersion is the schema this build writes: the last migration's
// version.
const SchemaVersion = 2

// migrations is the schema history, oldest first. Record bodies are the
// records' JSON as text (not jsonb: the text is kept byte for byte);
// sessions and turns keep their first-write order in ord.
var migrations = []migration{
	{1, "core, operator, environment and resource records", []string{
		`CREATE TABLE counters (
			id INTEGER PRIMARY KEY CHECK (id = 1),
			sessions BIGINT NOT NULL,
			turns BIGINT NOT NULL,
			preparations BIGINT NOT NULL)`,
		`CREATE TABLE sessions (
			ord BIGINT GENERATED ALWAYS AS IDENTITY,
			id TEXT PRIMARY KEY,
			seq BIGINT NOT NULL,
			body TEXT NOT NULL)`,
		`CREATE INDEX sessions_seq ON sessions (seq, ord)`,
		`CREATE TABLE turns (
			ord BIGINT GENERATED ALWAYS AS IDENTITY,
			id TEXT PRIMARY KEY,
			seq BIGINT NOT NULL,
			session TEXT NOT NULL,
			body TEXT NOT NULL)`,
		`CREATE INDEX turns_seq ON turns (seq, ord)`,
		`CREATE INDEX turns_session ON turns (session, seq)`,
		`CREATE TABLE inputs (
			turn TEXT NOT NULL,
			idx INTEGER NOT NULL CHECK (idx >= 1),
			body TEXT NOT NULL,
			PRIMARY KEY (turn, idx))`,
		`CREATE TABLE events (
			turn TEXT NOT NULL,
			seq BIGINT NOT NULL CHECK (seq >= 1),
			type TEXT NOT NULL,
			kind TEXT NOT NULL,
			payload TEXT NOT NULL,
			PRIMARY KEY (turn, seq))`,
		`CREATE TABLE devices (
			id TEXT PRIMARY KEY,
			credential_hash BYTEA NOT NULL CHECK (length(credential_hash) = 32),
			revoked BOOLEAN NOT NULL,
			created_at TEXT NOT NULL,
			revoked_at TEXT NOT NULL)`,
		`CREATE TABLE idempotency (
			key BYTEA PRIMARY KEY,
			answer BYTEA NOT NULL)`,
		`CREATE TABLE suspensions (
			seq BIGINT PRIMARY KEY CHECK (seq >= 0),
			id TEXT NOT NULL UNIQUE,
			body TEXT NOT NULL)`,
		`CREATE TABLE preparations (
			seq BIGINT PRIMARY KEY CHECK (seq >= 0),
			id TEXT NOT NULL UNIQUE,
			body TEXT NOT NULL)`,
		`CREATE TABLE resources (
			seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
			kind TEXT NOT NULL CHECK (kind <> ''),
			id TEXT NOT NULL CHECK (id <> ''),
			body BYTEA NOT NULL,
			UNIQUE (kind, id))`,
	}},
	{2, "the lease of the active Core", []string{
		`CREATE TABLE lease (
			id INTEGER PRIMARY KEY CHECK (id = 1),
			holder TEXT NOT NULL,
			epoch BIGINT NOT NULL CHECK (epoch >= 1),
			expires_at TIMESTAMPTZ NOT NULL)`,
	}},
}

// schemaVersion reads the schema's version without writing anything: 0
// for a schema without tables.
func schemaVersion(ctx context.Context, db *pgxpool.Pool, where string) (int, error) {
	var schema *string
	var tables, versioned int
	err := db.QueryRow(ctx, `SELECT current_schema(),
		(SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()),
		(SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename = 'schema_version')`).
		Scan(&schema, &tables, &versioned)
	if err != nil {
		return 0, classify(where, err)
	}
	switch {
	case schema == nil:
		return 0, fmt.Errorf("%w: %s", ErrNoSchema, where)
	case versioned == 1:
	case tables == 0:
		return 0, nil
	default:
		return 0, fmt.Errorf("%w: %s: schema %q has %d tables and no schema_version", ErrForeign, where, *schema, tables)
	}
	var name string
	var v int
	if err := db.QueryRow(ctx, `SELECT store, version FROM schema_version WHERE id = 1`).Scan(&name, &v); err != nil {
		return 0, fmt.Errorf("%w: %s: schema %q: schema_version: %v", ErrForeign, where, *schema, err)
	}
	if name != storeName {
		return 0, fmt.Errorf("%w: %s: schema %q: schema_version belongs to %q", ErrForeign, where, *schema, name)
	}
	return v, nil
}

// migrate applies every migration of list newer than the schema's
// version, each in its own transaction. An advisory lock held for the
// transaction serialises two Cores migrating the same schema at once; the
// version is read again under it. created reports whether this call
// applied the first migration, which creates the store: of two Cores
// migrating an empty schema at once, only one did.
func migrate(ctx context.Context, db *pgxpool.Pool, where string, list []migration) (created bool, err error) {
	for _, m := range list {
		applied, err := applyMigration(ctx, db, where, m)
		if err != nil {
			return false, err
		}
		if applied && m.version == 1 {
			created = true
		}
	}
	return created, nil
}

// migrationLock is the first key of the advisory lock migrations take
// (the second is the schema's name).
const migrationLock = 0x7475726e // "turn"

func applyMigration(ctx context.Context, db *pgxpool.Pool, where string, m migration) (applied bool, err error) {
	tx, err := db.Begin(ctx)
	if err != nil {
		return false, classify(where, err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback(ctx)
		}
	}()
	if _, err = tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext(current_schema()))`, migrationLock); err != nil {
		return false, classify(where, err)
	}
	if _, err = tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_version (
		id INTEGER PRIMARY KEY CHECK (id = 1),
		store TEXT NOT NULL,
		version INTEGER NOT NULL)`); err != nil {
		return false, classify(where, err)
	}
	if _, err = tx.Exec(ctx, `INSERT INTO schema_version (id, store, version) VALUES (1, $1, 0) ON CONFLICT (id) DO NOTHING`, storeName); err != nil {
		return false, classify(where, err)
	}
	var v int
	if err = tx.QueryRow(ctx, `SELECT version FROM schema_version WHERE id = 1`).Scan(&v); err != nil {
		return false, classify(where, err)
	}
	if v >= m.version {
		return false, tx.Rollback(ctx)
	}
	if v != m.version-1 {
		return false, fmt.Errorf("%w: %s is at schema version %d, migration %d expects %d", ErrBadRecord, where, v, m.version, m.version-1)
	}
	for _, q := range m.stmts {
		if _, err = tx.Exec(ctx, q); err != nil {
			return false, fmt.Errorf("pgstore: %s: migration %d (%s): %w", where, m.version, m.name, err)
		}
	}
	if _, err = tx.Exec(ctx, `UPDATE schema_version SET version = $1 WHERE id = 1`, m.version); err != nil {
		return false, classify(where, err)
	}
	if err = tx.Commit(ctx); err != nil {
		return false, classify(where, err)
	}
	return true, nil
}

// classify adds where to a server error.
func classify(where string, err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return err
	}
	return fmt.Errorf("pgstore: %s: %w", where, err)
}
