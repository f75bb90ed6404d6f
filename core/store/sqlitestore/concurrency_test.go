package sqlitestore_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/store/storetest"
)

// TestConcurrentReadersDuringCommits: request goroutines read devices,
// answers and records while the loop writes and commits (run with -race).
func TestConcurrentReadersDuringCommits(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	defer s.Close()
	if err := s.AddDevice("dev-1", hashOf("one"), enrolled); err != nil {
		t.Fatal(err)
	}
	const batches = 50
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for r := range 4 {
		wg.Go(func() {
			for i := range batches {
				if _, ok, err := s.Device("dev-1"); !ok || err != nil {
					errs <- fmt.Errorf("reader %d: device %v %v", r, ok, err)
					return
				}
				s.Idempotent(fmt.Sprint("k-", i))
				s.Turns()
				s.Events("t-1")
			}
		})
	}
	for k := 1; k <= batches; k++ {
		s.PutTurn(core.TurnRecord{ID: fmt.Sprint("t-", k), Seq: uint64(k)})
		s.AppendEvent("t-1", storetest.SampleEvent(uint64(k)))
		s.PutIdempotent(fmt.Sprint("k-", k), []byte("a"))
		if err := s.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := len(s.Events("t-1")); n != batches {
		t.Fatalf("%d events", n)
	}
}
