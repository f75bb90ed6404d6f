package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Errors of the lease.
var (
	// ErrFenced: a newer Core holds the lease (its epoch is higher than
	// the one this store or lease carries). A write transaction that finds
	// it is rolled back; nothing of it is committed.
	ErrFenced = errors.New("pgstore: fenced: a newer Core holds the lease")
	// ErrLeaseTTL: a lease TTL below MinLeaseTTL.
	ErrLeaseTTL = errors.New("pgstore: the lease TTL must be at least 1s")
	// ErrHolder: an empty holder ID or one PostgreSQL text cannot hold.
	ErrHolder = errors.New("pgstore: the lease holder ID must be non-empty text")
	// ErrNotHeld: Store or Renew on a lease that was never acquired.
	ErrNotHeld = errors.New("pgstore: the lease is not held")
)

// MinLeaseTTL is the shortest lease TTL OpenLease accepts.
const MinLeaseTTL = time.Second

// fenceQuery reads the lease's epoch and holds a share lock on its row
// until the transaction ends, so a takeover (an update of the row) waits
// for the transaction and cannot slip between the check and the commit.
const fenceQuery = `SELECT epoch FROM lease WHERE id = 1 FOR SHARE`

// checkFence compares the epoch row of fenceQuery with the store's.
func (s *Store) checkFence(row pgx.Row) error {
	var epoch int64
	err := row.Scan(&epoch)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return fmt.Errorf("%w: the lease row is gone; this Core holds epoch %d", ErrFenced, s.epoch)
	case err != nil:
		return fmt.Errorf("lease: %w", err)
	case epoch != s.epoch:
		return fmt.Errorf("%w: the lease is at epoch %d; this Core holds epoch %d", ErrFenced, epoch, s.epoch)
	}
	return nil
}

// Epoch is the lease epoch the store's write transactions carry; 0 when
// it was opened without a lease.
func (s *Store) Epoch() int64 { return s.epoch }

// Lease elects the active Core of one schema through the lease row
// (holder, epoch, expires_at) of its lease table. Expiry is judged by the
// database's clock (now()), never the Cores'. A Core acquires the lease
// when the row is absent or expired, which increments the epoch; it
// renews it well before expires_at; the store it opens afterwards
// (Lease.Store) checks the epoch in every write transaction, so once
// another Core has taken the lease nothing of this one commits.
type Lease struct {
	db      *pgxpool.Pool
	where   string
	holder  string
	ttl     time.Duration
	dsn     string
	created bool

	mu    sync.Mutex
	epoch int64 // held epoch; 0 before Acquire succeeds
}

// Holder is the lease row as read by Acquire when another Core holds it.
type Holder struct {
	ID    string
	Epoch int64
	// Left is the time until the row expires, by the database's clock
	// (negative: expired).
	Left time.Duration
}

// OpenLease connects to dsn (as Open takes it), applies the migrations
// this build knows (so the lease table exists; ErrSchemaNewer and
// ErrForeign as for Open) and returns the schema's lease for holder (a
// name unique to this process) with time to live ttl. It loads no records.
func OpenLease(dsn, holder string, ttl time.Duration) (*Lease, error) {
	if ttl < MinLeaseTTL {
		return nil, fmt.Errorf("%w, got %v", ErrLeaseTTL, ttl)
	}
	if holder == "" || !validText(holder) {
		return nil, ErrHolder
	}
	// A takeover waiting on a row lock gives up after a bounded wait and
	// tries again at the next poll.
	db, where, err := connect(dsn, map[string]string{"lock_timeout": strconv.FormatInt(ttl.Milliseconds(), 10)})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*db.Config().ConnConfig.ConnectTimeout)
	defer cancel()
	created, err := prepare(ctx, db, where, migrations)
	if err != nil {
		db.Close()
		return nil, err
	}
	return &Lease{db: db, where: where, holder: holder, ttl: ttl, dsn: dsn, created: created}, nil
}

// Created reports whether OpenLease found the schema empty and created
// the tables.
func (l *Lease) Created() bool { return l.created }

// Where names the server and database (user@host/database).
func (l *Lease) Where() string { return l.where }

