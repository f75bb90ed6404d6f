package world

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/sim"
)

// The liveness reason of an unfinished workload is built lazily from a
// snapshot of the workload's counters, through a verdict memoised on
// them. After every step the memoised verdict's reason must equal the
// reason built afresh, and at the end of the run every snapshot taken
// along the way must still render the text it had when it was taken.
func TestPendingReasonSnapshotsKeepTheirText(t *testing.T) {
	for _, seed := range []uint64{1, 9, 33, 120} {
		var u *universe
		type taken struct {
			snap pendingSnapshot
			text string
		}
		var kept []taken
		opts := Options(Config{})
		opts.Setup = func(w *sim.Kernel) {
			u = setup(w, Config{}, false)
			w.AddCheck(sim.Check{Name: "pending_snapshot", AfterStep: func(*sim.View) error {
				if u.shutdownSent || u.wl.finished() {
					return nil
				}
				fresh := "workload not finished: " + u.wl.pending()
				v := u.verdict()
				if !v.pending || v.reason(u.wl) != fresh {
					return fmt.Errorf("memoised verdict %+v says %q, fresh %q", v, v.reason(u.wl), fresh)
				}
				kept = append(kept, taken{snap: u.wl.snapshot(), text: fresh})
				return nil
			}, AtEnd: func(*sim.View) error {
				for _, k := range kept {
					if again := u.wl.pendingText(k.snap); again != k.text {
						return fmt.Errorf("snapshot %+v was %q, renders %q at the end", k.snap, k.text, again)
					}
				}
				return nil
			}})
		}
		r := sim.Run(seed, opts)
		for _, v := range r.Violations {
			if v.Check == "pending_snapshot" {
				t.Errorf("seed %d: %s", seed, v.Message)
			}
		}
		if len(kept) == 0 {
			t.Errorf("seed %d: no step with an unfinished workload", seed)
		}
	}
}

// TestLazyPendingReasonIsTheEagerOne: a run stopped by a violation a few
// steps after heal, its workload unfinished, reports the same pending
// reason, violations and trace whether the reason is built lazily (the
// world's way, after the state moved on) or after every step.
func TestLazyPendingReasonIsTheEagerOne(t *testing.T) {
	compared := 0
	for _, seed := range []uint64{1, 2, 3, 4, 5, 6, 7, 8} {
		run := func(eager bool) sim.Result {
			opts := Options(Config{})
			opts.Setup = func(w *sim.Kernel) {
				u := setup(w, Config{}, false)
				if eager {
					w.SetConvergence(u.converged)
				}
				unfinished := 0
				w.AddCheck(sim.Check{Name: "stop_unfinished", AfterStep: func(*sim.View) error {
					if w.Healed() && !u.shutdownSent && !u.wl.finished() {
						if unfinished++; unfinished == 7 {
							return errorString("stopped")
						}
					}
					return nil
				}})
			}
			return sim.Run(seed, opts)
		}
		lazy, eager := run(false), run(true)
		if lazy.Fingerprint != eager.Fingerprint || lazy.Pending != eager.Pending || !slices.Equal(lazy.Violations, eager.Violations) {
			t.Fatalf("seed %d: lazy %q %v, eager %q %v", seed, lazy.Pending, lazy.Violations, eager.Pending, eager.Violations)
		}
		if lazy.FailedCheck() == "stop_unfinished" && strings.HasPrefix(lazy.Pending, pendingPrefix) {
			compared++
		}
	}
	if compared == 0 {
		t.Fatal("no seed stopped with an unfinished workload: the comparison proved nothing")
	}
}
