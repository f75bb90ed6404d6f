package world

import (
	"math/rand/v2"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/sim"
)

// Core crashes while a cancel awaits its receipt. A restarted Core fails a
// Turn whose cancel was sent and not confirmed cancel_unconfirmed,
// whatever its stream did; a core_crash fault lands inside the short
// wait for a cancel receipt only by chance. In half the seeds with faults
// (drawn once from the "cancel-crash" stream, apart from every other
// draw), when Core sends a prompt_cancel, Core crashes, two times in
// three and at most twice a seed, before the receipt can be back: within
// 1 ms (the least network latency), or within 10 s when the receipts of
// that Run are held (cancel_stall.go), but only once a core_crash fault
// of the seed's schedule has come (so a schedule shrunk of its Core
// crashes has none of these either). It restarts after a core_crash
// fault's down time. So that such a seed has a cancel to crash on, its
// workload also cancels the first Turn it reads running (Turns run mostly
// after heal, so neither the cancel nor the crash waits for it). The
// restart outcome oracle judges the Turn (sim/check/restart_outcome.go;
// mark core_restart_cancel_pending, reached in about a quarter of the
// swarm's seeds).
type cancelCrash struct {
	r         *rand.Rand // nil: not in this seed
	left      int        // crashes still allowed
	scheduled bool       // a core_crash fault of the schedule came
	cancelled map[string]bool
}

// cancelCrash bounds: the delay after the prompt_cancel, without and with
// held receipts, and the crashes per seed.
const (
	cancelCrashSoon    = time.Millisecond
	cancelCrashStalled = 10 * time.Second
	cancelCrashesMax   = 2
	cancelCrashCancels = 1 // workload cancels per seed
)

func (u *universe) initCancelCrash() {
	r := u.w.Rand("cancel-crash")
	if r.IntN(2) == 0 && !u.faultFree() {
		u.cancelCrash = cancelCrash{r: r, left: cancelCrashesMax, cancelled: map[string]bool{}}
	}
}

// crashAfterCancel may crash Core shortly after it sent a prompt_cancel
// of run.
func (u *universe) crashAfterCancel(run string) {
	s := &u.cancelCrash
	if s.r == nil || !s.scheduled || s.left == 0 || s.r.IntN(3) == 0 {
		return
	}
	s.left--
	within := cancelCrashSoon
	if u.cancelStall.stalled[run] {
		within = cancelCrashStalled
	}
	d := time.Duration(s.r.Int64N(int64(within)))
	down := kCoreCrash.min + time.Duration(s.r.Int64N(int64(kCoreCrash.max-kCoreCrash.min)))
	u.w.After(d, "", func() {
		if !u.w.Up(coreID) {
			return
		}
		u.w.Note("fault detail Core crashes with the cancel of run " + run + " unconfirmed")
		u.crashCore(sim.Fault{Kind: kCoreCrash.kind, Node: coreID, For: down})
	})
}

// cancelForCrash: in such a seed the workload cancels the first
// cancelCrashCancels Turns it reads running.
func (wl *workload) cancelForCrash(now time.Time, t *wTurn, state core.TurnState) {
	s := &wl.u.cancelCrash
	if s.r == nil || len(s.cancelled) >= cancelCrashCancels || s.cancelled[t.id] || state != core.TurnRunning {
		return
	}
	s.cancelled[t.id] = true
	wl.call(now, core.CancelTurn{Turn: t.id}, func(time.Time, core.APIResult) {}, func(time.Time) {})
}
