package check

import (
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

const wsDev = "d1"

func writeStep(l *Ledger, at time.Duration, id string, step string) {
	l.Wire(wev(WireDelivered, at, 1, CoreNode, wsDev, id, wire.WorkspaceWrite{Step: step}))
}

func writeAnswer(l *Ledger, at time.Duration, id string, r wire.WorkspaceWriteResult) {
	l.Wire(wev(WireSent, at, 1, wsDev, CoreNode, id, r))
}

var (
	wsReady   = wire.WorkspaceWriteResult{Outcome: wire.OutcomeReady}
	wsRefused = wire.WorkspaceWriteResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.WriteInvalidRequest}
)

// TestTransferExpiryOracle: a transfer without its commit is refused
// invalid_request exactly at its 195 s expiry; a refusal before it (with
// no frame of it arriving then), another code, or none by the deadline
// is a violation; a commit, an answer to one of its frames, the
// connection ending and the daemon dying each end it.
func TestTransferExpiryOracle(t *testing.T) {
	const e = 195 * time.Second
	begin := func() *Ledger {
		l := NewLedger()
		writeStep(l, time.Second, "m", wire.StepBegin)
		writeAnswer(l, time.Second, "m", wsReady)
		return l
	}
	l := begin()
	writeAnswer(l, time.Second+e, "m", wsRefused)
	tick(l, 2*e)
	wantClean(t, l)
	wantDecided(t, l, TimerTransferExpiry, 1)

	l = begin()
	writeAnswer(l, time.Second+e-time.Millisecond, "m", wsRefused)
	wantViolation(t, l, CheckTimingTransferExpiry, "with no frame of it arriving then")

	l = begin()
	writeAnswer(l, time.Second+e, "m", wire.WorkspaceWriteResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.WriteCapacity})
	wantViolation(t, l, CheckTimingTransferExpiry, "want invalid_request")

	l = begin()
	tick(l, 2*e)
	wantViolation(t, l, CheckTimingTransferExpiry, "past its 3m15s expiry")

	l = begin()
	writeAnswer(l, 2*time.Second, "m", wsReady) // a repeated begin keeps the first deadline
	tick(l, time.Second+e+time.Millisecond)
	wantViolation(t, l, CheckTimingTransferExpiry, "at 3m16s")

	l = begin()
	writeStep(l, 5*time.Second, "m", wire.StepChunk)
	writeAnswer(l, 5*time.Second, "m", wsRefused) // an invalid chunk drops it now
	tick(l, 2*e)
	wantClean(t, l)
	wantDecided(t, l, TimerTransferExpiry, 0)

	for name, end := range map[string]func(*Ledger){
		"commit": func(l *Ledger) { writeStep(l, 3*time.Second, "m", wire.StepCommit) },
		"conn lost": func(l *Ledger) {
			l.Wire(WireEvent{At: ns(3 * time.Second), Kind: WireLost, Conn: 1, From: wsDev, To: CoreNode})
		},
		"crash": func(l *Ledger) { l.NodeCrashed(ns(3*time.Second), wsDev) },
	} {
		l = begin()
		end(l)
		tick(l, 2*e)
		if vs := violationsOf(l, CheckTimingTransferExpiry); len(vs) > 0 {
			t.Errorf("%s: %v", name, vs)
		}
	}

	l = NewLedger()
	l.TimerConfigured(wsDev, TimerTransferExpiry, 40*time.Millisecond)
	writeAnswer(l, time.Second, "m", wsReady)
	writeAnswer(l, time.Second+40*time.Millisecond, "m", wsRefused)
	wantClean(t, l)
	wantDecided(t, l, TimerTransferExpiry, 1)
}

// TestReaderCloseRetryOracle: after the n-th failed close in a row the
// next close reaches the Harness exactly 1 s·2^(n-1) later (at most
// 30 s); earlier, or none by then, is a violation; a confirmed close or
// the daemon dying owes nothing.
func TestReaderCloseRetryOracle(t *testing.T) {
	const s = time.Second
	fail := func(l *Ledger, at time.Duration) { l.WorkspaceClosed(ns(at), wsDev, "r1", false) }
	call := func(l *Ledger, at time.Duration) { l.WorkspaceCloseCalled(ns(at), wsDev, "r1") }

	l := NewLedger()
	call(l, 10*s)
	fail(l, 10*s+5*time.Millisecond)
	call(l, 11*s+5*time.Millisecond)
	fail(l, 11*s+9*time.Millisecond)
	call(l, 13*s+9*time.Millisecond) // 2 s after the second failure
	l.WorkspaceClosed(ns(13*s+20*time.Millisecond), wsDev, "r1", true)
	tick(l, 100*s)
	wantClean(t, l)
	wantDecided(t, l, TimerReaderCloseRetry, 2)

	l = NewLedger()
	fail(l, 10*s)
	call(l, 10*s+500*time.Millisecond)
	wantViolation(t, l, CheckTimingCloseRetry, "retried the close of reader r1 at 10.5s, 500ms after its failure at 10s: before its 1s backoff ended")

	l = NewLedger()
	fail(l, 10*s)
	tick(l, 12*s)
	wantViolation(t, l, CheckTimingCloseRetry, "did not retry")

	l = NewLedger()
	fail(l, 10*s)
	l.NodeCrashed(ns(10*s+time.Millisecond), wsDev)
	tick(l, 60*s)
	wantClean(t, l)

	l = NewLedger()
	for i := 1; i <= 7; i++ {
		if got, want := l.backoff(wsDev, TimerReaderCloseRetry, i), min(s<<(i-1), 30*s); got != int64(want) {
			t.Errorf("backoff after %d failures: %s, want %s", i, time.Duration(got), want)
		}
	}
}
