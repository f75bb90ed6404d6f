package world

import (
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// observeInbound records what Core receives on the wire, before the
// machine sees it: done and error decoded, cancel receipts Core acts on,
// steering refusals (which allow one resend) and preparation statuses
// (revisions applied, stale ones ignored). Which cancel receipt Core acts
// on is decided from Core's own frames (the latest prompt_cancel of the
// run on this connection) and its durable record, not its live view.
func (n *coreNode) observeInbound(conn core.ConnID, f wire.Frame) {
	u := n.u
	at := u.lt(u.w.Now())
	switch p := f.Payload.(type) {
	case wire.Done:
		u.led.TerminalObserved(at, check.TerminalDone, f.ID, check.ObservedOnWire)
		u.count("DoneObserved")
		if c := n.cancels[f.ID]; c != nil && c.conn == conn && !c.decided {
			u.mark(check.MarkCancelRacedDone)
		}
	case wire.RunError:
		u.led.TerminalObserved(at, check.TerminalError, f.ID, check.ObservedOnWire)
		u.count("ErrorObserved")
	case wire.InteractionDecisionAck:
		c := n.cancels[f.ID]
		if c == nil || c.conn != conn || c.decided || c.answered || p.DeliveryID != c.delivery || n.terminal(f.ID) {
			return
		}
		if !p.Applied && p.ErrorCode == wire.CancelNotReady {
			c.answered = true // this attempt is answered; a retry follows
		} else {
			c.decided = true
		}
		u.led.CancelAckObserved(at, f.ID, p.Applied)
		u.count("CancelAckObserved")
	case wire.PromptSteerAck:
		if p.ErrorCode == "not_ready" || p.ErrorCode == "busy" {
			n.resends[steerKey(f.ID, p.InputID)]++
		}
	case wire.PreparationStatus:
		if p.State == wire.StateRejected && p.ErrorCode == "preparation_capacity" {
			if sess, ok := n.prepSession[f.ID]; ok {
				u.capacityRefused[sess] = true
			}
		}
		n.observeStatus(conn, f.ID, p)
	}
}

// cancelSent is Core's latest prompt_cancel of a run: its connection and
// delivery ID; answered after a not_ready receipt, decided after any
// other.
type cancelSent struct {
	conn              core.ConnID
	delivery          string
	answered, decided bool
}

// terminal reports whether Core's durable record of the run's turn is
// terminal, or names another run.
func (n *coreNode) terminal(run string) bool {
	rec, ok := n.u.store.Memory.Turn(turnOfRun(run))
	return !ok || rec.RunID != run || rec.State.Terminal()
}

// observeStatus records a preparation status Core will apply by the
// gateway's rule for a status stream, followed from the wire: the stream
// opens with Core's execution_prepare on its connection and closes on a
// terminal state; a resource status applies when it names the stream's
// first handle with a revision above the last one applied. A stale or
// duplicate one is marked as ignored.
func (n *coreNode) observeStatus(conn core.ConnID, reqID string, st wire.PreparationStatus) {
	sm := n.streams[reqID]
	if sm == nil || sm.conn != conn || sm.closed || st.State == wire.StateRejected || st.Handle == "" || st.Revision == 0 {
		return
	}
	if sm.handle != "" && st.Handle != sm.handle {
		return
	}
	u := n.u
	if st.Revision <= sm.revision {
		u.mark(check.MarkStaleRevisionIgnored)
		return
	}
	sm.handle, sm.revision = st.Handle, st.Revision
	switch st.State {
	case wire.StateStarted, wire.StateReleased, wire.StateExpired, wire.StateFailed:
		sm.closed = true
	}
}

// statusStream is one preparation request's status stream as Core's
// frames and the statuses delivered to it show it.
type statusStream struct {
	conn     core.ConnID
	handle   string
	revision uint64
	closed   bool
}

// observeOutbound records Core's frames to devices: run starts and input
// deliveries. Capability and configuration are judged from the wire by
// the ledger's frame oracles.
func (n *coreNode) observeOutbound(e core.Send) {
	u := n.u
	at := u.lt(u.w.Now())
	switch p := e.Frame.Payload.(type) {
	case wire.ExecutionPrepare:
		n.prepSession[e.Frame.ID] = p.SessionID
		n.streams[e.Frame.ID] = &statusStream{conn: e.Conn}
	case wire.ExecutionStart:
		turn := turnOfRun(p.RunID)
		dev := n.deviceOf(e.Conn)
		u.led.RunStartSent(at, turn, p.RunID, dev, connName(e.Conn), p.Handle)
		u.count("RunStartSent")
		if sess := n.prepSession[e.Frame.ID]; u.capacityRefused[sess] {
			delete(u.capacityRefused, sess)
			u.mark(check.MarkCapacityRejectionThenSuccess)
		}
	case wire.PromptCancel:
		n.cancels[e.Frame.ID] = &cancelSent{conn: e.Conn, delivery: p.DeliveryID}
		u.cancelSent(e.Conn, e.Frame.ID, n.deviceOf(e.Conn))
		u.crashAfterCancel(e.Frame.ID)
	case wire.WorkspaceExport:
		if p.Step == wire.StepCancel {
			u.exportCancelSent(e.Conn)
		}
	case wire.EnvironmentQuiesce:
		u.suspensionRequested(e.Conn, "quiesce/"+p.SuspendID)
	case wire.EnvironmentResume:
		u.suspensionRequested(e.Conn, "resume/"+p.SuspendID)
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
