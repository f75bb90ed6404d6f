package sqlitestore

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/core"
)

// TestMigratesSchemaTwoInPlace: a data directory written at schema
// version 2 (before the suspension and preparation tables), with a Turn,
// a device and an idempotency answer, is upgraded in place: every row is
// intact and the new tables take records that survive a reopen.
func TestMigratesSchemaTwoInPlace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := migrate(ctx, db, path, migrations[:2]); err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(core.TurnRecord{ID: "t-1", Seq: 1, Session: "s-1", State: core.TurnRunning})
	hash := sha256.Sum256([]byte("credential"))
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO turns (id, seq, session, body) VALUES ('t-1', 1, 's-1', ?)`, []any{string(body)}},
		{`INSERT INTO devices (id, credential_hash, revoked, created_at, revoked_at) VALUES ('d1', ?, 0, ?, '')`,
			[]any{hash[:], time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Format(time.RFC3339Nano)}},
		{`INSERT INTO idempotency (key, answer) VALUES ('k1', ?)`, []any{[]byte(`{"turn_id":"t-1"}`)}},
	} {
		if _, err := db.Exec(q.sql, q.args...); err != nil {
			t.Fatalf("%s: %v", q.sql, err)
		}
	}
	var v, tables int
	if err := db.QueryRow(`SELECT version FROM schema_version`).Scan(&v); err != nil || v != 2 {
		t.Fatalf("fixture at version %d (%v), want 2", v, err)
	}
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name IN ('suspensions', 'preparations')`).Scan(&tables); err != nil || tables != 0 {
		t.Fatalf("version 2 already has the environment tables: %d %v", tables, err)
	}
	db.Close()

	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.db.QueryRow(`SELECT version FROM schema_version`).Scan(&v); err != nil || v != SchemaVersion {
		t.Fatalf("version %d %v, want %d", v, err, SchemaVersion)
	}
	if r, ok := s.Turn("t-1"); !ok || r.State != core.TurnRunning {
		t.Fatalf("turn after migration: %+v %v", r, ok)
	}
	if d, ok, err := s.Device("d1"); !ok || err != nil || d.CredentialHash != hash {
		t.Fatalf("device after migration: %+v %v %v", d, ok, err)
	}
	if a, ok := s.Idempotent("k1"); !ok || string(a) != `{"turn_id":"t-1"}` {
		t.Fatalf("idempotency answer after migration: %q %v", a, ok)
	}
	if len(s.Suspensions()) != 0 || len(s.EnvironmentPreparations()) != 0 {
		t.Fatal("a migrated store lists environment records it never had")
	}
	sus := core.SuspensionRecord{ID: "sus-1", Seq: 1, EnvironmentID: "e", Device: "d1", State: core.SuspensionQuiesced, Attempts: 1}
	s.PutSuspension(sus)
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := s.Suspensions(); len(got) != 1 || got[0] != sus {
		t.Fatalf("suspension after reopen: %+v", got)
	}
	if r, ok := s.Turn("t-1"); !ok || r.State != core.TurnRunning {
		t.Fatalf("turn after the second open: %+v %v", r, ok)
	}
}

// TestEnvironmentRecordKeysAreFixed: a record rewritten under another
// Seq, or a Seq reused by another ID, is refused with a panic naming both,
// and nothing of it is recorded, in the mirror or on disk.
func TestEnvironmentRecordKeysAreFixed(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.PutSuspension(core.SuspensionRecord{ID: "sus-1", Seq: 1, State: core.SuspensionQuiescing})
	s.PutEnvironmentPreparation(core.EnvironmentPreparationRecord{ID: "ep-1", Seq: 1, State: core.PreparationPending})
	refused := func(what, want string, f func()) {
		t.Helper()
		defer func() {
			t.Helper()
			r := recover()
			if msg, _ := r.(string); !strings.Contains(msg, want) {
				t.Fatalf("%s: panic %v, want one naming %q", what, r, want)
			}
		}()
		f()
	}
	refused("suspension under a new seq", `"sus-1" rewritten with seq 2`, func() {
		s.PutSuspension(core.SuspensionRecord{ID: "sus-1", Seq: 2, State: core.SuspensionQuiesced})
	})
	refused("seq of another suspension", `which "sus-1" holds`, func() {
		s.PutSuspension(core.SuspensionRecord{ID: "sus-9", Seq: 1})
	})
	refused("preparation under a new seq", `"ep-1" rewritten with seq 7`, func() {
		s.PutEnvironmentPreparation(core.EnvironmentPreparationRecord{ID: "ep-1", Seq: 7})
	})
	refused("seq of another preparation", `which "ep-1" holds`, func() {
		s.PutEnvironmentPreparation(core.EnvironmentPreparationRecord{ID: "ep-2", Seq: 1})
	})
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sus, preps := s.Suspensions(), s.EnvironmentPreparations()
	if len(sus) != 1 || sus[0].State != core.SuspensionQuiescing || len(preps) != 1 || preps[0].State != core.PreparationPending {
		t.Fatalf("after refused writes: %+v %+v", sus, preps)
	}
}

// TestEnvironmentRecordBadRowRefused: a row whose body names another ID
// or Seq than its key columns, or does not decode, makes Open fail with
// ErrBadRecord.
func TestEnvironmentRecordBadRowRefused(t *testing.T) {
	for name, row := range map[string][3]string{
		"suspension id":    {"suspensions", "sus-1", `{"ID":"sus-2","Seq":1}`},
		"suspension seq":   {"suspensions", "sus-1", `{"ID":"sus-1","Seq":4}`},
		"suspension json":  {"suspensions", "sus-1", `{"ID":`},
		"preparation id":   {"preparations", "ep-1", `{"ID":"ep-9","Seq":1}`},
		"preparation seq":  {"preparations", "ep-1", `{"ID":"ep-1","Seq":0}`},
		"preparation json": {"preparations", "ep-1", `{"Steps":{}}`},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			s, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.db.Exec(`INSERT INTO `+row[0]+` (seq, id, body) VALUES (1, ?, ?)`, row[1], row[2]); err != nil {
				t.Fatal(err)
			}
			s.Close()
			if s, err := Open(dir); !errors.Is(err, ErrBadRecord) || !strings.Contains(err.Error(), row[1]) {
				if s != nil {
					s.Close()
				}
				t.Fatalf("Open: %v, want ErrBadRecord naming %s", err, row[1])
			}
		})
	}
}
