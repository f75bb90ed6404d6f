package check

import (
	"strconv"
	"testing"
	"time"

	"pgregory.net/rapid"

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

// suspensionsAwaitedByMap counts as SuspensionsAwaited did, over every
// suspension's latest request.
func suspensionsAwaitedByMap(l *Ledger) int {
	n := 0
	for _, w := range l.timing.suspensions.byKey { //tidy:sorted a count
		if w.live() && w.outcome < 0 {
			n++
		}
	}
	return n
}

// SuspensionsAwaited counts the latest request of each suspension still
// awaited, through requests repeated for a suspension, replies, closes,
// unknown records and a Core restart, asked after every event.
func TestSuspensionsAwaitedCount(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		l := NewLedger()
		at := time.Second
		for step := range rapid.IntRange(1, 40).Draw(t, "steps") {
			at += time.Duration(rapid.IntRange(0, 3).Draw(t, "gap")) * time.Second
			su := rapid.SampledFrom([]string{"su-1", "su-2", "su-3"}).Draw(t, "suspend")
			conn := uint64(rapid.IntRange(1, 2).Draw(t, "conn"))
			id := su + "." + strconv.Itoa(step)
			switch rapid.IntRange(0, 5).Draw(t, "event") {
			case 0, 1:
				l.Wire(wev(WireSent, at, conn, "core", "d1", id, wire.EnvironmentQuiesce{EnvironmentID: "env", SuspendID: su}))
			case 2:
				l.Wire(wev(WireSent, at, conn, "core", "d1", id, wire.EnvironmentResume{EnvironmentID: "env", SuspendID: su}))
			case 3:
				if w := l.timing.suspensions.byKey[su]; w != nil {
					l.Wire(wev(WireDelivered, at, w.conn, "d1", "core", w.request,
						wire.EnvironmentQuiesced{EnvironmentID: "env", SuspendID: su, Accepted: true}))
				}
			case 4:
				l.Wire(WireEvent{At: ns(at), Kind: WireClosed, Conn: conn, From: "d1", To: "core"})
			case 5:
				if rapid.Bool().Draw(t, "crash") {
					l.NodeCrashed(ns(at), "core")
				} else {
					l.SuspensionUnknown(ns(at), su)
				}
			}
			if got, want := l.SuspensionsAwaited(), suspensionsAwaitedByMap(l); got != want {
				t.Fatalf("step %d: SuspensionsAwaited %d, want %d", step, got, want)
			}
		}
	})
}
