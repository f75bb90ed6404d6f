package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Errors of Open. Each wraps the path and the cause.
var (
	// ErrSchemaNewer: the database was written by a newer schema than this
	// build knows. Open changed nothing.
	ErrSchemaNewer = errors.New("sqlitestore: database schema is newer than this build")
	// ErrCorrupt: the file is not an SQLite database, or it is damaged.
	ErrCorrupt = errors.New("sqlitestore: not a readable SQLite database")
	// ErrForeign: the file is an SQLite database that this store did not
	// write (it has tables but no schema_version).
	ErrForeign = errors.New("sqlitestore: not a Turnstile store")
	// ErrBadRecord: a stored record does not decode, or breaks the
	// store's own rules (an input or event sequence gap).
	ErrBadRecord = errors.New("sqlitestore: stored record is invalid")
)

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
const SchemaVersion = 4

// migrations is the schema history, oldest first.
var migrations = []migration{
	{1, "core records", []string{
		`CREATE TABLE counters (
			id INTEGER PRIMARY KEY CHECK (id = 1),
			sessions INTEGER NOT NULL,
			turns INTEGER NOT NULL,
			preparations INTEGER NOT NULL)`,
		`CREATE TABLE sessions (
			id TEXT NOT NULL UNIQUE,
			seq INTEGER NOT NULL,
			body TEXT NOT NULL)`,
		`CREATE INDEX sessions_seq ON sessions (seq)`,
		`CREATE TABLE turns (
			id TEXT NOT NULL UNIQUE,
			seq INTEGER NOT NULL,
			session TEXT NOT NULL,
			body TEXT NOT NULL)`,
		`CREATE INDEX turns_seq ON turns (seq)`,
		`CREATE INDEX turns_session ON turns (session, seq)`,
		`CREATE TABLE inputs (
			turn TEXT NOT NULL,
			idx INTEGER NOT NULL CHECK (idx >= 1),
			body TEXT NOT NULL,
			PRIMARY KEY (turn, idx)) WITHOUT ROWID`,
		`CREATE TABLE events (
			turn TEXT NOT NULL,
			seq INTEGER NOT NULL CHECK (seq >= 1),
			type TEXT NOT NULL,
			kind TEXT NOT NULL,
			payload TEXT NOT NULL,
			PRIMARY KEY (turn, seq)) WITHOUT ROWID`,
	}},
	{2, "operator records", []string{
		`CREATE TABLE devices (
			id TEXT PRIMARY KEY,
			credential_hash BLOB NOT NULL CHECK (length(credential_hash) = 32),
			revoked INTEGER NOT NULL CHECK (revoked IN (0, 1)),
			created_at TEXT NOT NULL,
			revoked_at TEXT NOT NULL) WITHOUT ROWID`,
		`CREATE TABLE idempotency (
			key TEXT PRIMARY KEY,
			answer BLOB NOT NULL) WITHOUT ROWID`,
	}},
	// Fencing and preparation records: one row per record, keyed by its
	// sequence, the record itself as JSON, so a field added to a record
	// needs no migration.
	{3, "suspension and preparation records", []string{
		`CREATE TABLE suspensions (
			seq INTEGER PRIMARY KEY CHECK (seq >= 0),
			id TEXT NOT NULL UNIQUE,
			body TEXT NOT NULL)`,
		`CREATE TABLE preparations (
			seq INTEGER PRIMARY KEY CHECK (seq >= 0),
			id TEXT NOT NULL UNIQUE,
			body TEXT NOT NULL)`,
	}},
	// API objects that are not machine state (agents, keys, vaults):
	// one row per object, its JSON document, in creation order (seq).
	{4, "resource records", []string{
		`CREATE TABLE resources (
			seq INTEGER PRIMARY KEY AUTOINCREMENT,
			kind TEXT NOT NULL CHECK (kind <> ''),
			id TEXT NOT NULL CHECK (id <> ''),
			body BLOB NOT NULL,
			UNIQUE (kind, id))`,
	}},
}

// schemaVersion reads the database's schema version without writing
// anything: 0 for an empty database. A file that is not SQLite is
// ErrCorrupt; an SQLite database with tables but no schema_version is
// ErrForeign.
func schemaVersion(ctx context.Context, db *sql.DB, path string) (int, error) {
	var tables, versioned int
	err := db.QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (WHERE name = 'schema_version')
		FROM sqlite_schema WHERE type = 'table'`).Scan(&tables, &versioned)
	if err != nil {
		return 0, classify(path, err)
	}
	switch {
	case versioned == 1:
	case tables == 0:
		return 0, nil
	default:
		return 0, fmt.Errorf("%w: %s has %d tables and no schema_version", ErrForeign, path, tables)
	}
	var v int
	if err := db.QueryRowContext(ctx, `SELECT version FROM schema_version WHERE id = 1`).Scan(&v); err != nil {
		return 0, fmt.Errorf("%w: %s: schema_version: %v", ErrCorrupt, path, err)
	}
	return v, nil
}

// migrate applies every migration of list newer than the database's
// version, each in its own transaction. The version is read again inside
// each transaction, so a concurrent opener that migrated first is seen.
func migrate(ctx context.Context, db *sql.DB, path string, list []migration) error {
	for _, m := range list {
		if err := applyMigration(ctx, db, path, m); err != nil {
			return err
		}
	}
	return nil
}

func applyMigration(ctx context.Context, db *sql.DB, path string, m migration) (err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return classify(path, err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	if _, err = tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (
		id INTEGER PRIMARY KEY CHECK (id = 1),
		version INTEGER NOT NULL)`); err != nil {
		return classify(path, err)
	}
	if _, err = tx.ExecContext(ctx, `INSERT OR IGNORE INTO schema_version (id, version) VALUES (1, 0)`); err != nil {
		return classify(path, err)
	}
	var v int
	if err = tx.QueryRowContext(ctx, `SELECT version FROM schema_version WHERE id = 1`).Scan(&v); err != nil {
		return classify(path, err)
	}
	if v >= m.version {
		return tx.Rollback()
	}
	if v != m.version-1 {
		return fmt.Errorf("%w: %s is at schema version %d, migration %d expects %d", ErrCorrupt, path, v, m.version, m.version-1)
	}
	for _, q := range m.stmts {
		if _, err = tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("sqlitestore: %s: migration %d (%s): %w", path, m.version, m.name, err)
		}
	}
	if _, err = tx.ExecContext(ctx, `UPDATE schema_version SET version = ? WHERE id = 1`, m.version); err != nil {
		return classify(path, err)
	}
	if err = tx.Commit(); err != nil {
		return classify(path, err)
	}
	return nil
}

// classify names the SQLite result codes that mean "this is no database we
// can read"; other errors pass through with the path.
func classify(path string, err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT:
			return fmt.Errorf("%w: %s: %v", ErrCorrupt, path, err)
		}
	}
	return fmt.Errorf("sqlitestore: %s: %w", path, err)
}
