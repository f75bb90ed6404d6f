package check

import (
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// cancelArrived: prompt_cancel for run r1 reaches d1 at 1 s and a second
// one (another attempt) joins the wait at 3 s.
func cancelArrived() *Ledger {
	l := NewLedger()
	l.Wire(wev(WireDelivered, time.Second, 1, "core", "d1", "r1", wire.PromptCancel{DeliveryID: "cancel:r1"}))
	l.Wire(wev(WireDelivered, 3*time.Second, 1, "core", "d1", "r1", wire.PromptCancel{DeliveryID: "cancel:r1:2"}))
	return l
}

func cancelAck(at time.Duration, delivery string, ack wire.InteractionDecisionAck) WireEvent {
	ack.DeliveryID = delivery
	return wev(WireSent, at, 1, "d1", "core", "r1", ack)
}

func TestSettlementWaitFailsWaitersAtTenSeconds(t *testing.T) {
	l := cancelArrived()
	l.Wire(cancelAck(11*time.Second, "cancel:r1", wire.InteractionDecisionAck{ErrorCode: wire.CancelFailed}))
	l.Wire(cancelAck(11*time.Second, "cancel:r1:2", wire.InteractionDecisionAck{ErrorCode: wire.CancelFailed}))
	tick(l, 20*time.Second)
	wantClean(t, l)
	wantDecided(t, l, TimerSettlementWait, 1)
}

func TestSettlementWaitEarlyFailureIsCaught(t *testing.T) {
	l := cancelArrived()
	l.Wire(cancelAck(10*time.Second, "cancel:r1", wire.InteractionDecisionAck{ErrorCode: wire.CancelFailed})) // a 9 s wait
	wantViolation(t, l, CheckTimingSettlementWait, "though the Harness had not failed the cancel")
}

func TestSettlementWaitUnansweredIsCaught(t *testing.T) {
	l := cancelArrived()
	l.Wire(cancelAck(11*time.Second, "cancel:r1", wire.InteractionDecisionAck{ErrorCode: wire.CancelFailed}))
	tick(l, 12*time.Second) // the second waiter was left out
	wantViolation(t, l, CheckTimingSettlementWait, "left cancel cancel:r1:2 of run r1 (arrived 3s) unanswered at 11s")
}

func TestSettlementWaitAnsweredInTime(t *testing.T) {
	cases := map[string]func(l *Ledger){
		"applied": func(l *Ledger) {
			l.Wire(cancelAck(4*time.Second, "cancel:r1", wire.InteractionDecisionAck{Applied: true}))
			l.Wire(cancelAck(4*time.Second, "cancel:r1:2", wire.InteractionDecisionAck{Applied: true}))
		},
		"the Harness failed the cancel": func(l *Ledger) {
			l.CancelFailed(ns(2*time.Second), "d1", "r1")
			l.Wire(cancelAck(4*time.Second, "cancel:r1", wire.InteractionDecisionAck{ErrorCode: wire.CancelFailed}))
			l.Wire(cancelAck(4*time.Second, "cancel:r1:2", wire.InteractionDecisionAck{ErrorCode: wire.CancelFailed}))
		},
		"connection lost": func(l *Ledger) {
			l.Wire(WireEvent{At: ns(5 * time.Second), Kind: WireLost, Conn: 1, From: "d1", To: "core"})
		},
	}
	for name, script := range cases {
		t.Run(name, func(t *testing.T) {
			l := cancelArrived()
			script(l)
			tick(l, 20*time.Second)
			wantClean(t, l)
			wantDecided(t, l, TimerSettlementWait, 0)
		})
	}
}

func TestSettlementWaitRefusedCancelNeverWaits(t *testing.T) {
	l := NewLedger()
	l.Wire(wev(WireDelivered, time.Second, 1, "core", "d1", "r1", wire.PromptCancel{DeliveryID: "cancel:r1"}))
	l.Wire(cancelAck(time.Second, "cancel:r1", wire.InteractionDecisionAck{ErrorCode: wire.CancelNotReady}))
	tick(l, 20*time.Second)
	wantClean(t, l)
}
