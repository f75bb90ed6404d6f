package world

import (
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// observeInbound records what Core receives on the wire, before the
// machine sees it: done and error decoded, cancel receipts Core acts on,
// steering refusals (which allow one resend) and preparation statuses
// (revisions applied, stale ones ignored).
func (n *coreNode) observeInbound(conn core.ConnID, f wire.Frame) {
	u := n.u
	at := u.lt(u.w.Now())
	switch p := f.Payload.(type) {
	case wire.Done:
		u.led.DoneObserved(at, f.ID, check.ObservedOnWire)
		u.count("DoneObserved")
		if t, ok := n.m.Turn(turnOfRun(f.ID)); ok && t.RunID == f.ID && t.Cancel == core.CancelRequested {
			u.mark(check.MarkCancelRacedDone)
		}
	case wire.RunError:
		u.led.ErrorObserved(at, f.ID, check.ObservedOnWire)
		u.count("ErrorObserved")
	case wire.InteractionDecisionAck:
		t, ok := n.m.Turn(turnOfRun(f.ID))
		if ok && t.RunID == f.ID && t.Cancel == core.CancelRequested && !t.State.Terminal() &&
			p.DeliveryID == t.CancelDeliveryID && n.deviceOf(conn) != "" {
			u.led.CancelAckObserved(at, f.ID, p.Applied)
			u.count("CancelAckObserved")
		}
	case wire.PromptSteerAck:
		if p.ErrorCode == "not_ready" || p.ErrorCode == "busy" {
			n.resends[steerKey(f.ID, p.InputID)]++
		}
	case wire.PreparationStatus:
		if p.State == wire.StateRejected && p.ErrorCode == "preparation_capacity" {
			for _, pv := range n.m.Preparations() {
				if pv.RequestID == f.ID && pv.Turn != "" {
					u.capacityRefused[pv.Turn] = true
				}
			}
		}
		n.observeStatus(conn, f.ID, p)
	}
}

// observeStatus records a preparation status Core will apply (a resource
// state of the stream's handle with a higher revision), and marks one it
// ignores as stale or duplicate.
func (n *coreNode) observeStatus(conn core.ConnID, reqID string, st wire.PreparationStatus) {
	var prep *core.PreparationView
	for _, p := range n.m.Preparations() {
		if p.RequestID == reqID && p.Conn == conn {
			p := p
			prep = &p
		}
	}
	if prep == nil || st.State == wire.StateRejected || st.Handle == "" || st.Revision == 0 {
		return
	}
	if prep.Handle != "" && st.Handle != prep.Handle {
		return
	}
	u := n.u
	if st.Revision <= prep.Revision {
		u.mark(check.MarkStaleRevisionIgnored)
		return
	}
	u.led.RevisionApplied(u.lt(u.w.Now()), connName(conn), st.Handle, st.Revision)
	u.count("RevisionApplied")
}

// observeOutbound records Core's frames to devices: run starts and input
// deliveries. Capability and configuration are judged from the wire by
// the ledger's frame oracles.
func (n *coreNode) observeOutbound(e core.Send) {
	u := n.u
	at := u.lt(u.w.Now())
	switch p := e.Frame.Payload.(type) {
	case wire.ExecutionStart:
		turn := turnOfRun(p.RunID)
		dev := n.deviceOf(e.Conn)
		u.led.RunStartSent(at, turn, p.RunID, dev, connName(e.Conn), p.Handle)
		u.count("RunStartSent")
		if u.capacityRefused[turn] {
			delete(u.capacityRefused, turn)
			u.mark(check.MarkCapacityRejectionThenSuccess)
		}
	case wire.PromptSteer:
		k := steerKey(e.Frame.ID, p.InputID)
		if n.sent[k] && n.resends[k] > 0 {
			n.resends[k]--
			return
		}
		n.sent[k] = true
		if _, ok := u.deliveredAt[k]; !ok {
			u.deliveredAt[k] = u.w.Now()
		}
		u.led.InputDelivered(at, e.Frame.ID, p.InputID)
		u.count("InputDelivered")
	}
}
