package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/turnstile-sim/turnstile/core"
)

// TestMigratesAnOlderSchema: a file at version 1 (core records only), as
// an older build left it, is brought to SchemaVersion in order, its
// records intact.
func TestMigratesAnOlderSchema(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := migrate(ctx, db, path, migrations[:1]); err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(core.TurnRecord{ID: "t-1", Seq: 1, Session: "s-1", State: core.TurnQueued})
	if _, err := db.Exec(`INSERT INTO turns (id, seq, session, body) VALUES ('t-1', 1, 's-1', ?)`, string(body)); err != nil {
		t.Fatal(err)
	}
	var tables int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name IN ('devices', 'idempotency')`).Scan(&tables); err != nil || tables != 0 {
		t.Fatalf("version 1 has operator tables: %d %v", tables, err)
	}
	db.Close()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var v int
	if err := s.db.QueryRow(`SELECT version FROM schema_version`).Scan(&v); err != nil || v != SchemaVersion {
		t.Fatalf("version %d %v, want %d", v, err, SchemaVersion)
	}
	if r, ok := s.Turn("t-1"); !ok || r.State != core.TurnQueued {
		t.Fatalf("turn lost in migration: %+v %v", r, ok)
	}
	if _, ok, err := s.Device("d"); ok || err != nil {
		t.Fatalf("devices table after migration: %v %v", ok, err)
	}
}

// TestMigrationsAreOrdered: versions count up from 1 without gaps, up to
// SchemaVersion.
func TestMigrationsAreOrdered(t *testing.T) {
	for i, m := range migrations {
		if m.version != i+1 || m.name == "" || len(m.stmts) == 0 {
			t.Fatalf("migration %d: %+v", i, m)
		}
	}
	if last := migrations[len(migrations)-1].version; last != SchemaVersion {
		t.Fatalf("last migration %d, SchemaVersion %d", last, SchemaVersion)
	}
}

// TestConnectionSettings: the store's own connection runs with the
// durability and safety settings Open promises.
func TestConnectionSettings(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for pragma, want := range map[string]string{
		"journal_mode": "wal", "synchronous": "2", "foreign_keys": "1", "busy_timeout": "5000",
	} {
		var got string
		if err := s.db.QueryRow(`PRAGMA ` + pragma).Scan(&got); err != nil || got != want {
			t.Errorf("%s = %q (%v), want %q", pragma, got, err, want)
		}
	}
}
