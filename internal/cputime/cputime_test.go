package cputime_test

import (
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/internal/cputime"
)

// TestProcessCountsWork burns CPU until the process clock moves, within a
// wall-clock bound far above the kernel's accounting tick.
func TestProcessCountsWork(t *testing.T) {
	if !cputime.Measured {
		if got := cputime.Process(); got != 0 {
			t.Fatalf("Process() = %v on a platform without getrusage, want 0", got)
		}
		return
	}
	start := cputime.Process()
	if start <= 0 {
		t.Fatalf("Process() = %v at the start of a running test, want > 0", start)
	}
	limit := time.Now().Add(10 * time.Second)
	x := uint64(1)
	for cputime.Process() == start {
		if time.Now().After(limit) {
			t.Fatalf("Process() stayed at %v over 10 s of busy work", start)
		}
		for range 100_000 {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	if got := cputime.Process(); got < start {
		t.Fatalf("Process() went back from %v to %v (x=%d)", start, got, x)
	}
}
