package check

import (
	"errors"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// coreConnOpen opens connection 1 from d1 at 0 with one frame at 10 s.
func coreConnOpen() *Ledger {
	l := NewLedger()
	l.Wire(WireEvent{At: 0, Kind: WireOpened, Conn: 1, From: "d1", To: "core"})
	l.Wire(wev(WireDelivered, 10*time.Second, 1, "d1", "core", "r1", wire.Delta{Delta: "x"}))
	return l
}

func closedByCore(at time.Duration) WireEvent {
	return WireEvent{At: ns(at), Kind: WireClosed, Conn: 1, From: "core", To: "core"}
}

func TestConnIdleClosedAtSixtySeconds(t *testing.T) {
	l := coreConnOpen()
	l.Wire(closedByCore(70 * time.Second))
	tick(l, 80*time.Second)
	wantClean(t, l)
	wantDecided(t, l, TimerConnIdle, 1)
}

func TestConnIdleEarlyCloseIsCaught(t *testing.T) {
	l := coreConnOpen()
	l.Wire(closedByCore(65 * time.Second)) // a 55 s timeout
	wantViolation(t, l, CheckTimingConnIdle, "before the 1m0s idle timeout")
}

func TestConnIdleNeverClosedIsCaught(t *testing.T) {
	l := coreConnOpen()
	tick(l, 71*time.Second)
	wantViolation(t, l, CheckTimingConnIdle, "did not close it at 1m10s")
}

func TestConnIdleEarlyCloseWithReason(t *testing.T) {
	t.Run("invalid frame", func(t *testing.T) {
		l := coreConnOpen()
		l.Wire(WireEvent{At: ns(20 * time.Second), Kind: WireDelivered, Conn: 1, From: "d1", To: "core",
			Raw: []byte("{"), DecodeErr: errors.New("bad heartbeat")})
		l.Wire(closedByCore(20 * time.Second))
		wantClean(t, l)
	})
	t.Run("replaced by a newer connection", func(t *testing.T) {
		l := coreConnOpen()
		l.Wire(WireEvent{At: ns(30 * time.Second), Kind: WireOpened, Conn: 2, From: "d1", To: "core"})
		l.Wire(closedByCore(30 * time.Second))
		wantClean(t, l)
	})
}

func TestHeartbeatQuietConnectionKeptAliveDecides(t *testing.T) {
	l := coreConnOpen()
	l.Wire(wev(WireDelivered, 50*time.Second, 1, "d1", "core", "", wire.Heartbeat{}))
	l.Wire(wev(WireDelivered, 75*time.Second, 1, "d1", "core", "", wire.Heartbeat{})) // 65 s without data
	tick(l, 80*time.Second)
	wantClean(t, l)
	wantDecided(t, l, TimerHeartbeat, 1)
}

// daemonConnOpen: d1 learns connection 1 is open at 1 s.
func daemonConnOpen() *Ledger {
	l := NewLedger()
	l.Wire(WireEvent{At: ns(time.Second), Kind: WireOpened, Conn: 1, From: "core", To: "d1"})
	return l
}

func heartbeat(at time.Duration) WireEvent {
	return wev(WireSent, at, 1, "d1", "core", "", wire.Heartbeat{})
}

func TestHeartbeatCadence(t *testing.T) {
	l := daemonConnOpen()
	for _, at := range []time.Duration{1, 16, 31, 46} {
		l.Wire(heartbeat(at * time.Second))
	}
	l.Wire(WireEvent{At: ns(50 * time.Second), Kind: WireClosed, Conn: 1, From: "core", To: "d1"})
	tick(l, 200*time.Second)
	wantClean(t, l)
}

func TestHeartbeatEarlyIsCaught(t *testing.T) {
	l := daemonConnOpen()
	l.Wire(heartbeat(time.Second))
	l.Wire(heartbeat(15 * time.Second)) // a 14 s cadence
	wantViolation(t, l, CheckTimingHeartbeat, "before its cadence allowed")
}

func TestHeartbeatMissingIsCaught(t *testing.T) {
	l := daemonConnOpen()
	l.Wire(heartbeat(time.Second))
	tick(l, 17*time.Second) // due at 16 s
	wantViolation(t, l, CheckTimingHeartbeat, "sent no heartbeat on open connection 1 at 16s")
}

func TestHeartbeatNotSentAtOpenIsCaught(t *testing.T) {
	l := daemonConnOpen()
	tick(l, 2*time.Second)
	wantViolation(t, l, CheckTimingHeartbeat, "at 1s")
}

func TestHeartbeatConfiguredCadence(t *testing.T) {
	l := NewLedger()
	l.TimerConfigured("d1", TimerHeartbeat, 50*time.Second)
	l.Wire(WireEvent{At: 0, Kind: WireOpened, Conn: 1, From: "core", To: "d1"})
	l.Wire(heartbeat(0))
	l.Wire(heartbeat(50 * time.Second))
	tick(l, 60*time.Second)
	wantClean(t, l)
}

// A heartbeat that changes the declaration comes when the change happens,
// between the periodic ones, whose cadence it does not move; a repeat of
// the same declaration between them is early.
func TestHeartbeatDeclarationChangeMayComeEarly(t *testing.T) {
	declare := func(at time.Duration, available bool) WireEvent {
		return wev(WireSent, at, 1, "d1", "core", "", wire.Heartbeat{SupportedAgentKinds: []wire.SupportedAgentKind{
			{Kind: "sim", Available: available}}})
	}
	l := daemonConnOpen()
	l.Wire(declare(time.Second, true))
	l.Wire(declare(7*time.Second, false)) // the kind went away
	l.Wire(declare(16*time.Second, false))
	l.Wire(declare(31*time.Second, false))
	l.Wire(WireEvent{At: ns(40 * time.Second), Kind: WireClosed, Conn: 1, From: "core", To: "d1"})
	tick(l, 100*time.Second)
	wantClean(t, l)

	l = daemonConnOpen()
	l.Wire(declare(time.Second, true))
	l.Wire(declare(7*time.Second, true)) // nothing changed: early
	wantViolation(t, l, CheckTimingHeartbeat, "before its cadence allowed")
}
