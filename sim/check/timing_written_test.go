package check

import (
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// steerDelivered starts the delivery of input 1 of run r1 (turn t1) on
// connection 1 at 1 s.
func steerDelivered() *Ledger {
	l := NewLedger()
	l.RunStartSent(ns(500*time.Millisecond), "t1", "r1", "d1", "c1", "h1")
	l.Wire(wev(WireSent, time.Second, 1, "core", "d1", "r1", wire.PromptSteer{InputID: "1", DurableReceipt: true}))
	return l
}

func TestWrittenWaitUnknownAtThirtySeconds(t *testing.T) {
	l := steerDelivered()
	// a not_ready refusal and its resend do not restart the window
	l.Wire(wev(WireDelivered, 2*time.Second, 1, "d1", "core", "r1", wire.PromptSteerAck{InputID: "1", ErrorCode: wire.SteerNotReady}))
	l.Wire(wev(WireSent, 3*time.Second, 1, "core", "d1", "r1", wire.PromptSteer{InputID: "1", DurableReceipt: true}))
	l.InputOutcome(ns(31*time.Second), "r1", "1", InputUnknown)
	tick(l, 40*time.Second)
	wantClean(t, l)
	wantDecided(t, l, TimerWritten, 1)
}

func TestWrittenWaitUnknownLateIsCaught(t *testing.T) {
	l := steerDelivered()
	l.InputOutcome(ns(32*time.Second), "r1", "1", InputUnknown) // a 31 s window
	wantViolation(t, l, CheckTimingWritten, "did not record it unknown")
	wantDecided(t, l, TimerWritten, 0)
}

func TestWrittenWaitNeverUnknownIsCaught(t *testing.T) {
	l := steerDelivered()
	tick(l, 31*time.Second+1)
	wantViolation(t, l, CheckTimingWritten, "had no written receipt by 31s")
}

func TestWrittenWaitUnknownEarlyIsCaught(t *testing.T) {
	l := steerDelivered()
	l.InputOutcome(ns(29*time.Second), "r1", "1", InputUnknown) // a 28 s window
	tick(l, 40*time.Second)
	wantViolation(t, l, CheckTimingWritten, "before the 30s written window ended")
}

func TestWrittenWaitEarlyUnknownWithReason(t *testing.T) {
	cases := map[string]func(l *Ledger){
		"connection closed in the same instant": func(l *Ledger) {
			l.InputOutcome(ns(10*time.Second), "r1", "1", InputUnknown)
			l.Wire(WireEvent{At: ns(10 * time.Second), Kind: WireClosed, Conn: 1, From: "core", To: "core"})
		},
		"outcome_unknown receipt": func(l *Ledger) {
			l.Wire(wev(WireDelivered, 11*time.Second, 1, "d1", "core", "r1", wire.PromptSteerAck{InputID: "1", ErrorCode: wire.SteerOutcomeUnknown}))
			l.InputOutcome(ns(11*time.Second), "r1", "1", InputUnknown)
		},
		"done for the run": func(l *Ledger) {
			l.Wire(wev(WireDelivered, 4*time.Second, 1, "d1", "core", "r1", wire.Done{}))
			l.InputOutcome(ns(4*time.Second), "r1", "1", InputUnknown)
		},
		"turn failed cancel_unconfirmed in the same instant": func(l *Ledger) {
			l.InputOutcome(ns(16*time.Second), "r1", "1", InputUnknown)
			l.TurnFinished(ns(16*time.Second), "t1", "r1", TurnFailed, "cancel_unconfirmed")
		},
		"Core restart": func(l *Ledger) {
			l.CoreRestarted(ns(6*time.Second), nil)
			l.InputOutcome(ns(6*time.Second), "r1", "1", InputUnknown)
		},
	}
	for name, script := range cases {
		t.Run(name, func(t *testing.T) {
			l := steerDelivered()
			script(l)
			tick(l, 40*time.Second)
			wantClean(t, l)
			wantDecided(t, l, TimerWritten, 0)
		})
	}
}

func TestWrittenWaitWrittenInTimeStopsTheWindow(t *testing.T) {
	l := steerDelivered()
	l.Wire(wev(WireDelivered, 5*time.Second, 1, "d1", "core", "r1", wire.PromptSteerAck{InputID: "1", Written: true}))
	tick(l, 40*time.Second)
	wantClean(t, l)
}

func TestWrittenWaitAcceptedAfterUnknownIsCaught(t *testing.T) {
	l := steerDelivered()
	l.InputOutcome(ns(31*time.Second), "r1", "1", InputUnknown)
	l.InputOutcome(ns(35*time.Second), "r1", "1", InputAccepted)
	wantViolation(t, l, CheckTimingWritten, "accepted at 35s after recording it unknown at 31s")
}

func TestWrittenWaitSteerAcceptedAfterUnknownIsCaught(t *testing.T) {
	l := steerDelivered()
	l.InputOutcome(ns(31*time.Second), "r1", "1", InputUnknown)
	l.SteerInput(ns(time.Second), ns(36*time.Second), "s1", "t1", "1", InputAccepted)
	wantViolation(t, l, CheckTimingWritten, "returned accepted at 36s although Core recorded it unknown at 31s")
}

func TestWrittenWaitEarlyUnknownFailingTheTurnIsCaught(t *testing.T) {
	l := steerDelivered()
	l.InputOutcome(ns(30*time.Second), "r1", "1", InputUnknown) // a 29 s window
	l.TurnFinished(ns(30*time.Second), "t1", "r1", TurnFailed, "input_outcome_unknown")
	tick(l, 40*time.Second)
	wantViolation(t, l, CheckTimingWritten, "before the 30s written window ended")
}

func TestWrittenInputNeverUnknown(t *testing.T) {
	l := steerDelivered()
	l.Wire(wev(WireDelivered, 5*time.Second, 1, "d1", "core", "r1", wire.PromptSteerAck{InputID: "1", Written: true}))
	l.InputOutcome(ns(31*time.Second), "r1", "1", InputUnknown)
	tick(l, 40*time.Second)
	wantViolation(t, l, CheckTimingWritten, "although its written receipt reached Core at 5s")
}

func TestWrittenOnAnotherConnectionDoesNotBindTheInput(t *testing.T) {
	l := steerDelivered()
	l.Wire(wev(WireDelivered, 5*time.Second, 2, "d1", "core", "r1", wire.PromptSteerAck{InputID: "1", Written: true}))
	l.InputOutcome(ns(31*time.Second), "r1", "1", InputUnknown)
	tick(l, 40*time.Second)
	for _, v := range l.Violations() {
		if v.Check == CheckTimingWritten && strings.Contains(v.Message, "although its written receipt") {
			t.Fatalf("a receipt from another connection bound the input: %s", v.Message)
		}
	}
}

func TestWrittenWaitRunningOutFailsTheTurnForTheInput(t *testing.T) {
	for code, bad := range map[string]bool{codeInputOutcomeUnknown: false, "event_stream_incomplete": true} {
		l := steerDelivered()
		l.InputOutcome(ns(31*time.Second), "r1", "1", InputUnknown)
		l.TurnFinished(ns(31*time.Second), "t1", "r1", "failed", code)
		tick(l, 40*time.Second)
		if bad {
			wantViolation(t, l, CheckTimingWritten, `finished the turn "event_stream_incomplete", want input_outcome_unknown`)
		} else {
			wantClean(t, l)
		}
	}
}
