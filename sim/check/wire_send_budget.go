package check

import "github.com/turnstile-sim/turnstile/wire"

// Checks: receipt_send_budget (rules.go), the device's declared
// ReceiptSendBudget: from the wire, a receipt reaching Core only after
// t+L+budget was stuck behind a stalled or slow link past its budget.
const CheckReceiptBudget = "receipt_send_budget"

type budgetFrame struct {
	conn         uint64
	device, what string
	sentAt       int64
}

type budgetConn struct {
	dialeeOpen, dialerOpen int64 // when each end learned it open (0: not yet)
	daemonClosedAt         int64 // when the daemon closed its end (0: open)
}

type budgetState struct {
	conns map[uint64]*budgetConn
	// inFlight are budgeted frames sent and neither delivered nor lost,
	// keyed by the identity of their bytes (the network hands the same
	// slice to every event of one frame). Looked up, never ranged.
	inFlight map[*byte]budgetFrame
}

// latency is the connection's one-way latency, from the instants its two
// ends learned it open (the dialee one latency after the dial, the dialer
// two); -1 when not known.
func (c *budgetConn) latency() int64 {
	if c.dialeeOpen == 0 || c.dialerOpen == 0 || c.dialerOpen < c.dialeeOpen {
		return -1
	}
	return c.dialerOpen - c.dialeeOpen
}

func (l *Ledger) observeSendBudget(ev WireEvent) {
	b := &l.budget
	switch ev.Kind {
	case WireOpened:
		c := entry(made(&b.conns), ev.Conn)
		if ev.To == CoreNode {
			c.dialeeOpen = ev.At
		} else {
			c.dialerOpen = ev.At
		}
	case WireClosed:
		if c := entry(made(&b.conns), ev.Conn); ev.From == ev.To && ev.To != CoreNode && c.daemonClosedAt == 0 {
			c.daemonClosedAt = ev.At
		}
	case WireSent:
		if ev.From == CoreNode || ev.To != CoreNode || !ev.HasFrame() {
			break
		}
		switch ev.Frame.Payload.(type) { // the frames that carry the receipt send budget
		case wire.PromptSteerAck, wire.InteractionDecisionAck, wire.PreparationStatus:
			what := ev.Frame.Payload.MessageType() + " " + ev.Frame.ID
			made(&b.inFlight)[&ev.Raw[0]] = budgetFrame{conn: ev.Conn, device: ev.From, sentAt: ev.At, what: what}
		}
	case WireLost:
		if len(ev.Raw) > 0 {
			delete(b.inFlight, &ev.Raw[0])
		}
	case WireDelivered:
		if len(ev.Raw) > 0 {
			l.checkBudgetDelivery(ev)
		}
	}
}

func (l *Ledger) checkBudgetDelivery(ev WireEvent) {
	b := &l.budget
	key := &ev.Raw[0]
	f, ok := b.inFlight[key]
	if !ok {
		return
	}
	delete(b.inFlight, key)
	lim, ok := l.limits[f.device]
	c := entry(made(&b.conns), f.conn)
	lat := c.latency()
	if !ok || lim.ReceiptSendBudget <= 0 || lat < 0 {
		return
	}
	deadline := f.sentAt + int64(lim.ReceiptSendBudget)
	if ev.At <= deadline+lat || c.daemonClosedAt != 0 && c.daemonClosedAt <= deadline {
		return
	}
	l.violate(ev.At, CheckReceiptBudget, "%s sent %s on conn %s at %s; it reached Core at %s, past its %s budget plus the %s latency, and the daemon kept the connection open past %s",
		f.device, f.what, connKey(f.conn), vtime(f.sentAt), vtime(ev.At), lim.ReceiptSendBudget, vtime(lat), vtime(deadline))
}
