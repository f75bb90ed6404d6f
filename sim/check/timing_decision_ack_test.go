package check

import (
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// decisionSent: Core records interaction i1 of turn t1 delivering with
// delivery d1 and sends its decision at 1 s; its receipt wait ends at 16 s.
func decisionSent() *Ledger {
	l := NewLedger()
	l.CoreInteraction(ns(time.Second), "t1", "i1", "delivering", "d1")
	l.Wire(wev(WireSent, time.Second, 1, "core", "dev", "i1", wire.PermissionDecision{DeliveryID: "d1", Approved: true}))
	return l
}

func TestDecisionAckUnknownAtSendPlus15s(t *testing.T) {
	l := decisionSent()
	l.CoreInteraction(ns(16*time.Second), "t1", "i1", "unknown", "d1")
	tick(l, 20*time.Second)
	wantClean(t, l)
	wantDecided(t, l, TimerDecisionAck, 1)
}

func TestDecisionAckNeverDecidedIsCaught(t *testing.T) {
	l := decisionSent()
	tick(l, 17*time.Second)
	wantViolation(t, l, CheckTimingDecisionAck, "no receipt for decision d1 by 16s")
}

func TestDecisionAckLateIsCaught(t *testing.T) {
	l := decisionSent()
	l.CoreInteraction(ns(21*time.Second), "t1", "i1", "unknown", "d1") // a 20 s wait
	wantViolation(t, l, CheckTimingDecisionAck, "but Core did not record it unknown then")
}

func TestDecisionAckEarlyIsCaught(t *testing.T) {
	l := decisionSent()
	l.CoreInteraction(ns(11*time.Second), "t1", "i1", "unknown", "d1") // a 10 s wait
	tick(l, 20*time.Second)
	wantViolation(t, l, CheckTimingDecisionAck, "before its 15s receipt wait ended")
}

func TestDecisionAckDecidedOrExcused(t *testing.T) {
	cases := map[string]func(l *Ledger){
		"receipt in time": func(l *Ledger) {
			l.Wire(wev(WireDelivered, 15*time.Second, 1, "dev", "core", "i1", wire.InteractionDecisionAck{DeliveryID: "d1", Applied: true}))
			l.CoreInteraction(ns(15*time.Second), "t1", "i1", "applied", "d1")
		},
		"turn finished": func(l *Ledger) {
			l.CoreInteraction(ns(5*time.Second), "t1", "i1", "unknown", "d1")
			l.TurnFinished(ns(5*time.Second), "t1", "r1", TurnCompleted, "")
		},
		"connection closed": func(l *Ledger) {
			l.Wire(WireEvent{At: ns(5 * time.Second), Kind: WireClosed, Conn: 1, From: "dev", To: "core"})
			l.CoreInteraction(ns(5*time.Second), "t1", "i1", "unknown", "d1")
		},
	}
	for name, script := range cases {
		t.Run(name, func(t *testing.T) {
			l := decisionSent()
			script(l)
			tick(l, 20*time.Second)
			if vs := violationsOf(l, CheckTimingDecisionAck); len(vs) > 0 {
				t.Fatalf("unexpected: %v", vs)
			}
			wantDecided(t, l, TimerDecisionAck, 0)
		})
	}
}

func TestDecisionAckOnAnotherConnectionDoesNotDecide(t *testing.T) {
	l := decisionSent()
	l.Wire(wev(WireDelivered, 5*time.Second, 2, "dev", "core", "i1", wire.InteractionDecisionAck{DeliveryID: "d1", Applied: true}))
	tick(l, 17*time.Second)
	wantViolation(t, l, CheckTimingDecisionAck, "no receipt for decision d1")
}

// TestDecisionAckIgnoresCopiesBesideCoresAttempt: a conflicting copy under
// a delivery ID Core never recorded (a duplication fault beside Core's
// send) opens no wait; Core's own attempt still does.
func TestDecisionAckIgnoresCopiesBesideCoresAttempt(t *testing.T) {
	l := decisionSent()
	l.Wire(wev(WireSent, time.Second, 1, "core", "dev", "i1", wire.PermissionDecision{DeliveryID: "dup:d1"}))
	l.CoreInteraction(ns(16*time.Second), "t1", "i1", "unknown", "d1")
	tick(l, 40*time.Second)
	wantClean(t, l)
	wantDecided(t, l, TimerDecisionAck, 1)
}
