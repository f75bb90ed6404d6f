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
			u.count("daemon")
		}
	case wire.InteractionDecisionAck:
		u.led.CancelAckSent(at, e.Frame.ID, p.Applied)
		if p.Outcome != nil && p.Outcome.Usage != nil {
			u.led.UsageSent(at, e.Frame.ID, check.UsageFromWire(p.Outcome.Usage))
		}
		u.count("daemon")
	case wire.Done:
		u.led.DoneSent(at, e.Frame.ID)
		if p.Usage != nil {
			u.led.UsageSent(at, e.Frame.ID, check.UsageFromWire(p.Usage))
		}
		u.count("daemon")
	case wire.RunError:
		u.led.ErrorSent(at, e.Frame.ID)
		u.count("daemon")
	case wire.UsageUpdate:
		u.led.UsageSent(at, e.Frame.ID, check.UsageFromWire(&p.Usage))
		u.count("daemon")
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
		u.count("daemon")
	}
	switch st.State {
	case wire.StateStarting:
		u.led.HandleStarted(at, conn, st.Handle, st.RunID)
	case wire.StateReleased, wire.StateFailed:
		u.led.HandleReleased(at, conn, st.Handle)
	case wire.StateExpired:
		u.led.HandleExpired(at, conn, st.Handle)
		if st.RunID == "" {
			u.mark(check.MarkAdmissionExpiredBeforeStart)
		}
	default:
		return
	}
	u.count("daemon")
}

// sampleCapacity reports the daemon's accounting after each machine step.
// Executors that are neither active nor idle (closing after a release,
// or kept after a failed close) count as closing.
func (n *daemonNode) sampleCapacity(now time.Time) {
	c := n.m.Snapshot().Capacity
	l := n.d.cfg.Limits
	closing := max(c.Executors-c.Active-c.Idle, 0)
	n.u.led.CapacitySample(n.u.lt(now), string(n.d.id), check.Capacity{
		Active: c.Active, Idle: c.Idle, Closing: closing,
		ActiveMax: l.ActiveMax, IdleMax: l.ExecutorsMax - l.ActiveMax,
	})
	n.u.count("daemon")
}
