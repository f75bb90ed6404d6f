package pgstore_test

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/store/pgstore"
	"github.com/turnstile-sim/turnstile/core/store/pgstore/pgtest"
	"github.com/turnstile-sim/turnstile/core/store/storetest"
)

// TestOpenCreatesSchema: an empty schema gets every table and the
// current version, marked as a Turnstile store.
func TestOpenCreatesSchema(t *testing.T) {
	dsn := pgtest.Schema(t)
	s := mustOpen(t, dsn)
	defer s.Close()
	if v := pgtest.QueryInt(t, dsn, `SELECT version FROM schema_version WHERE id = 1 AND store = 'turnstile core'`); v != pgstore.SchemaVersion {
		t.Fatalf("schema version %d, want %d", v, pgstore.SchemaVersion)
	}
	n := pgtest.QueryInt(t, dsn, `SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()`)
	if n != 12 {
		t.Fatalf("%d tables, want 12", n)
	}
	if !strings.Contains(s.Where(), "postgres") {
		t.Fatalf("Where: %q", s.Where())
	}
}

// TestConcurrentOpenersMigrateOnce: two Cores opening one empty schema at
// once both succeed; the migrations ran once.
func TestConcurrentOpenersMigrateOnce(t *testing.T) {
	dsn := pgtest.Schema(t)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Go(func() {
			s, err := pgstore.Open(dsn)
			if err == nil {
				s.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if v := pgtest.QueryInt(t, dsn, `SELECT version FROM schema_version`); v != pgstore.SchemaVersion {
		t.Fatalf("version %d", v)
	}
}

// TestReopenKeepsRecordsAndVersion: a second Open migrates nothing and
// sees the committed records.
func TestReopenKeepsRecordsAndVersion(t *testing.T) {
	dsn := pgtest.Schema(t)
	s := mustOpen(t, dsn)
	s.PutSession(storetest.SampleSession("s-1", 1))
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = mustOpen(t, dsn)
	defer s.Close()
	if _, ok := s.Session("s-1"); !ok {
		t.Fatal("session lost")
	}
}

// TestRefusesNewerSchema: a schema written by a later build is refused
// and left as it was.
func TestRefusesNewerSchema(t *testing.T) {
	dsn := pgtest.Schema(t)
	mustOpen(t, dsn).Close()
	pgtest.Exec(t, dsn, `UPDATE schema_version SET version = 99`)
	_, err := pgstore.Open(dsn)
	if !errors.Is(err, pgstore.ErrSchemaNewer) || !strings.Contains(err.Error(), "99") {
		t.Fatalf("Open: %v", err)
	}
	if v := pgtest.QueryInt(t, dsn, `SELECT version FROM schema_version`); v != 99 {
		t.Fatalf("version changed to %d", v)
	}
}

// TestRefusesForeignSchema: tables of another program, with no
// schema_version or with one that is not ours, are refused and left
// alone.
func TestRefusesForeignSchema(t *testing.T) {
	t.Run("no schema_version", func(t *testing.T) {
		dsn := pgtest.Schema(t)
		pgtest.Exec(t, dsn, `CREATE TABLE orders (id int)`)
		_, err := pgstore.Open(dsn)
		if !errors.Is(err, pgstore.ErrForeign) {
			t.Fatalf("Open: %v", err)
		}
		if n := pgtest.QueryInt(t, dsn, `SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()`); n != 1 {
			t.Fatalf("%d tables after a refused Open", n)
		}
	})
	t.Run("another schema_version", func(t *testing.T) {
		dsn := pgtest.Schema(t)
		pgtest.Exec(t, dsn, `CREATE TABLE schema_version (id int, version int)`)
		pgtest.Exec(t, dsn, `INSERT INTO schema_version VALUES (1, 1)`)
		if _, err := pgstore.Open(dsn); !errors.Is(err, pgstore.ErrForeign) {
			t.Fatalf("Open: %v", err)
		}
	})
	t.Run("another store's name", func(t *testing.T) {
		dsn := pgtest.Schema(t)
		pgtest.Exec(t, dsn, `CREATE TABLE schema_version (id int, store text, version int)`)
		pgtest.Exec(t, dsn, `INSERT INTO schema_version VALUES (1, 'billing', 1)`)
		if _, err := pgstore.Open(dsn); !errors.Is(err, pgstore.ErrForeign) || !strings.Contains(err.Error(), "billing") {
			t.Fatalf("Open: %v", err)
		}
	})
}

// TestRefusesUnusableConnections: a connection string that does not
// parse, a server that is not there and a search_path naming no schema
// are each refused with their own error, and no password is repeated.
func TestRefusesUnusableConnections(t *testing.T) {
	base := pgtest.DSN(t)
	for _, c := range []struct {
		name, dsn string
		want      error
	}{
		{"bad URL", "postgres://user:sekret@host:notaport/db", pgstore.ErrDSN},
		{"bad key", "host=/tmp port=notaport password=sekret", pgstore.ErrDSN},
		{"no socket", "postgres://user:sekret@/db?host=" + t.TempDir() + "&connect_timeout=5", pgstore.ErrUnreachable},
		{"no database", pgtest.WithDatabase(t, base, "no_such_database"), pgstore.ErrUnreachable},
		{"no schema", pgtest.WithSearchPath(t, base, "no_such_schema"), pgstore.ErrNoSchema},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := pgstore.Open(c.dsn)
			if err == nil {
				s.Close()
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("Open(%q): %v, want %v", c.dsn, err, c.want)
			}
			if strings.Contains(err.Error(), "sekret") {
				t.Fatalf("error repeats the password: %v", err)
			}
		})
	}
}

// TestRefusesInvalidRecords: rows that break the store's own rules are
// refused at Open with ErrBadRecord.
func TestRefusesInvalidRecords(t *testing.T) {
	for name, stmt := range map[string]string{
		"body names another session": `INSERT INTO sessions (id, seq, body) VALUES ('s-1', 1, '{"ID":"s-2"}')`,
		"body is no JSON":            `INSERT INTO turns (id, seq, session, body) VALUES ('t-1', 1, 's', 'nope')`,
		"event sequence gap":         `INSERT INTO events (turn, seq, type, kind, payload) VALUES ('t-1', 2, 'delta', '', 'null')`,
		"unknown payload kind":       `INSERT INTO events (turn, seq, type, kind, payload) VALUES ('t-1', 1, 'x', 'no.such', '{}')`,
		"input index gap":            `INSERT INTO inputs (turn, idx, body) VALUES ('t-1', 2, '{"Index":2}')`,
		"negative counter":           `INSERT INTO counters VALUES (1, -1, 0, 0)`,
	} {
		t.Run(name, func(t *testing.T) {
			dsn := pgtest.Schema(t)
			mustOpen(t, dsn).Close()
			pgtest.Exec(t, dsn, stmt)
			if _, err := pgstore.Open(dsn); !errors.Is(err, pgstore.ErrBadRecord) {
				t.Fatalf("Open: %v", err)
			}
		})
	}
}

// TestUnstorableWritesPanic: keys PostgreSQL text cannot hold are refused
// before anything is recorded; the store stays usable.
func TestUnstorableWritesPanic(t *testing.T) {
	dsn := pgtest.Schema(t)
	s := mustOpen(t, dsn)
	defer s.Close()
	for name, f := range map[string]func(){
		"NUL in a session ID":  func() { s.PutSession(core.SessionRecord{ID: "s\x00"}) },
		"invalid UTF-8 turn":   func() { s.PutTurn(core.TurnRecord{ID: "t\xff"}) },
		"NUL in an input turn": func() { s.PutInput("t\x00", core.InputRecord{Index: 1}) },
		"foreign payload":      func() { s.AppendEvent("t-1", core.RunEvent{Seq: 1, Type: "x", Payload: foreignPayload{}}) },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := pgtest.QueryInt(t, dsn, `SELECT (SELECT count(*) FROM sessions) + (SELECT count(*) FROM turns) + (SELECT count(*) FROM inputs) + (SELECT count(*) FROM events)`); n != 0 {
		t.Fatalf("%d rows written by refused writes", n)
	}
}

type foreignPayload struct{}

func (foreignPayload) MessageType() string { return "foreign" }

// TestExistsCreatesNothing: Exists tells an empty schema from a store
// without creating tables; Created tells the first Open.
func TestExistsCreatesNothing(t *testing.T) {
	dsn := pgtest.Schema(t)
	if ok, err := pgstore.Exists(dsn); ok || err != nil {
		t.Fatalf("Exists on an empty schema: %v %v", ok, err)
	}
	if n := pgtest.QueryInt(t, dsn, `SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()`); n != 0 {
		t.Fatalf("Exists created %d tables", n)
	}
	s := mustOpen(t, dsn)
	if !s.Created() {
		t.Fatal("first Open: Created false")
	}
	s.Close()
	s = mustOpen(t, dsn)
	defer s.Close()
	if s.Created() {
		t.Fatal("second Open: Created true")
	}
	if ok, err := pgstore.Exists(dsn); !ok || err != nil {
		t.Fatalf("Exists on a store: %v %v", ok, err)
	}
	if _, err := pgstore.Exists("postgres://x:notaport/"); !errors.Is(err, pgstore.ErrDSN) {
		t.Fatalf("Exists on a bad DSN: %v", err)
	}
}
