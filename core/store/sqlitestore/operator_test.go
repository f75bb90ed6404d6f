package sqlitestore_test

import (
	"crypto/sha256"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/store/sqlitestore"
)

var enrolled = time.Date(2026, 2, 3, 4, 5, 6, 789, time.FixedZone("", -5*60*60))

func hashOf(s string) [32]byte { return sha256.Sum256([]byte(s)) }

func TestDevicesAddListRevoke(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	defer s.Close()
	for _, id := range []string{"dev-c", "dev-a", "dev-b"} {
		if err := s.AddDevice(id, hashOf(id), enrolled); err != nil {
			t.Fatalf("AddDevice(%s): %v", id, err)
		}
	}
	revokedAt := enrolled.Add(time.Hour).UTC()
	if err := s.RevokeDevice("dev-b", revokedAt); err != nil {
		t.Fatal(err)
	}
	// Written at once: a crash now (Close without Commit) keeps them.
	s.Close()
	s = mustOpen(t, dir)
	defer s.Close()
	got, err := s.Devices()
	if err != nil {
		t.Fatal(err)
	}
	want := []sqlitestore.Device{
		{ID: "dev-a", CredentialHash: hashOf("dev-a"), CreatedAt: enrolled},
		{ID: "dev-b", CredentialHash: hashOf("dev-b"), Revoked: true, CreatedAt: enrolled, RevokedAt: revokedAt},
		{ID: "dev-c", CredentialHash: hashOf("dev-c"), CreatedAt: enrolled},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("devices:\n got  %+v\n want %+v", got, want)
	}
	d, ok, err := s.Device("dev-b")
	if err != nil || !ok || !reflect.DeepEqual(d, want[1]) {
		t.Fatalf("Device: %+v %v %v", d, ok, err)
	}
	if d, ok, err := s.Device("dev-none"); ok || err != nil || d != (sqlitestore.Device{}) {
		t.Fatalf("unknown device: %+v %v %v", d, ok, err)
	}
}

// TestDeviceRejections: every refusal is named and writes nothing.
func TestDeviceRejections(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	defer s.Close()
	if err := s.AddDevice("dev-1", hashOf("one"), enrolled); err != nil {
		t.Fatal(err)
	}
	if err := s.AddDevice("dev-2", hashOf("two"), enrolled); err != nil {
		t.Fatal(err)
	}
	if err := s.RevokeDevice("dev-2", enrolled.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	before, _ := s.Devices()
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"duplicate", s.AddDevice("dev-1", hashOf("other"), enrolled.Add(time.Hour)), sqlitestore.ErrDeviceExists},
		{"duplicate of revoked", s.AddDevice("dev-2", hashOf("other"), enrolled), sqlitestore.ErrDeviceExists},
		{"empty ID", s.AddDevice("", hashOf("x"), enrolled), sqlitestore.ErrInvalidDeviceID},
		{"long ID", s.AddDevice(strings.Repeat("d", 129), hashOf("x"), enrolled), sqlitestore.ErrInvalidDeviceID},
		{"non-UTF-8 ID", s.AddDevice("dev-\xff", hashOf("x"), enrolled), sqlitestore.ErrInvalidDeviceID},
		{"control character", s.AddDevice("dev\n3", hashOf("x"), enrolled), sqlitestore.ErrInvalidDeviceID},
		{"zero hash", s.AddDevice("dev-3", [32]byte{}, enrolled), sqlitestore.ErrInvalidHash},
		{"zero creation time", s.AddDevice("dev-3", hashOf("x"), time.Time{}), sqlitestore.ErrInvalidTime},
		{"revoke unknown", s.RevokeDevice("dev-9", enrolled), sqlitestore.ErrUnknownDevice},
		{"revoke twice", s.RevokeDevice("dev-2", enrolled.Add(time.Hour)), sqlitestore.ErrDeviceRevoked},
		{"zero revocation time", s.RevokeDevice("dev-1", time.Time{}), sqlitestore.ErrInvalidTime},
	}
	for _, c := range cases {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, c.err, c.want)
		}
	}
	if after, _ := s.Devices(); !reflect.DeepEqual(after, before) {
		t.Fatalf("a refused call changed the devices:\n before %+v\n after  %+v", before, after)
	}
	if s.AddDevice(strings.Repeat("d", 128), hashOf("x"), enrolled) != nil {
		t.Fatal("a 128-byte ID is allowed")
	}
}

