package world

import (
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// observeSend records what a daemon sends: handles granted, started,
// released and expired; receipts; cancel receipts; done, error and usage.
func (n *daemonNode) observeSend(e daemon.Send) {
	u := n.u
	at := u.lt(u.w.Now())
	conn := connName(e.Gen)
	switch p := e.Frame.Payload.(type) {
	case wire.PreparationStatus:
		n.observeStatus(at, conn, p)
	case wire.PromptSteerAck:
		if st := p.Stage(); st == check.StageWritten || st == check.StageAccepted {
			u.led.ReceiptSent(at, e.Frame.ID, p.InputID, st)
			u.count("ReceiptSent")
		}
	case wire.InteractionDecisionAck:
		u.led.CancelAckSent(at, e.Frame.ID, p.Applied)
		u.count("CancelAckSent")
		if p.Outcome != nil && p.Outcome.Usage != nil {
			u.led.UsageSent(at, e.Frame.ID, check.UsageFromWire(p.Outcome.Usage))
			u.count("UsageSent")
		}
	case wire.Done:
		u.led.DoneSent(at, e.Frame.ID)
		u.count("DoneSent")
		if p.Usage != nil {
			u.led.UsageSent(at, e.Frame.ID, check.UsageFromWire(p.Usage))
			u.count("UsageSent")
		}
	case wire.RunError:
		u.led.ErrorSent(at, e.Frame.ID)
		u.count("ErrorSent")
	case wire.UsageUpdate:
		u.led.UsageSent(at, e.Frame.ID, check.UsageFromWire(&p.Usage))
		u.count("UsageSent")
	}
}

func (n *daemonNode) observeStatus(at int64, conn string, st wire.PreparationStatus) {
	u := n.u
	if st.Handle == "" {
		return
	}
	if st.Revision == 1 {
		var expires int64
		for _, a := range n.m.Snapshot().Admissions {
			if a.Handle == st.Handle && !a.ExpiresAt.IsZero() {
				expires = u.lt(a.ExpiresAt)
			}
		}
		u.led.HandleGranted(at, conn, st.Handle, expires)
		u.count("HandleGranted")
	}
	switch st.State {
	case wire.StateStarting:
		u.led.HandleStarted(at, conn, st.Handle, st.RunID)
		u.count("HandleStarted")
	case wire.StateReleased, wire.StateFailed:
		u.led.HandleReleased(at, conn, st.Handle)
		u.count("HandleReleased")
	case wire.StateExpired:
		u.led.HandleExpired(at, conn, st.Handle)
		u.count("HandleExpired")
		if st.RunID == "" {
			u.mark(check.MarkAdmissionExpiredBeforeStart)
		}
	}
}

// sampleCapacity reports the daemon's accounting after each machine step.
// Executors that are neither active nor idle (closing after a release,
// or kept after a failed close) count as closing.
func (n *daemonNode) sampleCapacity(now time.Time) {
	c := n.m.Capacity()
	l := n.d.cfg.Limits
	closing := max(c.Executors-c.Active-c.Idle, 0)
	n.u.led.CapacitySample(n.u.lt(now), string(n.d.id), check.Capacity{
		Active: c.Active, Idle: c.Idle, Closing: closing,
		ActiveMax: l.ActiveMax, IdleMax: l.ExecutorsMax - l.ActiveMax,
	})
	n.u.count("CapacitySample")
}
