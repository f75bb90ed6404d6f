package store_test

import (
	"testing"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/store"
)

func TestMemoryEventCountIsTheEventsLength(t *testing.T) {
	s := store.NewMemory()
	if n := s.EventCount("t-1"); n != 0 {
		t.Fatalf("EventCount of an unknown turn = %d, want 0", n)
	}
	for seq := uint64(1); seq <= 3; seq++ {
		s.AppendEvent("t-1", core.RunEvent{Seq: seq})
		if n, want := s.EventCount("t-1"), len(s.Events("t-1")); n != want || n != int(seq) {
			t.Fatalf("after %d appends EventCount = %d, len(Events) = %d", seq, n, want)
		}
	}
	s.AppendEvent("t-2", core.RunEvent{Seq: 1})
	if n := s.EventCount("t-1"); n != 3 {
		t.Fatalf("another turn's event changed t-1's count to %d", n)
	}
}
