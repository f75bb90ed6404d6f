package world

import (
	"bytes"
	"math/rand/v2"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// cancelFailedForgery is a hostile middle drawn in a third of the seeds
// with faults, for the whole run: when a device sends Core a Run's done
// while Core awaits the receipt of its latest prompt_cancel of that Run,
// it forges, in half such cases, a cancel_failed receipt for that
// delivery right behind the done. Where the daemon's own receipt left in
// the done's step, the forgery comes after it and Core must ignore it;
// where the cancel raced the done, the forgery reaches Core first, and
// the cancel owns the result however complete the stream was: the Turn
// is cancel_unconfirmed (timing_cancel_confirmation judges it). Drawn
// from its own stream; it draws nothing else.
type cancelFailedForgery struct {
	r *rand.Rand
}

func (u *universe) drawCancelFailedForgery() {
	if r := u.w.Rand("cancel-failed-forgery"); r.IntN(3) == 0 && !u.faultFree() {
		u.cancelForgery = &cancelFailedForgery{r: r}
	}
}

// tapCancelFailedForgery watches the done frames devices send Core.
func (u *universe) tapCancelFailedForgery(ev sim.TapEvent) {
	cf := u.cancelForgery
	if cf == nil || u.core == nil || ev.Kind != sim.TapSent || ev.Forged || ev.To != coreID ||
		!bytes.HasPrefix(ev.Frame, []byte(`{"type":"done"`)) {
		return
	}
	f, err := u.decode(ev.Frame)
	if err != nil {
		return
	}
	c := u.core.cancels[f.ID]
	if c == nil || c.conn != core.ConnID(ev.Conn) || c.decided || c.answered || c.delivery == "" || cf.r.IntN(2) != 0 {
		return
	}
	b, err := wire.Encode(wire.Frame{ID: f.ID, Payload: wire.InteractionDecisionAck{DeliveryID: c.delivery, ErrorCode: wire.CancelFailed}})
	if err != nil {
		return
	}
	conn, from := ev.Conn, ev.From
	u.w.After(0, "", func() {
		if u.w.Forge(conn, from, b) {
			u.mark(check.MarkCancelFailedAfterDone)
		}
	})
}
