package pgstore_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/store/pgstore"
	"github.com/turnstile-sim/turnstile/core/store/pgstore/pgtest"
	"github.com/turnstile-sim/turnstile/core/store/storetest"
)

func openLease(t *testing.T, dsn, holder string) *pgstore.Lease {
	t.Helper()
	l, err := pgstore.OpenLease(dsn, holder, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	return l
}

func acquire(t *testing.T, l *pgstore.Lease) (bool, pgstore.Holder) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	held, other, err := l.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return held, other
}

// expire moves the lease row's expiry into the past, as the passing of
// its TTL without a renewal would.
func expire(t *testing.T, dsn string) {
	t.Helper()
	pgtest.Exec(t, dsn, `UPDATE lease SET expires_at = now() - interval '1 second'`)
}

// TestLeaseElectsOneCore: of two Cores on one schema the first to ask
// holds the lease at epoch 1 and the other is told who holds it and for
// how long; when the row expires the other takes it at epoch 2, and the
// first one's renewal is then ErrFenced. A release hands it on at once.
func TestLeaseElectsOneCore(t *testing.T) {
	dsn := pgtest.Schema(t)
	a, b := openLease(t, dsn, "core-a"), openLease(t, dsn, "core-b")
	if !a.Created() || b.Created() {
		t.Fatalf("created: a %v b %v", a.Created(), b.Created())
	}
	if held, _ := acquire(t, a); !held || a.Epoch() != 1 {
		t.Fatalf("first acquire: held %v epoch %d", held, a.Epoch())
	}
	held, other := acquire(t, b)
	if held || b.Epoch() != 0 || other.ID != "core-a" || other.Epoch != 1 || other.Left <= 0 || other.Left > 5*time.Second {
		t.Fatalf("second acquire: held %v epoch %d, holder %+v", held, b.Epoch(), other)
	}
	ctx := context.Background()
	if err := a.Renew(ctx); err != nil {
		t.Fatal(err)
	}
	expire(t, dsn)
	if held, _ := acquire(t, b); !held || b.Epoch() != 2 {
		t.Fatalf("takeover: held %v epoch %d", held, b.Epoch())
	}
	if err := a.Renew(ctx); !errors.Is(err, pgstore.ErrFenced) {
		t.Fatalf("renewal of the superseded lease: %v", err)
	}
	// The stale holder's release changes nothing.
	if err := a.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if held, _ := acquire(t, openLease(t, dsn, "core-c")); held {
		t.Fatal("a stale release freed the lease")
	}
	if err := b.Release(ctx); err != nil {
		t.Fatal(err)
	}
	c := openLease(t, dsn, "core-c")
	if held, _ := acquire(t, c); !held || c.Epoch() != 3 {
		t.Fatalf("after release: held %v epoch %d", held, c.Epoch())
	}
}

