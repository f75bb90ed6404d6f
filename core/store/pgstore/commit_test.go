package pgstore_test

import (
	"crypto/sha256"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/store/pgstore"
	"github.com/turnstile-sim/turnstile/core/store/pgstore/pgtest"
	"github.com/turnstile-sim/turnstile/core/store/storetest"
)

// TestFailedCommitIsFinal: a Commit the server refuses part-way (its
// batch's events are refused after its session row was written) leaves
// nothing of the batch, and every later Commit reports the failure (the
// caller stops the process).
func TestFailedCommitIsFinal(t *testing.T) {
	dsn := pgtest.Schema(t)
	s := mustOpen(t, dsn)
	defer s.Close()
	s.PutTurn(core.TurnRecord{ID: "t-0", Seq: 1})
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	pgtest.Exec(t, dsn, `CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'disk says no'; END $$`)
	pgtest.Exec(t, dsn, `CREATE TRIGGER refuse BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION refuse()`)
	s.PutSession(storetest.SampleSession("s-1", 1))
	s.PutTurn(core.TurnRecord{ID: "t-0", Seq: 1, State: core.TurnCompleted})
	s.AppendEvent("t-1", storetest.SampleEvent(1))
	s.PutIdempotent("k-1", []byte("answer"))
	err := s.Commit()
	if err == nil || !strings.Contains(err.Error(), "disk says no") || !strings.Contains(err.Error(), "event t-1/1") {
		t.Fatalf("Commit: %v", err)
	}
	s.PutTurn(core.TurnRecord{ID: "t-2", Seq: 2})
	if again := s.Commit(); again == nil || again.Error() != err.Error() {
		t.Fatalf("Commit after a failure: %v", again)
	}
	if n := pgtest.QueryInt(t, dsn, `SELECT (SELECT count(*) FROM sessions) + (SELECT count(*) FROM idempotency) + (SELECT count(*) FROM turns WHERE body LIKE '%completed%')`); n != 0 {
		t.Fatalf("failed batch left %d rows", n)
	}
	// A restart finds the state of the last good Commit.
	pgtest.Exec(t, dsn, `DROP TRIGGER refuse ON events`)
	r := mustOpen(t, dsn)
	defer r.Close()
	if got, _ := r.Turn("t-0"); got.State == core.TurnCompleted || len(r.Sessions()) != 0 {
		t.Fatalf("restart sees the failed batch: %+v %+v", got, r.Sessions())
	}
}