// TestDeviceWritesStayOutOfTheBatch: a device change commits alone; the
// machine's pending writes still wait for Commit.
func TestDeviceWritesStayOutOfTheBatch(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	s.PutTurn(core.TurnRecord{ID: "t-1", Seq: 1})
	if err := s.AddDevice("dev-1", hashOf("one"), enrolled); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = mustOpen(t, dir)
	defer s.Close()
	if _, ok := s.Turn("t-1"); ok {
		t.Fatal("AddDevice committed the pending batch")
	}
	if _, ok, _ := s.Device("dev-1"); !ok {
		t.Fatal("device lost")
	}
}

// TestDevicesSeenAcrossOpeners: a device added through another opener of
// the same directory (an operator command) is seen at once.
func TestDevicesSeenAcrossOpeners(t *testing.T) {
	dir := t.TempDir()
	server := mustOpen(t, dir)
	defer server.Close()
	cli := mustOpen(t, dir)
	if err := cli.AddDevice("dev-1", hashOf("one"), enrolled); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := server.Device("dev-1"); !ok || err != nil {
		t.Fatalf("server does not see the new device: %v %v", ok, err)
	}
	if err := cli.RevokeDevice("dev-1", enrolled.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	cli.Close()
	if d, _, _ := server.Device("dev-1"); !d.Revoked {
		t.Fatal("server does not see the revocation")
	}
}

func TestIdempotencyAnswers(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	answer := []byte(`{"turn_id":"t-1"}`)
	s.PutIdempotent("k1", answer)
	answer[0] = 'X'                                // the store copied it
	s.PutIdempotent("k1", []byte("second answer")) // the first answer stays
	s.PutIdempotent("k-empty", nil)
	got, ok := s.Idempotent("k1")
	if !ok || string(got) != `{"turn_id":"t-1"}` {
		t.Fatalf("before commit: %q %v", got, ok)
	}
	got[0] = 'Y' // the caller's copy
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = mustOpen(t, dir)
	defer s.Close()
	s.PutIdempotent("k1", []byte("after reopen"))
	if got, ok := s.Idempotent("k1"); !ok || string(got) != `{"turn_id":"t-1"}` {
		t.Fatalf("after reopen: %q %v", got, ok)
	}
	if got, ok := s.Idempotent("k-empty"); !ok || len(got) != 0 {
		t.Fatalf("empty answer: %q %v", got, ok)
	}
	if got, ok := s.Idempotent("k-none"); ok || got != nil {
		t.Fatalf("unknown key: %q %v", got, ok)
	}
}

// TestIdempotencyJoinsTheBatch: an answer and the machine writes of its
// request are durable together or not at all.
func TestIdempotencyJoinsTheBatch(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	s.PutTurn(core.TurnRecord{ID: "t-1", Seq: 1})
	s.PutIdempotent("k1", []byte("t-1"))
	s.Close() // crash before Commit
	s = mustOpen(t, dir)
	if _, ok := s.Idempotent("k1"); ok {
		t.Fatal("answer survived without its Commit")
	}
	s.PutIdempotent("k1", []byte("t-1")) // an answer alone is a batch too
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = mustOpen(t, dir)
	defer s.Close()
	if _, ok := s.Idempotent("k1"); !ok {
		t.Fatal("committed answer lost")
	}
}

func TestIdempotencyRejections(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	if !panics(func() { s.PutIdempotent("", []byte("x")) }) {
		t.Fatal("empty key: no panic")
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if !panics(func() { s.PutIdempotent("k", []byte("x")) }) {
		t.Fatal("put after Close: no panic")
	}
}