// TestFencedStoreCommitsNothing: a store opened under epoch 1 keeps
// committing while it holds the lease; once another Core has taken the
// lease (epoch 2), its Commit and its immediate writes (a device, a
// resource) fail with ErrFenced and leave no row, while the new holder's
// store commits.
func TestFencedStoreCommitsNothing(t *testing.T) {
	dsn := pgtest.Schema(t)
	a := openLease(t, dsn, "core-a")
	acquire(t, a)
	old, err := a.Store()
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if old.Epoch() != 1 {
		t.Fatalf("store epoch %d", old.Epoch())
	}
	old.PutSession(storetest.SampleSession("s-1", 1))
	if err := old.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := old.PutResource(context.Background(), "agent", "a-1", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	expire(t, dsn)
	b := openLease(t, dsn, "core-b")
	if held, _ := acquire(t, b); !held {
		t.Fatal("no takeover")
	}
	fresh, err := b.Store()
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	if len(fresh.Sessions()) != 1 {
		t.Fatalf("the new holder loaded %d sessions", len(fresh.Sessions()))
	}

	old.PutSession(storetest.SampleSession("s-2", 2))
	old.PutTurn(core.TurnRecord{ID: "t-1", Seq: 1, Session: "s-2"})
	old.PutIdempotent("k-1", []byte("answer"))
	if err := old.Commit(); !errors.Is(err, pgstore.ErrFenced) {
		t.Fatalf("stale Commit: %v", err)
	}
	if err := old.AddDevice("d-2", sha256.Sum256([]byte("cred")), time.Now()); !errors.Is(err, pgstore.ErrFenced) {
		t.Fatalf("stale AddDevice: %v", err)
	}
	if err := old.PutResource(context.Background(), "agent", "a-2", []byte(`{}`)); !errors.Is(err, pgstore.ErrFenced) {
		t.Fatalf("stale PutResource: %v", err)
	}
	if _, err := old.DeleteResource(context.Background(), "agent", "a-1"); !errors.Is(err, pgstore.ErrFenced) {
		t.Fatalf("stale DeleteResource: %v", err)
	}
	if n := pgtest.QueryInt(t, dsn, `SELECT (SELECT count(*) FROM sessions) * 1000 + (SELECT count(*) FROM turns) * 100
		+ (SELECT count(*) FROM idempotency) * 10 + (SELECT count(*) FROM devices) + (SELECT count(*) FROM resources) * 10000`); n != 11000 {
		t.Fatalf("rows after the stale writes: %d, want 1 session and 1 resource (11000)", n)
	}
	fresh.PutSession(storetest.SampleSession("s-2", 2))
	if err := fresh.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := pgtest.QueryInt(t, dsn, `SELECT count(*) FROM sessions`); n != 2 {
		t.Fatalf("sessions after the new holder's commit: %d", n)
	}
}

// TestLeaseRefusals: a TTL below one second, an empty holder, and a
// renewal or a store before the lease was acquired are refused by name.
func TestLeaseRefusals(t *testing.T) {
	dsn := pgtest.Schema(t)
	if _, err := pgstore.OpenLease(dsn, "core-a", 999*time.Millisecond); !errors.Is(err, pgstore.ErrLeaseTTL) {
		t.Fatalf("short TTL: %v", err)
	}
	if _, err := pgstore.OpenLease(dsn, "", 5*time.Second); !errors.Is(err, pgstore.ErrHolder) {
		t.Fatalf("empty holder: %v", err)
	}
	if _, err := pgstore.OpenLease(dsn, "a\x00b", 5*time.Second); !errors.Is(err, pgstore.ErrHolder) {
		t.Fatalf("NUL holder: %v", err)
	}
	l := openLease(t, dsn, "core-a")
	if err := l.Renew(context.Background()); !errors.Is(err, pgstore.ErrNotHeld) {
		t.Fatalf("renew before acquire: %v", err)
	}
	if _, err := l.Store(); !errors.Is(err, pgstore.ErrNotHeld) {
		t.Fatalf("store before acquire: %v", err)
	}
}

// TestConcurrentFirstStartsCreateOnce: two Cores starting at once on an
// empty schema both find it empty before migrating, but only the one
// that applies the first migration under the migration lock created the
// store; the other must not report (and Core must not log) "store
// created".
func TestConcurrentFirstStartsCreateOnce(t *testing.T) {
	dsn := pgtest.Schema(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Hold the migration lock so that both Cores read the empty schema
	// and then wait for it.
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext(current_schema()))`, 0x7475726e); err != nil {
		t.Fatal(err)
	}
	type opened struct {
		l   *pgstore.Lease
		err error
	}
	res := make(chan opened, 2)
	for _, holder := range []string{"core-a", "core-b"} {
		go func() {
			l, err := pgstore.OpenLease(dsn, holder, 5*time.Second)
			res <- opened{l, err}
		}()
	}
	for waiting := 0; waiting < 2; {
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
			AND classid::bigint = $1 AND objid::bigint = hashtext(current_schema())::bigint & 4294967295`, 0x7475726e).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	created := 0
	for range 2 {
		o := <-res
		if o.err != nil {
			t.Fatal(o.err)
		}
		t.Cleanup(o.l.Close)
		if o.l.Created() {
			created++
		}
	}
	if created != 1 {
		t.Fatalf("%d of two concurrent first starts report the store created", created)
	}
}
