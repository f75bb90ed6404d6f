package check

import (
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// cancelSent sends the first prompt_cancel of run r1 at 1 s; the Run is
// still starting, so it is refused not_ready and resent at 3 s.
func cancelSent() *Ledger {
	l := NewLedger()
	l.Wire(wev(WireSent, time.Second, 1, "core", "d1", "r1", wire.PromptCancel{DeliveryID: "cancel:r1"}))
	l.Wire(wev(WireDelivered, 2*time.Second, 1, "d1", "core", "r1", wire.InteractionDecisionAck{DeliveryID: "cancel:r1", ErrorCode: wire.CancelNotReady}))
	l.Wire(wev(WireSent, 3*time.Second, 1, "core", "d1", "r1", wire.PromptCancel{DeliveryID: "cancel:r1:2"}))
	return l
}

func TestCancelConfirmationUnconfirmedAtFirstSendPlus15s(t *testing.T) {
	l := cancelSent()
	l.TurnFinished(ns(16*time.Second), "t1", "r1", TurnFailed, "cancel_unconfirmed")
	tick(l, 20*time.Second)
	wantClean(t, l)
	wantDecided(t, l, TimerCancelConfirm, 1)
}

func TestCancelConfirmationWindowRestartedByRetryIsCaught(t *testing.T) {
	l := cancelSent()
	l.TurnFinished(ns(18*time.Second), "t1", "r1", TurnFailed, "cancel_unconfirmed")
	wantViolation(t, l, CheckTimingCancelConfirm, "did not record cancel_unconfirmed then (the turn was still waiting)")
}

func TestCancelConfirmationEarlyIsCaught(t *testing.T) {
	l := cancelSent()
	l.TurnFinished(ns(15*time.Second), "t1", "r1", TurnFailed, "cancel_unconfirmed") // a 14 s window
	tick(l, 20*time.Second)
	wantViolation(t, l, CheckTimingCancelConfirm, "before the 15s confirmation window ended")
}

func TestCancelConfirmationNeverDecidedIsCaught(t *testing.T) {
	l := cancelSent()
	tick(l, 17*time.Second)
	wantViolation(t, l, CheckTimingCancelConfirm, "no cancel receipt for run r1 by 16s")
}

func TestCancelConfirmationEarlyWithReason(t *testing.T) {
	cases := map[string]func(l *Ledger){
		"cancel_failed receipt": func(l *Ledger) {
			l.Wire(wev(WireDelivered, 13*time.Second, 1, "d1", "core", "r1", wire.InteractionDecisionAck{DeliveryID: "cancel:r1:2", ErrorCode: wire.CancelFailed}))
			l.TurnFinished(ns(13*time.Second), "t1", "r1", TurnFailed, "cancel_unconfirmed")
		},
		"connection closed in the same instant": func(l *Ledger) {
			l.TurnFinished(ns(5*time.Second), "t1", "r1", TurnFailed, "cancel_unconfirmed")
			l.Wire(WireEvent{At: ns(5 * time.Second), Kind: WireClosed, Conn: 1, From: "d1", To: "core"})
		},
		"applied receipt": func(l *Ledger) {
			l.Wire(wev(WireDelivered, 6*time.Second, 1, "d1", "core", "r1", wire.InteractionDecisionAck{DeliveryID: "cancel:r1:2", Applied: true}))
			l.TurnFinished(ns(6*time.Second), "t1", "r1", TurnCancelled, "")
		},
	}
	for name, script := range cases {
		t.Run(name, func(t *testing.T) {
			l := cancelSent()
			script(l)
			tick(l, 20*time.Second)
			wantClean(t, l)
			wantDecided(t, l, TimerCancelConfirm, 0)
		})
	}
}

func TestCancelConfirmationStaleReceiptDoesNotDecide(t *testing.T) {
	l := cancelSent()
	// a receipt for the first attempt, already answered, decides nothing
	l.Wire(wev(WireDelivered, 4*time.Second, 1, "d1", "core", "r1", wire.InteractionDecisionAck{DeliveryID: "cancel:r1", Applied: true}))
	tick(l, 17*time.Second)
	wantViolation(t, l, CheckTimingCancelConfirm, "no cancel receipt")
}

func TestCancelPendingAtACoreCrashEndsUnconfirmed(t *testing.T) {
	for code, bad := range map[string]bool{"cancel_unconfirmed": false, "event_stream_incomplete": true} {
		l := cancelSent()
		l.NodeCrashed(ns(5*time.Second), "core")
		l.TurnFinished(ns(6*time.Second), "t1", "r1", TurnFailed, code)
		tick(l, 30*time.Second)
		if bad {
			wantViolation(t, l, CheckTimingCancelConfirm, `its restart finished the turn "event_stream_incomplete", want cancel_unconfirmed`)
		} else {
			wantClean(t, l)
		}
	}
}

func TestCancelFailedEndsUnconfirmedEvenAfterDone(t *testing.T) {
	l := cancelSent()
	l.Wire(wev(WireDelivered, 4*time.Second, 1, "d1", "core", "r1", wire.Done{}))
	l.Wire(wev(WireDelivered, 5*time.Second, 1, "d1", "core", "r1", wire.InteractionDecisionAck{DeliveryID: "cancel:r1:2", ErrorCode: wire.CancelFailed}))
	l.TurnFinished(ns(5*time.Second), "t1", "r1", TurnCompleted, "")
	tick(l, 30*time.Second)
	wantViolation(t, l, CheckTimingCancelConfirm, `a cancel_failed receipt for run r1 reached Core, and Core finished the turn ""`)
}

// TestCancelFailedAfterAnAnsweredAttemptIsStale: Core acts on an attempt's
// first receipt only; a cancel_failed for an attempt already answered
// not_ready (its retry is on its way) decides nothing.
func TestCancelFailedAfterAnAnsweredAttemptIsStale(t *testing.T) {
	l := cancelSent()
	l.Wire(wev(WireDelivered, 3*time.Second, 1, "d1", "core", "r1", wire.InteractionDecisionAck{DeliveryID: "cancel:r1:2", ErrorCode: wire.CancelNotReady}))
	l.Wire(wev(WireDelivered, 3500*time.Millisecond, 1, "d1", "core", "r1", wire.Done{}))
	l.Wire(wev(WireDelivered, 3500*time.Millisecond, 1, "d1", "core", "r1", wire.InteractionDecisionAck{DeliveryID: "cancel:r1:2", ErrorCode: wire.CancelFailed}))
	l.Wire(wev(WireSent, 4*time.Second, 1, "core", "d1", "r1", wire.PromptCancel{DeliveryID: "cancel:r1:3"}))
	l.Wire(wev(WireDelivered, 5*time.Second, 1, "d1", "core", "r1", wire.InteractionDecisionAck{DeliveryID: "cancel:r1:3", ErrorCode: wire.CancelRunInactive}))
	l.TurnFinished(ns(5*time.Second), "t1", "r1", TurnCompleted, "")
	tick(l, 30*time.Second)
	wantClean(t, l)
}
