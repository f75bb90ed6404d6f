package world

import (
	"math/rand/v2"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/sim"
)

// Receipts held around Core's cancel window. A daemon answers every
// cancel within its 10 s settlement wait, so Core's own 15 s confirmation
// timer decides only when the receipt is late on the network. In half the
// seeds (drawn once from the "cancel-stall" stream, apart from every
// other draw), when Core sends the first prompt_cancel of a Run, the
// device's direction of that connection is sometimes stalled for 13–28 s:
// the receipt then reaches Core just before, around or after its bound,
// and a wrong bound or an unarmed timer shows in the cancel-confirmation
// oracle. A stall is a transport delay a WebSocket can have; nothing is
// lost or reordered.
type cancelStall struct {
	r         *rand.Rand // nil: not in this seed
	stalled   map[string]bool
	cancelled map[string]bool // turns the workload cancelled once seen running
}

// cancelStallMin and cancelStallMax bound one stall.
const (
	cancelStallMin = 13 * time.Second
	cancelStallMax = 28 * time.Second
)

func (u *universe) initCancelStall() {
	r := u.w.Rand("cancel-stall")
	if r.IntN(2) == 0 && !u.faultFree() {
		u.cancelStall = cancelStall{r: r, stalled: map[string]bool{}, cancelled: map[string]bool{}}
	}
}

// cancelSent may stall the receipts of Core's first cancel of run on conn.
func (u *universe) cancelSent(conn core.ConnID, run, device string) {
	s := &u.cancelStall
	if s.r == nil || s.stalled[run] || device == "" {
		return
	}
	s.stalled[run] = true
	d := cancelStallMin + time.Duration(s.r.Int64N(int64(cancelStallMax-cancelStallMin)))
	u.w.Stall(sim.ConnID(conn), sim.NodeID(device), d)
}

// cancelRunning: in such a seed the workload also cancels, once, half of
// the Turns it reads running (its own cancels mostly meet queued Turns, which
// send no prompt_cancel).
func (wl *workload) cancelRunning(now time.Time, t *wTurn, state core.TurnState) {
	s := &wl.u.cancelStall
	if s.r == nil || state != core.TurnRunning || s.cancelled[t.id] {
		return
	}
	s.cancelled[t.id] = true
	if s.r.IntN(2) == 0 {
		wl.call(now, core.CancelTurn{Turn: t.id}, func(time.Time, core.APIResult) {}, func(time.Time) {})
	}
}
