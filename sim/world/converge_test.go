package world

import (
	"fmt"
	"testing"

	"github.com/turnstile-sim/turnstile/sim"
)

// The liveness reason for an unfinished workload is memoised on the
// workload's counters; after every step it must equal the reason built
// afresh.
func TestPendingReasonMemoMatchesFresh(t *testing.T) {
	for _, seed := range []uint64{1, 9, 33, 120} {
		var u *universe
		checked := 0
		opts := Options(Config{})
		opts.Setup = func(w *sim.Kernel) {
			u = setup(w, Config{}, false)
			w.AddCheck(sim.Check{Name: "pending_memo", AfterStep: func(*sim.View) error {
				if u.shutdownSent || u.wl.finished() {
					return nil
				}
				checked++
				_, why := u.convergedNow()
				if fresh := "workload not finished: " + u.wl.pending(); why != fresh {
					return fmt.Errorf("memoised %q, fresh %q", why, fresh)
				}
				return nil
			}})
		}
		r := sim.Run(seed, opts)
		for _, v := range r.Violations {
			if v.Check == "pending_memo" {
				t.Errorf("seed %d: %s", seed, v.Message)
			}
		}
		if checked == 0 {
			t.Errorf("seed %d: no step with an unfinished workload", seed)
		}
	}
}