// TTL is the lease's time to live.
func (l *Lease) TTL() time.Duration { return l.ttl }

// Epoch is the epoch held, 0 before Acquire succeeded.
func (l *Lease) Epoch() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.epoch
}

// secs renders the TTL for make_interval.
func (l *Lease) secs() float64 { return l.ttl.Seconds() }

// Acquire takes the lease when no Core holds it or its holder's row has
// expired, incrementing the epoch (the first holder gets epoch 1), and
// reports whether it did. When another Core holds it, held is false and
// other describes the row.
func (l *Lease) Acquire(ctx context.Context) (held bool, other Holder, err error) {
	var epoch int64
	err = l.db.QueryRow(ctx, `INSERT INTO lease AS l (id, holder, epoch, expires_at)
		VALUES (1, $1, 1, now() + make_interval(secs => $2))
		ON CONFLICT (id) DO UPDATE SET holder = excluded.holder, epoch = l.epoch + 1, expires_at = excluded.expires_at
		WHERE l.expires_at <= now()
		RETURNING epoch`, l.holder, l.secs()).Scan(&epoch)
	if err == nil {
		l.mu.Lock()
		l.epoch = epoch
		l.mu.Unlock()
		return true, Holder{}, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return false, Holder{}, classify(l.where, err)
	}
	var left float64
	err = l.db.QueryRow(ctx, `SELECT holder, epoch, extract(epoch FROM expires_at - now())::float8 FROM lease WHERE id = 1`).
		Scan(&other.ID, &other.Epoch, &left)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, Holder{}, nil // released between the two statements: the next poll takes it
	}
	if err != nil {
		return false, Holder{}, classify(l.where, err)
	}
	other.Left = time.Duration(left * float64(time.Second))
	return false, other, nil
}

// Renew extends the held lease by its TTL from now (the database's
// clock). ErrFenced when another Core has taken it since; ErrNotHeld
// before Acquire.
func (l *Lease) Renew(ctx context.Context) error {
	epoch := l.Epoch()
	if epoch == 0 {
		return ErrNotHeld
	}
	tag, err := l.db.Exec(ctx, `UPDATE lease SET expires_at = now() + make_interval(secs => $3)
		WHERE id = 1 AND holder = $1 AND epoch = $2`, l.holder, epoch, l.secs())
	if err != nil {
		return classify(l.where, err)
	}
	if tag.RowsAffected() == 0 {
		var now int64
		if err := l.db.QueryRow(ctx, `SELECT epoch FROM lease WHERE id = 1`).Scan(&now); err != nil {
			return fmt.Errorf("%w: this Core holds epoch %d; the lease row: %v", ErrFenced, epoch, err)
		}
		return fmt.Errorf("%w: the lease is at epoch %d; this Core holds epoch %d", ErrFenced, now, epoch)
	}
	return nil
}

// Release lets the lease expire now, if this Core still holds it, so a
// standby takes over at its next poll (a graceful stop).
func (l *Lease) Release(ctx context.Context) error {
	epoch := l.Epoch()
	if epoch == 0 {
		return nil
	}
	_, err := l.db.Exec(ctx, `UPDATE lease SET expires_at = now() WHERE id = 1 AND holder = $1 AND epoch = $2`, l.holder, epoch)
	if err != nil {
		return classify(l.where, err)
	}
	return nil
}

// Store opens the store (as Open does: every record is loaded then, so
// the active Core starts from the last commit of its predecessor) with
// the held epoch as the fencing token of every write transaction. The
// server ends a connection of it that stays idle inside a transaction for
// longer than the TTL (a paused Core), so its row lock cannot hold a
// takeover back.
func (l *Lease) Store() (*Store, error) {
	epoch := l.Epoch()
	if epoch == 0 {
		return nil, ErrNotHeld
	}
	return openStore(l.dsn, epoch, map[string]string{
		"idle_in_transaction_session_timeout": strconv.FormatInt(l.ttl.Milliseconds(), 10)})
}

// Close closes the lease's connections; it does not release the lease.
func (l *Lease) Close() { l.db.Close() }
