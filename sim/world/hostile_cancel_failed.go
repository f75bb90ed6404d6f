package world

import (
	"bytes"
	"math/rand/v2"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// cancelFailedForgery is a hostile middle drawn in a third of the seeds
// with faults, for the whole run: when a device sends Core a Run's done
// while Core awaits the receipt of its latest prompt_cancel of that Run,
// it forges, in half such cases, a cancel_failed receipt for that
// delivery right behind the done: ahead of the daemon's own receipt when
// that leaves in the done's step (the middle holds it back a moment), else
// at once, ahead of whatever receipt the cancel still gets. Core then has
// the whole stream and a cancel_failed receipt: the cancel owns the
// result, and the Turn is cancel_unconfirmed (timing_cancel_confirmation
// judges it). Drawn from its own stream; it draws nothing else.
type cancelFailedForgery struct {
	r         *rand.Rand
	cancelled map[string]bool // turns the workload cancelled once seen running
	// behind is the done the forgery follows, until it is forged
	behind *forgeBehind
}

type forgeBehind struct {
	run, delivery string
	conn          sim.ConnID
	from          sim.NodeID
	frame         []byte
}

func (u *universe) drawCancelFailedForgery() {
	if r := u.w.Rand("cancel-failed-forgery"); r.IntN(3) == 0 && !u.faultFree() {
		u.cancelForgery = &cancelFailedForgery{r: r, cancelled: map[string]bool{}}
	}
}

// cancelRunningForForgery: in such a seed the workload also cancels, once,
// half of the Turns it reads running, so that Core awaits cancel receipts
// while done frames leave (its own cancels mostly meet queued Turns).
func (wl *workload) cancelRunningForForgery(now time.Time, t *wTurn, state core.TurnState) {
	cf := wl.u.cancelForgery
	if cf == nil || state != core.TurnRunning || cf.cancelled[t.id] || wl.u.cancelStall.cancelled[t.id] {
		return
	}
	cf.cancelled[t.id] = true
	if cf.r.IntN(2) == 0 {
		wl.call(now, core.CancelTurn{Turn: t.id}, func(time.Time, core.APIResult) {}, func(time.Time) {})
	}
}

// tapCancelFailedForgery watches the frames devices send Core.
func (u *universe) tapCancelFailedForgery(ev sim.TapEvent) {
	cf := u.cancelForgery
	if cf == nil || u.core == nil || ev.Kind != sim.TapSent || ev.Forged || ev.To != coreID {
		return
	}
	switch {
	case bytes.HasPrefix(ev.Frame, []byte(`{"type":"done"`)):
		cf.doneSent(u, ev)
	case bytes.HasPrefix(ev.Frame, []byte(`{"type":"interaction_decision_ack"`)) && cf.behind != nil:
		// the daemon's receipt follows the done in its step: the forgery
		// goes first (a tap runs before the frame is queued)
		if b := cf.behind; b.conn == ev.Conn && b.from == ev.From {
			if f, err := u.decode(ev.Frame); err == nil && f.ID == b.run {
				cf.forge(u)
			}
		}
	}
}

func (cf *cancelFailedForgery) doneSent(u *universe, ev sim.TapEvent) {
	f, err := u.decode(ev.Frame)
	if err != nil {
		return
	}
	c := u.core.cancels[f.ID]
	// a Run whose receipts the cancel stall holds (cancel_stall.go) is
	// left alone: its done and receipt wait behind the stall, and the
	// connection usually closes on the daemon's send budget first
	if c == nil || c.conn != core.ConnID(ev.Conn) || c.decided || c.answered || c.delivery == "" ||
		u.cancelStall.stalled[f.ID] || cf.r.IntN(2) != 0 {
		return
	}
	b, err := wire.Encode(wire.Frame{ID: f.ID, Payload: wire.InteractionDecisionAck{DeliveryID: c.delivery, ErrorCode: wire.CancelFailed}})
	if err != nil {
		return
	}
	cf.behind = &forgeBehind{run: f.ID, delivery: c.delivery, conn: ev.Conn, from: ev.From, frame: b}
	u.w.After(0, "", func() { cf.forge(u) }) // no receipt left in the done's step
}

func (cf *cancelFailedForgery) forge(u *universe) {
	b := cf.behind
	if b == nil {
		return
	}
	cf.behind = nil
	if u.w.Forge(b.conn, b.from, b.frame) {
		u.w.Note("cancel_failed forged behind the done of " + b.run + " for " + b.delivery)
		u.mark(check.MarkCancelFailedAfterDone)
	}
}
