package check

import (
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// reconnectWorld: d1 and d2 declared the Session's kind at 0 s; d1's
// connection is lost at 10 s.
func reconnectWorld() *Ledger {
	l := NewLedger()
	l.SessionCreated(0, "s1", testSpec())
	l.TurnSubmitted(0, "s1", "t1")
	hb := wire.Heartbeat{TS: 1, SupportedAgentKinds: []wire.SupportedAgentKind{allKind()}}
	for i, d := range []string{"d1", "d2"} {
		c := uint64(i + 1)
		l.Wire(wev(WireOpened, 0, c, d, "core", "", nil))
		l.Wire(wev(WireDelivered, time.Millisecond, c, d, "core", "", hb))
	}
	l.Wire(wev(WireClosed, 10*time.Second, 1, "d1", "core", "", nil))
	return l
}

func TestReconnectWindowFailureWhileAwayIsCaught(t *testing.T) {
	l := reconnectWorld()
	l.TurnFinished(ns(20*time.Second), "t1", "", TurnFailed, "capability_unsupported")
	wantViolation(t, l, CheckReconnectWindow, "device d1 of the pool has no connection")
}

func TestReconnectWindowFailureAfterTheWindowIsClean(t *testing.T) {
	l := reconnectWorld()
	l.TurnFinished(ns(10*time.Second+ReconnectWindowOf), "t1", "", TurnFailed, "capability_unsupported")
	if vs := violationsOf(l, CheckReconnectWindow); len(vs) > 0 {
		t.Fatalf("unexpected: %v", vs)
	}
}

// A connection Core's shell refuses at once never replaces the current
// one.
func TestReconnectWindowRefusedConnectionIsIgnored(t *testing.T) {
	l := reconnectWorld()
	l.Wire(wev(WireOpened, 11*time.Second, 3, "d2", "core", "", nil))
	l.Wire(WireEvent{At: ns(11 * time.Second), Kind: WireClosed, Conn: 3, From: "core", To: "core", Reason: "incompatible_version"})
	l.Wire(wev(WireOpened, 12*time.Second, 4, "d1", "core", "", nil))
	l.Wire(wev(WireDelivered, 12*time.Second, 4, "d1", "core", "",
		wire.Heartbeat{TS: 2, SupportedAgentKinds: []wire.SupportedAgentKind{allKind()}}))
	l.TurnFinished(ns(13*time.Second), "t1", "", TurnFailed, "capability_unsupported")
	if vs := violationsOf(l, CheckReconnectWindow); len(vs) > 0 {
		t.Fatalf("unexpected: %v", vs)
	}
}
