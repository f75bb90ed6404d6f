package check

import (
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// restartedAfter crashes Core at 5 s, runs feed (the turns Core's restart
// finishes) at 6 s and ends the restart.
func restartedAfter(l *Ledger, feed func(at int64)) {
	l.NodeCrashed(ns(5*time.Second), "core")
	feed(ns(6 * time.Second))
	l.CoreRestarted(ns(6*time.Second), nil)
}

func restartViolations(l *Ledger) []string { return violationsOf(l, CheckRestartOutcome) }

func marked(l *Ledger, m Mark) bool {
	for _, c := range l.Marks() {
		if c.Mark == m {
			return c.Count > 0
		}
	}
	return false
}

func TestRestartOutcomeCancelPendingIsUnconfirmed(t *testing.T) {
	cases := map[string]func(l *Ledger){
		"no receipt":     func(*Ledger) {},
		"only not_ready": func(*Ledger) {}, // cancelSent's first attempt was refused not_ready
		"done before the crash": func(l *Ledger) {
			l.Wire(wev(WireDelivered, 4*time.Second, 1, "d1", "core", "r1", wire.Done{}))
		},
		"duplicate receipt of the answered attempt": func(l *Ledger) {
			l.Wire(wev(WireDelivered, 4*time.Second, 1, "d1", "core", "r1", wire.InteractionDecisionAck{DeliveryID: "cancel:r1", Applied: true}))
		},
		"not_ready for the latest attempt": func(l *Ledger) {
			l.Wire(wev(WireDelivered, 4*time.Second, 1, "d1", "core", "r1", wire.InteractionDecisionAck{DeliveryID: "cancel:r1:2", ErrorCode: wire.CancelNotReady}))
		},
	}
	for name, before := range cases {
		t.Run(name, func(t *testing.T) {
			for code, bad := range map[string]bool{"cancel_unconfirmed": false, "event_stream_incomplete": true, "delivery_unknown": true} {
				l := cancelSent()
				before(l)
				restartedAfter(l, func(at int64) { l.TurnFinished(at, "t1", "r1", TurnFailed, code) })
				got := restartViolations(l)
				if bad {
					wantViolation(t, l, CheckRestartOutcome, "the cancel of run r1 was sent and not confirmed")
				} else if len(got) > 0 {
					t.Fatalf("%s: unexpected %v", code, got)
				}
				if !marked(l, MarkCoreRestartCancelPending) {
					t.Fatalf("%s: mark %s not reached", code, MarkCoreRestartCancelPending)
				}
			}
		})
	}
}

func TestRestartOutcomeDecidedCancelIsNotUnconfirmed(t *testing.T) {
	l := cancelSent()
	l.Wire(wev(WireDelivered, 4*time.Second, 1, "d1", "core", "r1", wire.InteractionDecisionAck{DeliveryID: "cancel:r1:2", ErrorCode: "run_inactive"}))
	restartedAfter(l, func(at int64) { l.TurnFinished(at, "t1", "r1", TurnFailed, "event_stream_incomplete") })
	if got := restartViolations(l); len(got) > 0 {
		t.Fatalf("unexpected %v", got)
	}
	if marked(l, MarkCoreRestartCancelPending) {
		t.Fatalf("mark %s reached without a pending cancel", MarkCoreRestartCancelPending)
	}

	l = cancelSent()
	l.Wire(wev(WireDelivered, 4*time.Second, 1, "d1", "core", "r1", wire.InteractionDecisionAck{DeliveryID: "cancel:r1:2", ErrorCode: "run_inactive"}))
	restartedAfter(l, func(at int64) { l.TurnFinished(at, "t1", "r1", TurnFailed, "cancel_unconfirmed") })
	wantViolation(t, l, CheckRestartOutcome, `no cancel of run "r1" awaited its receipt`)
}

func TestRestartOutcomeCodeSet(t *testing.T) {
	for _, c := range []struct{ state, code string }{{TurnCompleted, ""}, {TurnCancelled, ""}, {TurnFailed, "preparation_start_failed"}} {
		l := NewLedger()
		restartedAfter(l, func(at int64) { l.TurnFinished(at, "t1", "r1", c.state, c.code) })
		wantViolation(t, l, CheckRestartOutcome, "want failed with one of cancel_unconfirmed, delivery_unknown, event_stream_incomplete")
	}
	for _, code := range []string{"delivery_unknown", "event_stream_incomplete"} {
		l := NewLedger()
		restartedAfter(l, func(at int64) { l.TurnFinished(at, "t1", "r1", TurnFailed, code) })
		if got := restartViolations(l); len(got) > 0 {
			t.Fatalf("%s: unexpected %v", code, got)
		}
	}
}

// Turns finished once the restart is over are not the restart's.
func TestRestartOutcomeJudgesOnlyTheRestart(t *testing.T) {
	l := cancelSent()
	restartedAfter(l, func(int64) {})
	l.TurnFinished(ns(7*time.Second), "t2", "r2", TurnCompleted, "")
	l.TurnFinished(ns(8*time.Second), "t1", "r1", TurnFailed, "cancel_unconfirmed")
	if got := restartViolations(l); len(got) > 0 {
		t.Fatalf("unexpected %v", got)
	}
	// a cancel whose turn finished before the crash is not pending at it
	l = cancelSent()
	l.TurnFinished(ns(4*time.Second), "t1", "r1", TurnFailed, "cancel_unconfirmed")
	restartedAfter(l, func(int64) {})
	if marked(l, MarkCoreRestartCancelPending) {
		t.Fatalf("mark %s reached for a finished turn", MarkCoreRestartCancelPending)
	}
}

// A prompt_cancel the network lost as it left (a broken connection) was
// still sent as far as Core knows: its Turn is cancel_unconfirmed.
func TestRestartOutcomeLostCancelIsPending(t *testing.T) {
	for code, bad := range map[string]bool{"cancel_unconfirmed": false, "event_stream_incomplete": true} {
		l := NewLedger()
		l.Wire(wev(WireLost, time.Second, 1, "core", "d1", "r1", wire.PromptCancel{DeliveryID: "cancel:r1"}))
		restartedAfter(l, func(at int64) { l.TurnFinished(at, "t1", "r1", TurnFailed, code) })
		if got := restartViolations(l); bad {
			wantViolation(t, l, CheckRestartOutcome, "the cancel of run r1 was sent and not confirmed")
		} else if len(got) > 0 {
			t.Fatalf("%s: unexpected %v", code, got)
		}
	}
}
