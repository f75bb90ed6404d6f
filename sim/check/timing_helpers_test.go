package check

import (
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// ns converts a duration since the epoch to ledger time.
func ns(d time.Duration) int64 { return int64(d) }

// wev is a network event carrying a decoded frame.
func wev(kind string, at time.Duration, conn uint64, from, to, id string, p wire.Payload) WireEvent {
	return WireEvent{At: ns(at), Kind: kind, Conn: conn, From: from, To: to, Raw: []byte("{}"),
		Frame: wire.Frame{ID: id, Payload: p}}
}

// tick is any network event at at that carries nothing the oracles judge:
// it moves the ledger's clock past earlier deadlines.
func tick(l *Ledger, at time.Duration) {
	l.Wire(WireEvent{At: ns(at), Kind: WireOpened, Conn: 999, From: "elsewhere", To: "nobody"})
}

// wantViolation fails unless check reported exactly one violation whose
// message contains part.
func wantViolation(t *testing.T, l *Ledger, check, part string) {
	t.Helper()
	got := violationsOf(l, check)
	if len(got) != 1 || !strings.Contains(got[0], part) {
		t.Fatalf("%s violations %q, want one containing %q (all: %v)", check, got, part, l.Violations())
	}
}

// wantClean fails on any violation.
func wantClean(t *testing.T, l *Ledger) {
	t.Helper()
	if vs := timedOnly(l.Violations()); len(vs) > 0 {
		t.Fatalf("unexpected violations: %v", vs)
	}
}

// decided is how often timer decided in the ledger's run.
func decided(l *Ledger, timer string) int {
	for _, tc := range l.TimersDecided() {
		if tc.Timer == timer {
			return tc.Count
		}
	}
	return 0
}

func wantDecided(t *testing.T, l *Ledger, timer string, n int) {
	t.Helper()
	if got := decided(l, timer); got != n {
		t.Fatalf("%s decided %d times, want %d", timer, got, n)
	}
}
