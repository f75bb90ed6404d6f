package world

import (
	"math/rand/v2"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/sim"
)

// Suspension requests held around Core's 30 s reply wait. A daemon answers
// environment_quiesce and environment_resume at once, so Core's own wait
// decides only when the exchange is late on a live connection (the
// quiesce-reply-lost fault also breaks the connection, which excuses the
// wait). In half the seeds (drawn once from the "suspension-stall" stream,
// apart from every other draw), when Core first sends a request of a kind
// for a suspend ID, Core's direction of that connection is sometimes
// stalled for 20–45 s: the request, and so its reply, then reaches the far
// end before, around or after Core's bound, and a wrong bound or an unarmed
// timer shows in the suspension reply oracle. Core's direction is the one
// held because the daemon's direction carries the reply under the daemon's
// 5 s send budget, which would close the connection; Core sends without a
// budget and keeps hearing the daemon's heartbeats, so the connection
// lives. Nothing is lost or reordered.
type suspensionStall struct {
	r       *rand.Rand // nil: not in this seed
	stalled map[string]bool
}

// suspensionStallMin and suspensionStallMax bound one stall.
const (
	suspensionStallMin = 20 * time.Second
	suspensionStallMax = 45 * time.Second
)

func (u *universe) initSuspensionStall() {
	r := u.w.Rand("suspension-stall")
	if r.IntN(2) == 0 && !u.faultFree() {
		u.suspensionStall = suspensionStall{r: r, stalled: map[string]bool{}}
	}
}

// suspensionRequested may stall the replies to Core's first request of
// suspend on conn (a quiesce and its resume are stalled at most once each).
func (u *universe) suspensionRequested(conn core.ConnID, key string) {
	s := &u.suspensionStall
	if s.r == nil || s.stalled[key] {
		return
	}
	s.stalled[key] = true
	if s.r.IntN(3) == 0 {
		return
	}
	d := suspensionStallMin + time.Duration(s.r.Int64N(int64(suspensionStallMax-suspensionStallMin)))
	u.w.Stall(sim.ConnID(conn), coreID, d)
}
