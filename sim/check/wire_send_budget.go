package check

import (
	"slices"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// Checks: receipt_send_budget and timing_receipt_send_budget (rules.go),
// from the wire and the budget a daemon put on each send. Against the
// device's declared ReceiptSendBudget, a receipt reaching Core only after
// t+L+budget was stuck behind a stalled or slow link past its budget. The
// timer decides when a daemon closes a connection exactly its budget after
// sending a receipt that had not arrived.
const CheckReceiptBudget = "receipt_send_budget"

// receiptTypes are the sends the documents bound by the receipt budget.
var receiptTypes = []string{wire.TypePromptSteerAck, wire.TypeInteractionDecisionAck, wire.TypePreparationStatus}

func isReceipt(frameType string) bool { return slices.Contains(receiptTypes, frameType) }

// budgetFrame is a receipt a daemon sent that was neither delivered nor
// lost yet.
type budgetFrame struct {
	device, what string
	sentAt       int64
	frame        *byte // identity of the frame's bytes, shared by every event of one frame
	connEnded    bool  // its connection closed or broke since it was sent: the timer no longer reads it
}

type budgetConn struct {
	dialeeOpen, dialerOpen int64 // when each end learned it open (0: not yet)
	daemonClosedAt         int64 // when the daemon closed its end (0: open)
	inFlight               []budgetFrame
}

type budgetState struct {
	conns map[uint64]*budgetConn
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

// arrived takes the receipt that ev delivered or lost off c.
func (c *budgetConn) arrived(ev WireEvent) (budgetFrame, bool) {
	i := slices.IndexFunc(c.inFlight, func(f budgetFrame) bool { return len(ev.Raw) > 0 && f.frame == &ev.Raw[0] })
	if i < 0 {
		return budgetFrame{}, false
	}
	f := c.inFlight[i]
	c.inFlight = slices.Delete(c.inFlight, i, i+1)
	return f, true
}

func (l *Ledger) observeSendBudget(ev WireEvent) {
	c := entry(made(&l.budget.conns), ev.Conn)
	switch ev.Kind {
	case WireOpened:
		if ev.To == CoreNode {
			c.dialeeOpen = ev.At
		} else {
			c.dialerOpen = ev.At
		}
	case WireSent:
		if ev.From != CoreNode && ev.To == CoreNode && ev.HasFrame() && isReceipt(ev.Frame.Type()) {
			c.inFlight = append(c.inFlight, budgetFrame{device: ev.From, what: ev.Frame.Type() + " " + ev.Frame.ID, sentAt: ev.At, frame: &ev.Raw[0]})
		}
	case WireDelivered:
		if f, ok := c.arrived(ev); ok {
			l.checkBudgetDelivery(ev, c, f)
		}
	case WireLost, WireClosed:
		if ev.Kind == WireLost {
			c.arrived(ev)
		} else if ev.From == ev.To && ev.To != CoreNode {
			l.daemonClosed(ev, c)
		}
		for i := range c.inFlight {
			c.inFlight[i].connEnded = true
		}
	}
}

// daemonClosed: the daemon closed its end of c; closing it exactly its
// budget after sending a receipt still in flight decides the timer.
func (l *Ledger) daemonClosed(ev WireEvent, c *budgetConn) {
	if c.daemonClosedAt == 0 {
		c.daemonClosedAt = ev.At
	}
	budget := l.timer(ev.From, TimerReceiptSend)
	if slices.ContainsFunc(c.inFlight, func(f budgetFrame) bool { return !f.connEnded && f.sentAt+budget == ev.At }) {
		l.decide(TimerReceiptSend)
	}
}

func (l *Ledger) checkBudgetDelivery(ev WireEvent, c *budgetConn, f budgetFrame) {
	lim, ok := l.limits[f.device]
	lat := c.latency()
	if !ok || lim.ReceiptSendBudget <= 0 || lat < 0 {
		return
	}
	deadline := f.sentAt + int64(lim.ReceiptSendBudget)
	if ev.At <= deadline+lat || c.daemonClosedAt != 0 && c.daemonClosedAt <= deadline {
		return
	}
	l.violate(ev.At, CheckReceiptBudget, "%s sent %s on conn %s at %s; it reached Core at %s, past its %s budget plus the %s latency, and the daemon kept the connection open past %s",
		f.device, f.what, connKey(ev.Conn), vtime(f.sentAt), vtime(ev.At), lim.ReceiptSendBudget, vtime(lat), vtime(deadline))
}

// ReceiptBudget records the budget a daemon put on one frame it sends
// (the Send effect's bound): receipts and statuses carry the documents'
// receipt send budget.
func (l *Ledger) ReceiptBudget(at int64, device, frameType string, budget time.Duration) {
	l.advance(at)
	if want := time.Duration(l.timer(device, TimerReceiptSend)); isReceipt(frameType) && budget != want {
		l.violate(at, CheckTimingReceiptSend, "%s sent %s at %s with a send budget of %s, not %s",
			device, frameType, vtime(at), budget, want)
	}
}
