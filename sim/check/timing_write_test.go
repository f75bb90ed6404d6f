package check

import (
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// writeCalled: input 1 of run r1 reaches d1 on connection 1 and its
// native write is called at 1 s.
func writeCalled() *Ledger {
	l := NewLedger()
	l.Wire(wev(WireDelivered, time.Second, 1, "core", "d1", "r1", wire.PromptSteer{InputID: "1", DurableReceipt: true}))
	l.WriteCalled(ns(time.Second), "d1", "r1", "1")
	return l
}

func steerAck(at time.Duration, ack wire.PromptSteerAck) WireEvent {
	ack.InputID = "1"
	return wev(WireSent, at, 1, "d1", "core", "r1", ack)
}

func TestNativeWriteBudgetUnknownAtTenSeconds(t *testing.T) {
	l := writeCalled()
	l.Wire(steerAck(11*time.Second, wire.PromptSteerAck{ErrorCode: wire.SteerOutcomeUnknown}))
	l.WriteReturned(ns(14*time.Second), "d1", "r1", "1", WriteWritten)
	l.Wire(steerAck(14*time.Second, wire.PromptSteerAck{Written: true, Accepted: true})) // accepted may follow
	tick(l, 20*time.Second)
	wantClean(t, l)
	wantDecided(t, l, TimerNativeWrite, 1)
}

func TestNativeWriteBudgetEarlyUnknownIsCaught(t *testing.T) {
	l := writeCalled()
	l.Wire(steerAck(10*time.Second, wire.PromptSteerAck{ErrorCode: wire.SteerOutcomeUnknown})) // a 9 s budget
	wantViolation(t, l, CheckTimingNativeWrite, "with the write still within it")
}

func TestNativeWriteBudgetNotEnforcedIsCaught(t *testing.T) {
	l := writeCalled()
	tick(l, 12*time.Second)
	wantViolation(t, l, CheckTimingNativeWrite, "had not returned by 11s (10s) but no outcome_unknown receipt")
}

func TestNativeWriteBudgetWrittenAfterItIsCaught(t *testing.T) {
	l := writeCalled()
	l.Wire(steerAck(11*time.Second, wire.PromptSteerAck{ErrorCode: wire.SteerOutcomeUnknown}))
	l.WriteReturned(ns(13*time.Second), "d1", "r1", "1", WriteWritten)
	l.Wire(steerAck(13*time.Second, wire.PromptSteerAck{Written: true}))
	wantViolation(t, l, CheckTimingNativeWrite, "after its native write budget ran out")
}

func TestNativeWriteBudgetWriteInTime(t *testing.T) {
	cases := map[string]func(l *Ledger){
		"written": func(l *Ledger) {
			l.WriteReturned(ns(9*time.Second), "d1", "r1", "1", WriteWritten)
			l.Wire(steerAck(9*time.Second, wire.PromptSteerAck{Written: true}))
		},
		"the write's own unknown outcome": func(l *Ledger) {
			l.WriteReturned(ns(3*time.Second), "d1", "r1", "1", WriteUnknown)
			l.Wire(steerAck(3*time.Second, wire.PromptSteerAck{ErrorCode: wire.SteerOutcomeUnknown}))
		},
		"connection lost": func(l *Ledger) {
			l.Wire(WireEvent{At: ns(5 * time.Second), Kind: WireClosed, Conn: 1, From: "core", To: "d1"})
		},
		"daemon crashed": func(l *Ledger) { l.NodeCrashed(ns(5*time.Second), "d1") },
	}
	for name, script := range cases {
		t.Run(name, func(t *testing.T) {
			l := writeCalled()
			script(l)
			tick(l, 20*time.Second)
			wantClean(t, l)
			wantDecided(t, l, TimerNativeWrite, 0)
		})
	}
}

func TestReceiptSendBudget(t *testing.T) {
	l := NewLedger()
	l.ReceiptBudget(ns(time.Second), "d1", wire.TypePromptSteerAck, 5*time.Second)
	l.ReceiptBudget(ns(time.Second), "d1", wire.TypeDelta, 0) // not a receipt
	wantClean(t, l)
	for _, typ := range receiptTypes {
		l := NewLedger()
		l.ReceiptBudget(ns(time.Second), "d1", typ, 6*time.Second)
		wantViolation(t, l, CheckTimingReceiptSend, "with a send budget of 6s, not 5s")
	}
}

func TestReceiptSendBudgetDecidesWhenTheShellEndsAnOverrunSend(t *testing.T) {
	for _, c := range []struct {
		name      string
		closeAt   time.Duration
		delivered bool
		want      int
	}{
		{"closed at the budget", 6 * time.Second, false, 1},
		{"closed later", 7 * time.Second, false, 0},
		{"receipt arrived", 6 * time.Second, true, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := NewLedger()
			ev := steerAck(time.Second, wire.PromptSteerAck{Written: true})
			l.Wire(ev)
			if c.delivered {
				ev.Kind, ev.At = WireDelivered, ns(2*time.Second)
				l.Wire(ev)
			}
			l.Wire(WireEvent{At: ns(c.closeAt), Kind: WireClosed, Conn: 1, From: "d1", To: "d1"})
			wantDecided(t, l, TimerReceiptSend, c.want)
		})
	}
}
