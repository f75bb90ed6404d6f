package sim

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// tickerSetup is a node that ticks every second for ever, and a
// predicate over its ticks: converged from `enough` ticks on (never
// when enough is 0). lazy selects SetConvergenceLazy; built counts
// the reasons the kernel had built.
func tickerSetup(lazy bool, enough int, built *int) func(w *Kernel) {
	return func(w *Kernel) {
		ticks := 0
		w.AddNode("ticker", func() Node {
			return NodeFunc(func(now time.Time, ev Event) []Effect {
				if _, ok := ev.(TimerFired); ok {
					ticks++
				}
				return []Effect{SetTimer{Timer: "tick", At: now.Add(time.Second)}}
			})
		})
		ok := func() bool { return enough > 0 && ticks >= enough }
		if !lazy {
			w.SetConvergence(func() (bool, string) { return ok(), "ticks=" + strconv.Itoa(ticks) })
			return
		}
		w.SetConvergenceLazy(func() (bool, func() string) {
			seen := ticks
			return ok(), func() string { *built++; return "ticks=" + strconv.Itoa(seen) }
		})
	}
}

func TestLazyConvergenceReasonIsTheLatestVerdicts(t *testing.T) {
	for _, enough := range []int{0, 3} {
		var built int
		opts := Options{LivenessTimeout: 20 * time.Second, Swarm: SwarmConfig{HealMin: time.Second, HealMax: 2 * time.Second}}
		opts.Setup = tickerSetup(false, enough, nil)
		eager := Run(7, opts)
		opts.Setup = tickerSetup(true, enough, &built)
		lazy := Run(7, opts)
		if lazy.Fingerprint != eager.Fingerprint || lazy.Pending != eager.Pending || lazy.Converged != eager.Converged ||
			len(lazy.Violations) != len(eager.Violations) {
			t.Fatalf("enough=%d: lazy run %+v differs from eager %+v", enough, lazy, eager)
		}
		for i := range lazy.Violations {
			if lazy.Violations[i] != eager.Violations[i] {
				t.Fatalf("enough=%d: violation %v, eager %v", enough, lazy.Violations[i], eager.Violations[i])
			}
		}
		if built != 1 {
			t.Errorf("enough=%d: %d reasons built, want one (the latest verdict's, once)", enough, built)
		}
		switch {
		case enough == 0 && (lazy.FailedCheck() != "liveness" || !strings.HasSuffix(lazy.Violations[0].Message, ": "+lazy.Pending)):
			t.Errorf("never converging: violation %v, pending %q", lazy.Violations, lazy.Pending)
		case enough > 0 && (!lazy.Converged || lazy.Pending != "ticks="+strconv.Itoa(enough)):
			t.Errorf("converging: converged %v, pending %q", lazy.Converged, lazy.Pending)
		}
	}
}
