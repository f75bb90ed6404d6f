package check

import (
	"slices"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// Checks: timing_native_write_budget and timing_receipt_send_budget
// (rules.go), from the Harness's ground truth and the wire. A write that
// returned in time is answered by its own result, never by the budget.

// nativeWrite is a durable write's budget from its call: settled by the
// write returning or an accepted receipt by the deadline; its outcome is
// the daemon's first outcome_unknown receipt.
type nativeWrite struct {
	device, run, input string
	returned           int64 // -1 while outstanding
	result             string
	timerWindow
}

type writeState struct {
	keyed[nativeWrite]                   // device\x00run\x00input
	steerConn          map[string]uint64 // device\x00run\x00input → connection of its prompt_steer
	inFlight           map[uint64][]sentReceipt
}

// sentReceipt is a receipt a daemon sent that has not arrived yet.
type sentReceipt struct {
	at    int64
	frame *byte // identity of the frame's bytes, shared from send to delivery
}

func writeKey(device, run, input string) string { return device + "\x00" + run + "\x00" + input }

// overBudget reports a write that had not returned by its deadline; one
// returning exactly at it is a tie either outcome may win.
func (w *nativeWrite) overBudget() bool { return w.returned < 0 || w.returned > w.deadline }

// WriteCalled records the Harness receiving a native durable write of an
// input of run (ground truth).
func (l *Ledger) WriteCalled(at int64, device, run, input string) {
	l.advance(at)
	s := &l.timing.writes
	k := writeKey(device, run, input)
	if s.byKey[k] != nil {
		return // a second write is input_delivered_twice's business
	}
	w := &nativeWrite{device: device, run: run, input: input, returned: -1}
	s.put(k, w)
	l.startWindow(&w.timerWindow, device, TimerNativeWrite, s.steerConn[k], at, l.timer(device, TimerNativeWrite), func() {
		l.due(&w.timerWindow, "native write of input %s of run %s on %s called at %s had not returned by %s (%s) but no outcome_unknown receipt was sent then",
			w.input, w.run, w.device, time.Duration(w.from), time.Duration(w.deadline), w.length())
	})
}

// WriteReturned records the Harness answering a durable write: written,
// failed or unknown (ground truth).
func (l *Ledger) WriteReturned(at int64, device, run, input, outcome string) {
	l.advance(at)
	if w := l.timing.writes.byKey[writeKey(device, run, input)]; w != nil && w.returned < 0 {
		w.returned, w.result = at, outcome
		w.settled = w.settled || !w.overBudget()
	}
}

// receiptSendWire follows receipts in flight: the receipt send budget
// decides when a daemon closes a connection exactly 5 s after sending a
// receipt that had not arrived.
func (l *Ledger) receiptSendWire(ev WireEvent) {
	s := &l.timing.writes
	switch {
	case ev.Kind == WireSent && ev.From != CoreNode && ev.HasFrame() && isReceipt(ev.Frame.Payload.MessageType()):
		made(&s.inFlight)[ev.Conn] = append(s.inFlight[ev.Conn], sentReceipt{at: ev.At, frame: &ev.Raw[0]})
	case ev.Kind == WireDelivered && ev.To == CoreNode && len(ev.Raw) > 0:
		q := s.inFlight[ev.Conn]
		if i := slices.IndexFunc(q, func(r sentReceipt) bool { return r.frame == &ev.Raw[0] }); i >= 0 {
			s.inFlight[ev.Conn] = slices.Delete(q, i, i+1)
		}
	case ev.Kind == WireClosed && ev.From == ev.To && ev.From != CoreNode:
		budget := l.timer(ev.From, TimerReceiptSend)
		for _, r := range s.inFlight[ev.Conn] {
			if r.at+budget == ev.At {
				l.decide(TimerReceiptSend)
				break
			}
		}
		delete(s.inFlight, ev.Conn)
	case ev.Kind == WireClosed || ev.Kind == WireLost:
		delete(s.inFlight, ev.Conn)
	}
}

// receiptTypes are the sends the documents bound by the receipt budget.
var receiptTypes = []string{wire.TypePromptSteerAck, wire.TypeInteractionDecisionAck, wire.TypePreparationStatus}

func isReceipt(frameType string) bool { return slices.Contains(receiptTypes, frameType) }

func (l *Ledger) writeAckSent(ev WireEvent, ack wire.PromptSteerAck) {
	w := l.timing.writes.byKey[writeKey(ev.From, ev.Frame.ID, ack.InputID)]
	if w == nil {
		return
	}
	switch {
	case ack.ErrorCode == wire.SteerOutcomeUnknown:
		w.show(ev.At)
		ownResult := w.returned >= 0 && w.returned <= ev.At && w.result == "unknown"
		if ev.At < w.deadline && !ownResult {
			l.report(&w.timerWindow, ev.At, "%s sent outcome_unknown for input %s of run %s at %s, %s into its %s native write budget, with the write still within it",
				w.device, w.input, w.run, vtime(ev.At), w.elapsed(ev.At), w.length())
		}
	case ack.Accepted:
		if !w.overdue(ev.At) {
			w.settled = true
		}
	case ack.Written && ack.ErrorCode == "":
		if w.overdue(ev.At) && w.overBudget() {
			l.report(&w.timerWindow, ev.At, "%s sent written for input %s of run %s at %s, after its native write budget ran out at %s with the write outstanding",
				w.device, w.input, w.run, vtime(ev.At), vtime(w.deadline))
		}
	}
}

// ReceiptBudget records the budget a daemon put on one frame it sends
// (the Send effect's bound): receipts and statuses carry the documents' 5 s.
func (l *Ledger) ReceiptBudget(at int64, device, frameType string, budget time.Duration) {
	l.advance(at)
	if want := time.Duration(l.timer(device, TimerReceiptSend)); isReceipt(frameType) && budget != want {
		l.violate(at, CheckTimingReceiptSend, "%s sent %s at %s with a send budget of %s, not %s",
			device, frameType, vtime(at), budget, want)
	}
}
