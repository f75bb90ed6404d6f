package world

import (
	"math/rand/v2"
	"time"

	"github.com/turnstile-sim/turnstile/core"
)

// Cancels of Turns still starting. The daemon refuses a prompt_cancel
// not_ready while the Harness has not answered the Run's start, and Core
// sends it again 1 s later inside the same 15 s confirmation window; the
// workload's own cancels mostly meet queued or running Turns. In a third
// of the seeds (drawn once from the "cancel-starting" stream, apart from
// every other draw; a workload action, not a fault), the workload cancels,
// once, half of the
// Turns it reads starting; slow Harness starts (harness.Config.SlowStart)
// keep them starting for seconds, so the retry and the window around it
// are exercised.
type cancelStarting struct {
	r         *rand.Rand // nil: not in this seed
	cancelled map[string]bool
}

func (u *universe) initCancelStarting() {
	r := u.w.Rand("cancel-starting")
	if r.IntN(3) == 0 {
		u.cancelStarting = cancelStarting{r: r, cancelled: map[string]bool{}}
	}
}

// cancelIfStarting may cancel t, read in state, while it is starting.
func (wl *workload) cancelIfStarting(now time.Time, t *wTurn, state core.TurnState) {
	s := &wl.u.cancelStarting
	if s.r == nil || state != core.TurnStarting || s.cancelled[t.id] {
		return
	}
	s.cancelled[t.id] = true
	if s.r.IntN(2) == 0 {
		wl.call(now, core.CancelTurn{Turn: t.id}, func(time.Time, core.APIResult) {}, func(time.Time) {})
	}
}
