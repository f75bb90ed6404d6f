package check

import (
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// closeFailedTwice: the close of ex1 fails at 1 s; its retry at 2 s fails
// too, so the next is owed at 4 s (1 s doubling).
func closeFailedTwice() *Ledger {
	l := NewLedger()
	l.CloseCalled(ns(500*time.Millisecond), "d1", "ex1")
	l.CloseAnswered(ns(time.Second), "d1", "ex1", false)
	l.CloseCalled(ns(2*time.Second), "d1", "ex1")
	l.CloseAnswered(ns(2*time.Second), "d1", "ex1", false)
	return l
}

func TestCloseRetryBacksOffDoubling(t *testing.T) {
	l := closeFailedTwice()
	l.CloseCalled(ns(4*time.Second), "d1", "ex1")
	l.CloseAnswered(ns(4*time.Second), "d1", "ex1", true)
	tick(l, 10*time.Second)
	wantClean(t, l)
	wantDecided(t, l, TimerCloseRetry, 2)
}

func TestCloseRetryEarlyIsCaught(t *testing.T) {
	l := closeFailedTwice()
	l.CloseCalled(ns(3*time.Second), "d1", "ex1") // the first backoff again
	wantViolation(t, l, CheckTimingExecutorCloseRetry, "before its 2s backoff ended (2 failures in a row)")
}

func TestCloseRetryMissingIsCaught(t *testing.T) {
	l := NewLedger()
	l.CloseAnswered(ns(time.Second), "d1", "ex1", false)
	tick(l, 3*time.Second)
	wantViolation(t, l, CheckTimingExecutorCloseRetry, "d1 did not retry the close of executor ex1 at 2s")
}

func TestCloseRetryBackoffIsCapped(t *testing.T) {
	l := NewLedger()
	at := time.Second
	for n := 1; n <= 7; n++ {
		l.CloseAnswered(ns(at), "d1", "ex1", false)
		at += min(time.Second<<(n-1), 30*time.Second)
		l.CloseCalled(ns(at), "d1", "ex1")
	}
	tick(l, at+time.Minute)
	wantClean(t, l)
	wantDecided(t, l, TimerCloseRetry, 7)
}

func TestCloseRetryDiesWithTheDaemon(t *testing.T) {
	l := NewLedger()
	l.CloseAnswered(ns(time.Second), "d1", "ex1", false)
	l.NodeCrashed(ns(1500*time.Millisecond), "d1")
	tick(l, 5*time.Second)
	wantClean(t, l)
}

// settleUnconfirmed: the settlement wait of run r1 is answered
// unconfirmed at 1 s; the next wait is owed at 2 s.
func settleUnconfirmed() *Ledger {
	l := NewLedger()
	l.SettleCalled(ns(500*time.Millisecond), "d1", "r1")
	l.SettleAnswered(ns(time.Second), "d1", "r1", false)
	return l
}

func TestSettleRetryAtBackoff(t *testing.T) {
	l := settleUnconfirmed()
	l.SettleCalled(ns(2*time.Second), "d1", "r1")
	l.SettleAnswered(ns(2*time.Second), "d1", "r1", true)
	l.Wire(wev(WireSent, 2*time.Second, 1, "d1", "core", "r1", wire.Done{}))
	tick(l, 5*time.Second)
	wantClean(t, l)
	wantDecided(t, l, TimerSettleRetry, 1)
}

func TestSettleRetryEarlyOrMissingIsCaught(t *testing.T) {
	l := settleUnconfirmed()
	l.SettleCalled(ns(1500*time.Millisecond), "d1", "r1")
	wantViolation(t, l, CheckTimingSettleRetry, "before its 1s backoff ended")
	l = settleUnconfirmed()
	tick(l, 3*time.Second)
	wantViolation(t, l, CheckTimingSettleRetry, "did not retry the settlement wait of run r1 at 2s")
}

func TestPublishedWhileUnconfirmedIsCaught(t *testing.T) {
	for name, p := range map[string]wire.Payload{
		"done":           wire.Done{},
		"applied cancel": wire.InteractionDecisionAck{DeliveryID: "cancel:r1", Applied: true},
	} {
		t.Run(name, func(t *testing.T) {
			l := settleUnconfirmed()
			l.Wire(wev(WireSent, time.Second, 1, "d1", "core", "r1", p))
			wantViolation(t, l, CheckTimingSettleRetry, "while its settlement was unconfirmed")
		})
	}
}

func TestRefusedCancelWhileUnconfirmedIsFine(t *testing.T) {
	l := settleUnconfirmed()
	l.Wire(wev(WireSent, time.Second, 1, "d1", "core", "r1", wire.InteractionDecisionAck{DeliveryID: "cancel:r1", ErrorCode: wire.CancelFailed}))
	l.SettleCalled(ns(2*time.Second), "d1", "r1")
	tick(l, 5*time.Second)
	if vs := violationsOf(l, CheckTimingSettleRetry); len(vs) > 0 {
		t.Fatalf("unexpected: %v", vs)
	}
}
