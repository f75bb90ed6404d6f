package check

import (
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// status is a preparation status d1 sends on connection 1 for handle h1.
func status(at time.Duration, rev uint64, state string) WireEvent {
	return wev(WireSent, at, 1, "d1", "core", "p1", wire.PreparationStatus{Handle: "h1", ExecutorID: "e1", Revision: rev, State: state})
}

// granted grants h1 at 10 s (documented expiry: 5 min).
func grantedLedger() *Ledger {
	l := NewLedger()
	l.Wire(status(10*time.Second, 1, wire.StatePreparing))
	return l
}

const grantPlusExpiry = 10*time.Second + 5*time.Minute

func TestAdmissionExpiresFiveMinutesAfterGrant(t *testing.T) {
	l := grantedLedger()
	l.Wire(status(grantPlusExpiry, 2, wire.StateExpired))
	tick(l, grantPlusExpiry+time.Second)
	wantClean(t, l)
	wantDecided(t, l, TimerAdmission, 1)
}

func TestAdmissionExpiredEarlyIsCaught(t *testing.T) {
	l := grantedLedger()
	l.Wire(status(10*time.Second+4*time.Minute, 2, wire.StateExpired))
	wantViolation(t, l, CheckTimingAdmission, "before its 5m0s expiry")
}

func TestAdmissionNotExpiredIsCaught(t *testing.T) {
	l := grantedLedger()
	// a retry republishes revision 1 later: the deadline stays the grant's
	l.Wire(status(2*time.Minute, 1, wire.StatePreparing))
	l.Wire(status(grantPlusExpiry+time.Minute, 2, wire.StateExpired)) // measured from the retry
	wantViolation(t, l, CheckTimingAdmission, "still live at its deadline 5m10s")
}

func TestAdmissionStartedAfterExpiryIsCaught(t *testing.T) {
	l := grantedLedger()
	l.Wire(status(grantPlusExpiry, 2, wire.StateStarting))
	wantViolation(t, l, CheckTimingAdmission, "at or after its admission expired at 5m10s")
}

func TestAdmissionEndedInTime(t *testing.T) {
	cases := map[string]func(l *Ledger){
		"started":  func(l *Ledger) { l.Wire(status(20*time.Second, 2, wire.StateStarting)) },
		"released": func(l *Ledger) { l.Wire(status(20*time.Second, 2, wire.StateReleased)) },
		"connection closed": func(l *Ledger) {
			l.Wire(WireEvent{At: ns(20 * time.Second), Kind: WireClosed, Conn: 1, From: "core", To: "d1"})
		},
		"republished on another connection": func(l *Ledger) {
			l.Wire(WireEvent{At: ns(20 * time.Second), Kind: WireClosed, Conn: 1, From: "core", To: "d1"})
			l.Wire(wev(WireSent, 30*time.Second, 2, "d1", "core", "p1", wire.PreparationStatus{Handle: "h1", Revision: 1, State: wire.StatePreparing}))
		},
	}
	for name, script := range cases {
		t.Run(name, func(t *testing.T) {
			l := grantedLedger()
			script(l)
			tick(l, 10*time.Minute)
			wantClean(t, l)
		})
	}
}

func TestAdmissionConfiguredExpiry(t *testing.T) {
	l := NewLedger()
	l.TimerConfigured("d1", TimerAdmission, 3*time.Second)
	l.Wire(status(10*time.Second, 1, wire.StatePreparing))
	l.Wire(status(13*time.Second, 2, wire.StateExpired))
	tick(l, 20*time.Second)
	wantClean(t, l)
	wantDecided(t, l, TimerAdmission, 1)
}

// A release that reached the daemon before the deadline ends the expiry:
// released may follow the deadline once the local close is confirmed (a
// read-only profile's close; seed 701689). A release arriving after the
// deadline excuses nothing.
func TestAdmissionReleasedAcrossTheDeadline(t *testing.T) {
	release := func(at time.Duration) WireEvent {
		return wev(WireDelivered, at, 1, "core", "d1", "p1", wire.ExecutionRelease{Handle: "h1"})
	}
	l := grantedLedger()
	l.Wire(release(grantPlusExpiry - time.Millisecond))
	l.Wire(status(grantPlusExpiry+4*time.Millisecond, 2, wire.StateReleased))
	tick(l, grantPlusExpiry+time.Second)
	wantClean(t, l)

	late := grantedLedger()
	late.Wire(release(grantPlusExpiry + time.Millisecond))
	late.Wire(status(grantPlusExpiry+4*time.Millisecond, 2, wire.StateReleased))
	wantViolation(t, late, CheckTimingAdmission, "still live at its deadline")
}

// lateLedger grants h1 at 10 s on a device whose expiry timers come up to
// 10 s late.
func lateLedger() *Ledger {
	l := NewLedger()
	l.TimerLate("d1", TimerAdmission, 10*time.Second)
	l.Wire(status(10*time.Second, 1, wire.StatePreparing))
	return l
}

func TestAdmissionExpiredWithinItsTimerLag(t *testing.T) {
	for _, late := range []time.Duration{0, time.Second, 10 * time.Second} {
		l := lateLedger()
		l.Wire(status(grantPlusExpiry+late, 2, wire.StateExpired))
		tick(l, grantPlusExpiry+time.Minute)
		wantClean(t, l)
		wantDecided(t, l, TimerAdmission, 1)
	}
}

func TestAdmissionExpiredPastItsTimerLagIsCaught(t *testing.T) {
	l := lateLedger()
	l.Wire(status(grantPlusExpiry+11*time.Second, 2, wire.StateExpired))
	wantViolation(t, l, CheckTimingAdmission, "still live 10s after its deadline 5m10s")
}

// A late timer excuses no start: the machine reads its own clock.
func TestAdmissionStartedWithinTheTimerLagIsCaught(t *testing.T) {
	l := lateLedger()
	l.Wire(status(grantPlusExpiry+time.Second, 2, wire.StateStarting))
	wantViolation(t, l, CheckTimingAdmission, "at or after its admission expired at 5m10s")
}
