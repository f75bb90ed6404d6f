package check

import (
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// quiesceSentAt1s: Core sends suspension su-1's quiesce on c1 at 1 s, so
// its reply is awaited until 31 s.
func quiesceSentAt1s() *Ledger {
	l := NewLedger()
	l.Wire(wev(WireSent, time.Second, 1, "core", "d1", "su-1.q1", wire.EnvironmentQuiesce{EnvironmentID: "env", SuspendID: "su-1"}))
	return l
}

func TestSuspensionUnknownAtTheReplyWait(t *testing.T) {
	l := quiesceSentAt1s()
	l.SuspensionUnknown(ns(31*time.Second), "su-1")
	tick(l, 40*time.Second)
	wantClean(t, l)
	wantDecided(t, l, TimerSuspensionReply, 1)
}

func TestSuspensionUnknownEarlyIsCaught(t *testing.T) {
	l := quiesceSentAt1s()
	l.SuspensionUnknown(ns(20*time.Second), "su-1")
	tick(l, 40*time.Second)
	wantViolation(t, l, CheckTimingSuspensionReply, "before its 30s reply wait ended")
}

func TestSuspensionNeverRecordedUnknownIsCaught(t *testing.T) {
	l := quiesceSentAt1s()
	tick(l, 40*time.Second)
	wantViolation(t, l, CheckTimingSuspensionReply, "did not record the outcome unknown at 31s")
}

func TestSuspensionReplyOrReasonOwesNothing(t *testing.T) {
	cases := map[string]func(l *Ledger){
		"reply": func(l *Ledger) {
			l.Wire(wev(WireDelivered, 5*time.Second, 1, "d1", "core", "su-1.q1",
				wire.EnvironmentQuiesced{EnvironmentID: "env", SuspendID: "su-1", Accepted: true}))
		},
		"connection closed, then recorded unknown": func(l *Ledger) {
			l.Wire(WireEvent{At: ns(5 * time.Second), Kind: WireClosed, Conn: 1, From: "d1", To: "core"})
			l.SuspensionUnknown(ns(5*time.Second), "su-1")
		},
		"Core restarted": func(l *Ledger) {
			l.NodeCrashed(ns(5*time.Second), "core")
			l.SuspensionUnknown(ns(6*time.Second), "su-1")
		},
	}
	for name, script := range cases {
		t.Run(name, func(t *testing.T) {
			l := quiesceSentAt1s()
			script(l)
			tick(l, 40*time.Second)
			if vs := violationsOf(l, CheckTimingSuspensionReply); len(vs) > 0 {
				t.Fatalf("unexpected: %v", vs)
			}
			wantDecided(t, l, TimerSuspensionReply, 0)
		})
	}
}
