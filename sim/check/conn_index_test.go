package check

import (
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// Facts of what the daemon sent leave forged frames out; a prepare that
// reached it counts forged or not, the first one kept.
func TestConnIndexSentAndReached(t *testing.T) {
	l := NewLedger()
	forged := func(ev WireEvent) WireEvent { ev.Forged = true; return ev }
	l.Wire(forged(wev(WireSent, time.Second, 1, "d1", "core", "r1", wire.Done{})))
	l.Wire(forged(wev(WireSent, time.Second, 1, "d1", "core", "p1", wire.PreparationStatus{State: wire.StateReady, Handle: "h0", Revision: 1})))
	l.Wire(forged(wev(WireDelivered, time.Second, 1, "core", "d1", "p1", wire.ExecutionPrepare{SessionID: "s-forged"})))
	l.Wire(wev(WireDelivered, 2*time.Second, 1, "core", "d1", "p1", wire.ExecutionPrepare{SessionID: "s-1"}))
	l.Wire(forged(wev(WireDelivered, 2*time.Second, 1, "core", "d1", "r1", wire.PromptCancel{DeliveryID: "dl-x"})))
	c := l.conn(1)
	if c.device != "d1" || c.run("r1").done != 0 || c.run("r1").cancelled || len(c.granted) > 0 || len(c.cancelled) > 0 {
		t.Fatalf("forged frames taught %+v, run r1 %+v", c, c.run("r1"))
	}
	if got := c.prepared["p1"].SessionID; got != "s-forged" {
		t.Fatalf("first prepare reaching d1 names %q, want the forged one", got)
	}
	l.Wire(wev(WireSent, 3*time.Second, 1, "d1", "core", "p1", wire.PreparationStatus{State: wire.StateReady, Handle: "h1", Revision: 1}))
	l.Wire(wev(WireSent, 4*time.Second, 1, "d1", "core", "p1", wire.PreparationStatus{State: wire.StateStarted, Handle: "h2", Revision: 2, RunID: "r1"}))
	l.Wire(wev(WireSent, 5*time.Second, 1, "d1", "core", "p1", wire.PreparationStatus{State: wire.StateStarted, Handle: "h2", Revision: 2, RunID: "r1"}))
	l.Wire(wev(WireDelivered, 6*time.Second, 1, "core", "d1", "r1", wire.PromptCancel{DeliveryID: "dl-1"}))
	l.Wire(wev(WireSent, 7*time.Second, 1, "d1", "core", "r1", wire.RunError{}))
	r := c.run("r1")
	if c.granted["p1"] != "h1" || !r.started || r.startedAt != ns(5*time.Second) || !r.cancelled || !r.ended || r.done != 0 {
		t.Fatalf("granted %q, run r1 %+v: want the first handle, the latest started, a cancel and an end without done", c.granted["p1"], r)
	}
	if at := c.cancelled["dl-1"]; at != ns(6*time.Second) {
		t.Fatalf("prompt_cancel dl-1 reached d1 at %d", at)
	}
}

// A fact keeps the event that taught it: an observer of that event sees
// it, one asking what came before does not.
func TestConnIndexBefore(t *testing.T) {
	l := NewLedger()
	var during, before []bool
	l.wireObservers = append(l.wireObservers, func(ev WireEvent) {
		done := l.conn(2).run("r1").done
		during, before = append(during, done != 0), append(before, l.index.before(done))
	})
	l.Wire(wev(WireSent, time.Second, 2, "d2", "core", "r1", wire.Done{}))
	l.Wire(wev(WireSent, 2*time.Second, 2, "d2", "core", "r1", wire.Done{}))
	if !during[0] || before[0] || !before[1] {
		t.Fatalf("done seen during its event %v, before it %v", during, before)
	}
}
