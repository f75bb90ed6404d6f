package harness

import (
	"math/rand/v2"
	"testing"
)

// TestDrawConfigSwarmsLatenciesAroundTimers: each latency around a timer
// is off in most seeds and on in some, so every timer sometimes decides.
func TestDrawConfigSwarmsLatenciesAroundTimers(t *testing.T) {
	on := map[string]int{}
	const seeds = 400
	for s := range uint64(seeds) {
		c := DrawConfig(rand.New(rand.NewPCG(s, 7)))
		for name, v := range map[string]int{"SlowStart": c.SlowStart, "SlowWrite": c.SlowWrite, "SlowCancel": c.SlowCancel} {
			if v < 0 || v > 8 {
				t.Fatalf("seed %d: %s=%d is not a chance in 8", s, name, v)
			}
			if v > 0 {
				on[name]++
			}
		}
		if c.GlacialPrepare {
			on["GlacialPrepare"]++
		}
	}
	for _, name := range []string{"SlowStart", "SlowWrite", "SlowCancel", "GlacialPrepare"} {
		if on[name] == 0 || on[name] > seeds/2 {
			t.Errorf("%s enabled in %d of %d seeds, want some but a minority", name, on[name], seeds)
		}
	}
}
