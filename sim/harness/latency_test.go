package harness

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
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

// TestGlacialPreparationsAreTheFirstAndTheFirstAfterHeal: with
// GlacialPrepare the device's first preparation and its first one within
// 60 s after heal take 290–320 s; every other keeps its latency.
func TestGlacialPreparationsAreTheFirstAndTheFirstAfterHeal(t *testing.T) {
	const d = 7 * time.Millisecond
	glacial := func(got time.Duration) bool { return got >= 290*time.Second && got < 320*time.Second }
	t0 := time.Unix(1_767_225_600, 0)
	run := func(healAfter time.Duration, preps ...time.Duration) []bool {
		dev := &Device{Harness: Config{GlacialPrepare: true}}
		h := &Harness{dev: dev, r: rand.New(rand.NewPCG(1, 2))}
		var out []bool
		for _, at := range preps {
			if at >= healAfter && dev.healedAt.IsZero() {
				dev.healedAt = t0.Add(healAfter)
			}
			out = append(out, glacial(h.glacialPrepare(t0.Add(at), d)))
		}
		return out
	}
	cases := []struct {
		name  string
		heal  time.Duration
		preps []time.Duration
		want  []bool
	}{
		{"first, then the first after heal", 20 * time.Second, []time.Duration{time.Second, 5 * time.Second, 30 * time.Second, 31 * time.Second}, []bool{true, false, true, false}},
		{"the first after heal is past the window", 20 * time.Second, []time.Duration{time.Second, 90 * time.Second, 91 * time.Second}, []bool{true, false, false}},
		{"the first is after heal", 20 * time.Second, []time.Duration{25 * time.Second, 26 * time.Second}, []bool{true, false}},
	}
	for _, c := range cases {
		if got := run(c.heal, c.preps...); !slices.Equal(got, c.want) {
			t.Errorf("%s: glacial %v, want %v", c.name, got, c.want)
		}
	}
	h := &Harness{dev: &Device{}, r: rand.New(rand.NewPCG(1, 2))}
	if got := h.glacialPrepare(t0, d); got != d {
		t.Errorf("without GlacialPrepare the latency is %v, want %v", got, d)
	}
}
