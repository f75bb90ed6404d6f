package sqlitestore_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/store/sqlitestore"
	"github.com/turnstile-sim/turnstile/core/store/storetest"
	"github.com/turnstile-sim/turnstile/wire"
)

func walSize(t *testing.T, dir string) int64 {
	t.Helper()
	fi, err := os.Stat(filepath.Join(dir, sqlitestore.FileName+"-wal"))
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// TestCommitWithNothingPendingWritesNothing: an empty Commit leaves the
// write-ahead log as it was; a real one appends to it.
func TestCommitWithNothingPendingWritesNothing(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	defer s.Close()
	s.PutTurn(core.TurnRecord{ID: "t-1", Seq: 1})
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	size := walSize(t, dir)
	for range 3 {
		if err := s.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	s.Turns() // reads are no writes
	if err := s.Commit(); err != nil || walSize(t, dir) != size {
		t.Fatalf("empty Commit wrote: %v, wal %d -> %d", err, size, walSize(t, dir))
	}
	s.PutTurn(core.TurnRecord{ID: "t-2", Seq: 2})
	if err := s.Commit(); err != nil || walSize(t, dir) == size {
		t.Fatalf("Commit wrote nothing: %v", err)
	}
}

func TestClosedStore(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := s.Commit(); !errors.Is(err, sqlitestore.ErrClosed) {
		t.Fatalf("Commit after Close: %v", err)
	}
	if _, _, err := s.Device("d"); !errors.Is(err, sqlitestore.ErrClosed) {
		t.Fatalf("Device after Close: %v", err)
	}
	if _, err := s.Devices(); !errors.Is(err, sqlitestore.ErrClosed) {
		t.Fatalf("Devices after Close: %v", err)
	}
	if err := s.AddDevice("d", hashOf("d"), enrolled); !errors.Is(err, sqlitestore.ErrClosed) {
		t.Fatalf("AddDevice after Close: %v", err)
	}
	if err := s.RevokeDevice("d", enrolled); !errors.Is(err, sqlitestore.ErrClosed) {
		t.Fatalf("RevokeDevice after Close: %v", err)
	}
	if !panics(func() { s.PutTurn(core.TurnRecord{ID: "t"}) }) {
		t.Fatal("PutTurn after Close: no panic")
	}
	if !panics(func() { s.SaveCounters(core.Counters{}) }) {
		t.Fatal("SaveCounters after Close: no panic")
	}
}

// panics reports whether f panics.
func panics(f func()) (panicked bool) {
	defer func() { panicked = recover() != nil }()
	f()
	return false
}

// TestUnstorableWritesPanic: writes the store could not bring back are
// refused at the call, before anything is recorded.
func TestUnstorableWritesPanic(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	defer s.Close()
	for name, f := range map[string]func(){
		"seq over int64":       func() { s.PutTurn(core.TurnRecord{ID: "t-1", Seq: 1 << 63}) },
		"counter over int64":   func() { s.SaveCounters(core.Counters{Turns: 1 << 63}) },
		"unregistered payload": func() { s.AppendEvent("t-1", core.RunEvent{Seq: 1, Type: "x", Payload: foreignPayload{}}) },
		"pointer payload": func() {
			s.AppendEvent("t-1", core.RunEvent{Seq: 1, Type: wire.TypeDelta, Payload: &wire.Delta{}})
		},
	} {
		if !panics(f) {
			t.Errorf("%s: no panic", name)
		}
	}

	if len(s.Turns()) != 0 || s.Counters() != (core.Counters{}) || len(s.Events("t-1")) != 0 {
		t.Fatal("a refused write was recorded")
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
}

type foreignPayload struct{}

func (foreignPayload) MessageType() string { return "foreign" }

// TestFailedCommitIsFinal: a Commit the database refuses writes nothing
// of its batch, and every later Commit reports the failure (the caller
// stops the process).
func TestFailedCommitIsFinal(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	defer s.Close()
	rawExec(t, dir, `CREATE TRIGGER refuse BEFORE INSERT ON events BEGIN SELECT RAISE(ABORT, 'disk says no'); END`)
	s.PutSession(storetest.SampleSession("s-1", 1))
	s.AppendEvent("t-1", storetest.SampleEvent(1))
	err := s.Commit()
	if err == nil || !strings.Contains(err.Error(), "disk says no") {
		t.Fatalf("Commit: %v", err)
	}
	s.PutTurn(core.TurnRecord{ID: "t-2", Seq: 2})
	if again := s.Commit(); again == nil || again.Error() != err.Error() {
		t.Fatalf("Commit after a failure: %v", again)
	}
	if n := rawInt(t, dir, `SELECT count(*) FROM sessions`); n != 0 {
		t.Fatalf("failed batch left %d sessions", n)
	}
}

// TestRefusedWriteNamesTheCall: an out-of-sequence write panics with the
// Turn and the index or sequence it was given.
func TestRefusedWriteNamesTheCall(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	defer s.Close()
	for want, f := range map[string]func(){
		`PutInput("t-7", index 3)`:  func() { s.PutInput("t-7", core.InputRecord{Index: 3}) },
		`AppendEvent("t-7", seq 2)`: func() { s.AppendEvent("t-7", storetest.SampleEvent(2)) },
	} {
		func() {
			defer func() {
				if msg := fmt.Sprint(recover()); !strings.Contains(msg, want) || !strings.Contains(msg, "sequence") {
					t.Errorf("panic %q does not name %s", msg, want)
				}
			}()
			f()
		}()
	}
	s.PutInput("t-7", core.InputRecord{Index: 1}) // the store stays usable
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
}
