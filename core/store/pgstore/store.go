package pgstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/store"
)

// ErrClosed is returned by Commit and the operator methods after Close.
var ErrClosed = errors.New("pgstore: store is closed")

// ConnectTimeout bounds Open's first connection when the connection
// string sets no connect_timeout.
const ConnectTimeout = 15 * time.Second

// MaxConns is the size of the connection pool: Commit uses one
// connection at a time; the operator and resource methods (HTTP handlers)
// the others.
const MaxConns = 4

// Store is core.Store over a PostgreSQL schema, with group commit:
// core.Store writes and PutIdempotent land in an in-memory mirror at once
// (reads see them) and reach the server at the next Commit, all in one
// transaction. Every method is safe for concurrent use; the machine's
// writes and Commit normally come from one loop goroutine.
type Store struct {
	where   string // user@host/database, for messages (never the password)
	db      *pgxpool.Pool
	created bool // Open found no tables and created them

	commitMu sync.Mutex // serialises Commit

	mu      sync.Mutex // guards the fields below
	mem     *store.Memory
	idem    map[string][]byte
	pend    *pending
	closed  bool
	failure error // the first failed Commit; the store is unusable after it
	// epoch is the lease epoch every write transaction checks (fencing);
	// 0 for a store opened without a lease (Open).
	epoch int64
	// Seq and ID pairs of the suspension and preparation tables.
	suspensionKeys, preparationKeys seqKeys
}

var _ core.Store = (*Store)(nil)

// IsDSN reports whether s is a PostgreSQL connection URL
// (postgres://… or postgresql://…), as opposed to a data directory.
func IsDSN(s string) bool {
	for _, p := range []string{"postgres://", "postgresql://"} {
		if len(s) >= len(p) && s[:len(p)] == p {
			return true
		}
	}
	return false
}

// Open connects to the PostgreSQL database of dsn (a postgres:// URL or a
// key=value string, as libpq takes them; search_path=S in it puts the
// tables in schema S), applies the migrations this build knows and loads
// every record into the mirror. A connection string that does not parse
// is ErrDSN, a server that cannot be reached ErrUnreachable; a schema of a
// newer version is refused with ErrSchemaNewer and another program's
// tables with ErrForeign, and then nothing is changed.
func Open(dsn string) (*Store, error) {
	return openStore(dsn, 0, nil)
}

// openStore is Open with the fencing epoch of every write transaction (0:
// none) and extra session parameters of the pool's connections.
func openStore(dsn string, epoch int64, params map[string]string) (*Store, error) {
	db, where, err := connect(dsn, params)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*db.Config().ConnConfig.ConnectTimeout)
	defer cancel()
	s, err := open(ctx, db, where, migrations)
	if err != nil {
		db.Close()
		return nil, err
	}
	s.epoch = epoch
	return s, nil
}

// Exists reports whether the schema dsn names holds a store (of any
// version this build can open or not), without creating anything: false
// for a schema without tables; ErrForeign for another program's tables.
func Exists(dsn string) (bool, error) {
	db, where, err := connect(dsn, nil)
	if err != nil {
		return false, err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*db.Config().ConnConfig.ConnectTimeout)
	defer cancel()
	v, err := schemaVersion(ctx, db, where)
	return v > 0, err
}

// connect parses dsn and opens a pool whose first connection works;
// params are session parameters set on every connection.
func connect(dsn string, params map[string]string) (*pgxpool.Pool, string, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %v", ErrDSN, err)
	}
	cc := cfg.ConnConfig
	if cc.ConnectTimeout == 0 {
		cc.ConnectTimeout = ConnectTimeout
	}
	cfg.MaxConns = MaxConns
	cfg.MinConns = 0
	for k, v := range params {
		cc.RuntimeParams[k] = v
	}
	where := fmt.Sprintf("postgres %s@%s/%s", cc.User, hostPort(cc.Host, cc.Port), cc.Database)
	ctx, cancel := context.WithTimeout(context.Background(), 2*cc.ConnectTimeout)
	defer cancel()
	db, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %s: %v", ErrDSN, where, err)
	}
	if err := db.Ping(ctx); err != nil {
		db.Close()
		return nil, "", fmt.Errorf("%w: %s: %v", ErrUnreachable, where, unwrapConnect(err))
	}
	return db, where, nil
}

func hostPort(host string, port uint16) string {
	if len(host) > 0 && host[0] == '/' {
		return fmt.Sprintf("%s/.s.PGSQL.%d", host, port)
	}
	return net.JoinHostPort(host, fmt.Sprint(port))
}

// unwrapConnect keeps the server's own message of a failed connection.
func unwrapConnect(err error) error {
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) && ce.Unwrap() != nil {
		return ce.Unwrap()
	}
	return err
}

func open(ctx context.Context, db *pgxpool.Pool, where string, list []migration) (*Store, error) {
	created, err := prepare(ctx, db, where, list)
	if err != nil {
		return nil, err
	}
	s := &Store{where: where, db: db, pend: newPending(), created: created}
	if err := s.load(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// prepare refuses a schema of a newer version or another program's and
// applies the migrations of list it lacks; created reports that the
// schema held no tables.
func prepare(ctx context.Context, db *pgxpool.Pool, where string, list []migration) (created bool, err error) {
	v, err := schemaVersion(ctx, db, where)
	if err != nil {
		return false, err
	}
	latest := list[len(list)-1].version
	if v > latest {
		return false, fmt.Errorf("%w: %s was written by schema version %d; this build knows versions up to %d (run a newer turnstile)",
			ErrSchemaNewer, where, v, latest)
	}
	return migrate(ctx, db, where, list)
}

// Created reports whether Open found the schema empty and created the
// tables.
func (s *Store) Created() bool { return s.created }

// Where names the server and database (user@host/database).
func (s *Store) Where() string { return s.where }

// Close closes the connections. Writes not yet committed are discarded,
// as a crash would discard them. Close is idempotent.
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
	s.db.Close()
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
				panic(fmt.Sprintf("pgstore: %s refused: %v", what(), r))
			}
		}()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		panic("pgstore: write after Close")
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
	checkText("session ID", r.ID)
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
	checkText("turn ID", r.ID, r.Session)
	s.write(func(m *store.Memory, p *pending) { m.PutTurn(r); p.putTurn(r) })
}

func (s *Store) Turn(id string) (core.TurnRecord, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mem.Turn(id)
}

func (s *Store) Turns() []core.TurnRecord { return read(s, (*store.Memory).Turns) }

func (s *Store) PutInput(turn string, in core.InputRecord) {
	checkText("turn ID", turn)
	what := func() string { return fmt.Sprintf("PutInput(%q, index %d)", turn, in.Index) }
	s.writeNamed(what, func(m *store.Memory, p *pending) { m.PutInput(turn, in); p.putInput(turn, in) })
}

func (s *Store) Inputs(turn string) []core.InputRecord {
	return read(s, func(m *store.Memory) []core.InputRecord { return m.Inputs(turn) })
}

func (s *Store) AppendEvent(turn string, ev core.RunEvent) {
	checkPayload(ev.Payload)
	checkText("event", turn, ev.Type)
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
