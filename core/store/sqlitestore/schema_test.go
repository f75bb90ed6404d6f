package sqlitestore_test

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/store/sqlitestore"
	"github.com/turnstile-sim/turnstile/core/store/storetest"
)

// raw opens the store's file with plain SQL, outside the store.
func raw(t *testing.T, dir string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, sqlitestore.FileName))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	return db
}

func rawExec(t *testing.T, dir string, stmts ...string) {
	t.Helper()
	db := raw(t, dir)
	defer db.Close()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func rawInt(t *testing.T, dir, q string) int {
	t.Helper()
	db := raw(t, dir)
	defer db.Close()
	var n int
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// fileState is the data directory's contents: each file's name and hash.
func fileState(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(e.Name() + " " + strconv.Itoa(len(data)) + " ")
		sum := sha256.Sum256(data)
		b.Write(sum[:])
		b.WriteString("\n")
	}
	return b.String()
}

// committedStore leaves a store with a Session and a Turn in dir.
func committedStore(t *testing.T, dir string) {
	t.Helper()
	s := mustOpen(t, dir)
	s.PutSession(storetest.SampleSession("s-1", 1))
	s.PutTurn(storetest.SampleTurn("t-1", "s-1", 1))
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestOpenCreatesDirectoryAndSchema(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	s := mustOpen(t, dir)
	defer s.Close()
	if s.Path() != filepath.Join(dir, "core.db") {
		t.Fatalf("path %s", s.Path())
	}
	if v := rawInt(t, dir, `SELECT version FROM schema_version`); v != sqlitestore.SchemaVersion {
		t.Fatalf("schema version %d, want %d", v, sqlitestore.SchemaVersion)
	}
	for _, table := range []string{"counters", "sessions", "turns", "inputs", "events", "devices", "idempotency"} {
		if n := rawInt(t, dir, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = '`+table+`'`); n != 1 {
			t.Errorf("table %s missing", table)
		}
	}
	db := raw(t, dir)
	defer db.Close()
	var mode string
	if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal mode %q %v, want wal", mode, err)
	}
}

func TestReopenKeepsRecordsAndVersion(t *testing.T) {
	dir := t.TempDir()
	committedStore(t, dir)
	s := mustOpen(t, dir) // migrations already applied: nothing to redo
	defer s.Close()
	if got, ok := s.Turn("t-1"); !ok || got.Session != "s-1" {
		t.Fatalf("turn after reopen: %+v %v", got, ok)
	}
	if v := rawInt(t, dir, `SELECT version FROM schema_version`); v != sqlitestore.SchemaVersion {
		t.Fatalf("schema version %d", v)
	}
}

// TestRefusesNewerSchema: a file written by a later schema is refused by
// name, with both versions in the message, and left byte for byte as it
// was, journal mode included.
func TestRefusesNewerSchema(t *testing.T) {
	dir := t.TempDir()
	committedStore(t, dir)
	newer := sqlitestore.SchemaVersion + 7
	rawExec(t, dir, `UPDATE schema_version SET version = `+strconv.Itoa(newer), `PRAGMA journal_mode = DELETE`)
	before := fileState(t, dir)
	_, err := sqlitestore.Open(dir)
	if !errors.Is(err, sqlitestore.ErrSchemaNewer) {
		t.Fatalf("Open: %v, want ErrSchemaNewer", err)
	}
	for _, v := range []int{newer, sqlitestore.SchemaVersion} {
		if !strings.Contains(err.Error(), "version "+strconv.Itoa(v)) && !strings.Contains(err.Error(), "to "+strconv.Itoa(v)) {
			t.Errorf("message %q does not name version %d", err, v)
		}
	}
	if after := fileState(t, dir); after != before {
		t.Fatalf("refused Open changed the directory:\nbefore %q\nafter  %q", before, after)
	}
}

// TestRefusesUnreadableFiles: a file that is not SQLite, or whose pages
// are damaged, is ErrCorrupt; another program's database is ErrForeign;
// each leaves the file as it was.
func TestRefusesUnreadableFiles(t *testing.T) {
	cases := []struct {
		name string
		make func(t *testing.T, dir string)
		want error
	}{
		{"text file", func(t *testing.T, dir string) {
			writeFile(t, dir, bytes.Repeat([]byte("not a database, just text\n"), 200))
		}, sqlitestore.ErrCorrupt},
		{"damaged pages", func(t *testing.T, dir string) {
			committedStore(t, dir)
			data, err := os.ReadFile(filepath.Join(dir, sqlitestore.FileName))
			if err != nil {
				t.Fatal(err)
			}
			for i := 100; i < len(data); i++ { // keep the 100-byte header
				data[i] = byte(i*7 + 3)
			}
			writeFile(t, dir, data)
		}, sqlitestore.ErrCorrupt},
		{"another program's database", func(t *testing.T, dir string) {
			rawExec(t, dir, `CREATE TABLE notes (text TEXT)`, `INSERT INTO notes VALUES ('mine')`)
		}, sqlitestore.ErrForeign},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			c.make(t, dir)
			before := fileState(t, dir)
			s, err := sqlitestore.Open(dir)
			if !errors.Is(err, c.want) {
				if s != nil {
					s.Close()
				}
				t.Fatalf("Open: %v, want %v", err, c.want)
			}
			if after := fileState(t, dir); after != before {
				t.Fatalf("refused Open changed the directory")
			}
		})
	}
}

func writeFile(t *testing.T, dir string, data []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, sqlitestore.FileName), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestRefusesInvalidRecords: rows that break the store's own rules are
// ErrBadRecord, never a partly loaded mirror.
func TestRefusesInvalidRecords(t *testing.T) {
	cases := map[string]string{
		"body not JSON":     `UPDATE turns SET body = '{' WHERE id = 't-1'`,
		"body names other":  `UPDATE sessions SET body = json_set(body, '$.ID', 's-9')`,
		"event gap":         `DELETE FROM events WHERE seq = 1`,
		"input gap":         `DELETE FROM inputs WHERE idx = 1`,
		"unknown payload":   `UPDATE events SET kind = 'no_such_type' WHERE seq = 2`,
		"payload not JSON":  `UPDATE events SET payload = '[' WHERE seq = 2`,
		"negative counters": `UPDATE counters SET turns = -1`,
	}
	for _, name := range []string{"body not JSON", "body names other", "event gap", "input gap",
		"unknown payload", "payload not JSON", "negative counters"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			s := mustOpen(t, dir)
			s.SaveCounters(core.Counters{Sessions: 1, Turns: 1})
			s.PutSession(storetest.SampleSession("s-1", 1))
			s.PutTurn(storetest.SampleTurn("t-1", "s-1", 1))
			for i := 1; i <= 2; i++ {
				s.PutInput("t-1", storetest.SampleInput(i, core.InputQueued))
				s.AppendEvent("t-1", storetest.SampleEvent(uint64(i)))
			}
			if err := s.Commit(); err != nil {
				t.Fatal(err)
			}
			s.Close()
			rawExec(t, dir, cases[name])
			if s, err := sqlitestore.Open(dir); !errors.Is(err, sqlitestore.ErrBadRecord) {
				if s != nil {
					s.Close()
				}
				t.Fatalf("Open: %v, want ErrBadRecord", err)
			}
		})
	}
}

func TestRefusesUnusableDirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{file, filepath.Join(file, "below"), filepath.Join(t.TempDir(), "what?")} {
		if s, err := sqlitestore.Open(dir); err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded", dir)
		}
	}
}