// TestCommitWithNothingPendingWritesNothing: an empty Commit sends no
// transaction (the server's commit counter does not move).
func TestCommitWithNothingPendingWritesNothing(t *testing.T) {
	dsn := pgtest.Schema(t)
	s := mustOpen(t, dsn)
	defer s.Close()
	s.PutTurn(core.TurnRecord{ID: "t-1", Seq: 1})
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	rows := func() int64 { return pgtest.QueryInt(t, dsn, `SELECT count(*) FROM turns`) }
	for range 3 {
		if err := s.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	if rows() != 1 {
		t.Fatal("turn not committed once")
	}
	s.PutTurn(core.TurnRecord{ID: "t-2", Seq: 2})
	if err := s.Commit(); err != nil || rows() != 2 {
		t.Fatalf("Commit wrote nothing: %v", err)
	}
}

func TestClosedStore(t *testing.T) {
	s := mustOpen(t, pgtest.Schema(t))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := s.Commit(); !errors.Is(err, pgstore.ErrClosed) {
		t.Fatalf("Commit after Close: %v", err)
	}
	if _, _, err := s.Device("d"); !errors.Is(err, pgstore.ErrClosed) {
		t.Fatalf("Device after Close: %v", err)
	}
	if err := s.AddDevice("d", sha256.Sum256(nil), time.Now()); !errors.Is(err, pgstore.ErrClosed) {
		t.Fatalf("AddDevice after Close: %v", err)
	}
	if !panics(func() { s.PutTurn(core.TurnRecord{ID: "t"}) }) {
		t.Fatal("write after Close: no panic")
	}
}

// panics reports whether f panics.
func panics(f func()) (panicked bool) {
	defer func() { panicked = recover() != nil }()
	f()
	return false
}

var enrolled = time.Date(2026, 2, 3, 4, 5, 6, 789, time.FixedZone("", -5*60*60))

func hashOf(s string) [32]byte { return sha256.Sum256([]byte(s)) }

// TestDevices: devices are written at once (a Close without Commit keeps
// them), listed bytewise by ID, seen by another opener at once, and every
// refusal is named and writes nothing.
func TestDevices(t *testing.T) {
	dsn := pgtest.Schema(t)
	s := mustOpen(t, dsn)
	defer s.Close()
	other := mustOpen(t, dsn)
	defer other.Close()
	for _, id := range []string{"dev-c", "Dev-z", "dev-a", "dev-b"} {
		if err := s.AddDevice(id, hashOf(id), enrolled); err != nil {
			t.Fatal(err)
		}
	}
	revokedAt := enrolled.Add(time.Hour).UTC()
	if err := other.RevokeDevice("dev-b", revokedAt); err != nil {
		t.Fatal(err)
	}
	got, err := s.Devices()
	if err != nil {
		t.Fatal(err)
	}
	want := []pgstore.Device{
		{ID: "Dev-z", CredentialHash: hashOf("Dev-z"), CreatedAt: enrolled},
		{ID: "dev-a", CredentialHash: hashOf("dev-a"), CreatedAt: enrolled},
		{ID: "dev-b", CredentialHash: hashOf("dev-b"), Revoked: true, CreatedAt: enrolled, RevokedAt: revokedAt},
		{ID: "dev-c", CredentialHash: hashOf("dev-c"), CreatedAt: enrolled},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("devices:\n got  %+v\n want %+v", got, want)
	}
	if d, ok, err := other.Device("dev-a"); !ok || err != nil || !reflect.DeepEqual(d, want[1]) {
		t.Fatalf("Device: %+v %v %v", d, ok, err)
	}
	if _, ok, err := s.Device("dev-none"); ok || err != nil {
		t.Fatalf("unknown device: %v %v", ok, err)
	}
	for _, c := range []struct {
		err  error
		want error
	}{
		{s.AddDevice("dev-a", hashOf("x"), enrolled), pgstore.ErrDeviceExists},
		{s.AddDevice("", hashOf("x"), enrolled), pgstore.ErrInvalidDeviceID},
		{s.AddDevice("dev\x00", hashOf("x"), enrolled), pgstore.ErrInvalidDeviceID},
		{s.AddDevice("dev-x", [32]byte{}, enrolled), pgstore.ErrInvalidHash},
		{s.AddDevice("dev-x", hashOf("x"), time.Time{}), pgstore.ErrInvalidTime},
		{s.RevokeDevice("dev-none", enrolled), pgstore.ErrUnknownDevice},
		{s.RevokeDevice("dev-b", enrolled), pgstore.ErrDeviceRevoked},
		{s.RevokeDevice("dev-a", time.Time{}), pgstore.ErrInvalidTime},
	} {
		if !errors.Is(c.err, c.want) {
			t.Errorf("got %v, want %v", c.err, c.want)
		}
	}
	if n := pgtest.QueryInt(t, dsn, `SELECT count(*) FROM devices`); n != 4 {
		t.Fatalf("%d devices after the refusals", n)
	}
}

// TestIdempotencyJoinsTheBatch: an answer and the machine writes of its
// request are durable together or not at all; the first answer stays.
func TestIdempotencyJoinsTheBatch(t *testing.T) {
	dsn := pgtest.Schema(t)
	s := mustOpen(t, dsn)
	s.PutTurn(core.TurnRecord{ID: "t-1", Seq: 1})
	s.PutIdempotent("k1", []byte("t-1"))
	s.Close() // crash before Commit
	s = mustOpen(t, dsn)
	if _, ok := s.Idempotent("k1"); ok {
		t.Fatal("answer survived without its Commit")
	}
	answer := []byte(`{"turn_id":"t-1"}`)
	s.PutIdempotent("k1", answer)
	answer[0] = 'X'                     // the store copied it
	s.PutIdempotent("k1", []byte("no")) // the first answer stays
	s.PutIdempotent("k-empty", nil)
	s.PutIdempotent("k-\xff", []byte("any bytes")) // a key is bytes, not text
	if !panics(func() { s.PutIdempotent("", nil) }) {
		t.Fatal("empty key: no panic")
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = mustOpen(t, dsn)
	defer s.Close()
	for key, want := range map[string]string{"k1": `{"turn_id":"t-1"}`, "k-empty": "", "k-\xff": "any bytes"} {
		if got, ok := s.Idempotent(key); !ok || string(got) != want {
			t.Errorf("answer %q: %q %v", key, got, ok)
		}
	}
	if _, ok := s.Idempotent("k-none"); ok {
		t.Fatal("unknown key answered")
	}
}
