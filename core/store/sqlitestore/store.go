package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/store"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// FileName is the database file inside the data directory.
const FileName = "core.db"

// BusyTimeoutMS is how long a statement waits for another process's lock
// (an operator command on the same data directory) before failing.
const BusyTimeoutMS = 5000

// ErrClosed is returned by Commit and the operator methods after Close.
var ErrClosed = errors.New("sqlitestore: store is closed")

// Store is core.Store over an SQLite file, with group commit: core.Store
// writes and PutIdempotent land in an in-memory mirror at once (reads see
// them) and reach the disk at the next Commit, all in one transaction.
// Every method is safe for concurrent use; the machine's writes and
// Commit normally come from one loop goroutine.
type Store struct {
	path string
	db   *sql.DB
	stmt statements

	commitMu sync.Mutex // serialises Commit

	mu      sync.Mutex // guards the fields below
	mem     *store.Memory
	idem    map[string][]byte
	pend    *pending
	closed  bool
	failure error // the first failed Commit; the store is unusable after it
	// Seq and ID pairs of the suspension and preparation tables.
	suspensionKeys, preparationKeys seqKeys
}

var _ core.Store = (*Store)(nil)

// Open opens (creating if needed) the store in dir: the file dir/core.db
// in WAL mode with synchronous=FULL, foreign keys on and a busy timeout.
// It applies the migrations this build knows and loads every record into
// the mirror. A database of a newer schema is refused with ErrSchemaNewer,
// a file that is no SQLite database with ErrCorrupt, another program's
// database with ErrForeign; in those cases the file is left as it was.
func Open(dir string) (*Store, error) {
	if strings.Contains(dir, "?") {
		return nil, fmt.Errorf("sqlitestore: data directory %q: a '?' in the path is not supported", dir)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("sqlitestore: data directory: %w", err)
	}
	path := filepath.Join(dir, FileName)
	// Only per-connection settings here: the file itself must not change
	// before its schema version has been read.
	dsn := fmt.Sprintf("%s?_pragma=busy_timeout(%d)&_pragma=synchronous(FULL)&_pragma=foreign_keys(1)&_txlock=immediate",
		path, BusyTimeoutMS)
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: %s: %w", path, err)
	}
	// One connection: a single writer, and its pragmas stay in force.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	s, err := open(db, path, migrations)
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	return s, nil
}

func open(db *sql.DB, path string, list []migration) (*Store, error) {
	ctx := context.Background()
	v, err := schemaVersion(ctx, db, path)
	if err != nil {
		return nil, err
	}
	latest := list[len(list)-1].version
	if v > latest {
		return nil, fmt.Errorf("%w: %s was written by schema version %d; this build knows versions up to %d (run a newer turnstile)",
			ErrSchemaNewer, path, v, latest)
	}
	var mode string
	if err := db.QueryRowContext(ctx, `PRAGMA journal_mode = WAL`).Scan(&mode); err != nil {
		return nil, classify(path, err)
	}
	if !strings.EqualFold(mode, "wal") {
		return nil, fmt.Errorf("sqlitestore: %s: journal mode is %q, WAL refused", path, mode)
	}
	if err := migrate(ctx, db, path, list); err != nil {
		return nil, err
	}
	s := &Store{path: path, db: db, pend: newPending()}
	if err := s.load(ctx); err != nil {
		return nil, err
	}
	if err := s.stmt.prepare(ctx, db); err != nil {
		return nil, classify(path, err)
	}
	return s, nil
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// Close closes the database. Writes not yet committed are discarded, as a
// crash would discard them. Close is idempotent.
func (s *Store) Close() error {
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.pend = newPending()
	s.mu.Unlock()
	s.stmt.close()
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("sqlitestore: %s: close: %w", s.path, err)
	}
	return nil
}

// write runs f over the mirror and the pending batch under the lock. A
// write after Close is a programming error: the store panics.
func (s *Store) write(f func(m *store.Memory, p *pending)) {
	s.writeNamed(nil, f)
}

// writeNamed is write, naming the call in the message of a refused one.
func (s *Store) writeNamed(what func() string, f func(m *store.Memory, p *pending)) {
	if what != nil {
		defer func() {
			if r := recover(); r != nil {
				panic(fmt.Sprintf("sqlitestore: %s refused: %v", what(), r))
			}
		}()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		panic("sqlitestore: write after Close")
	}
	f(s.mem, s.pend)
}

// read runs f over the mirror under the lock.
func read[T any](s *Store, f func(m *store.Memory) T) T {
	s.mu.Lock()
	defer s.mu.Unlock()
	return f(s.mem)
}

// The core.Store methods. The mirror (a store.Memory) enforces the input
// and event sequence rules: an out-of-sequence write panics before it is
// recorded anywhere.

func (s *Store) Counters() core.Counters { return read(s, (*store.Memory).Counters) }

func (s *Store) SaveCounters(c core.Counters) {
	checkRange("counter", c.Sessions, c.Turns, c.Preparations)
	s.write(func(m *store.Memory, p *pending) { m.SaveCounters(c); p.writes++; p.counters = &c })
}

func (s *Store) PutSession(r core.SessionRecord) {
	checkRange("session seq", r.Seq)
	s.write(func(m *store.Memory, p *pending) { m.PutSession(r); p.putSession(r) })
}

func (s *Store) Session(id string) (core.SessionRecord, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mem.Session(id)
}

func (s *Store) Sessions() []core.SessionRecord { return read(s, (*store.Memory).Sessions) }

func (s *Store) PutTurn(r core.TurnRecord) {
	checkRange("turn seq", r.Seq)
	s.write(func(m *store.Memory, p *pending) { m.PutTurn(r); p.putTurn(r) })
}

func (s *Store) Turn(id string) (core.TurnRecord, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mem.Turn(id)
}

func (s *Store) Turns() []core.TurnRecord { return read(s, (*store.Memory).Turns) }

func (s *Store) PutInput(turn string, in core.InputRecord) {
	what := func() string { return fmt.Sprintf("PutInput(%q, index %d)", turn, in.Index) }
	s.writeNamed(what, func(m *store.Memory, p *pending) { m.PutInput(turn, in); p.putInput(turn, in) })
}

func (s *Store) Inputs(turn string) []core.InputRecord {
	return read(s, func(m *store.Memory) []core.InputRecord { return m.Inputs(turn) })
}

func (s *Store) AppendEvent(turn string, ev core.RunEvent) {
	checkPayload(ev.Payload)
	what := func() string { return fmt.Sprintf("AppendEvent(%q, seq %d)", turn, ev.Seq) }
	s.writeNamed(what, func(m *store.Memory, p *pending) { m.AppendEvent(turn, ev); p.appendEvent(turn, ev) })
}

func (s *Store) Events(turn string) []core.RunEvent {
	return read(s, func(m *store.Memory) []core.RunEvent { return m.Events(turn) })
}

// EventsAfter returns turn's events with a sequence above seq.
func (s *Store) EventsAfter(turn string, seq uint64) []core.RunEvent {
	return read(s, func(m *store.Memory) []core.RunEvent { return m.EventsAfter(turn, seq) })
}
