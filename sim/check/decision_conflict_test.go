package check

import (
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// permissionApplied: on c1, d1 asks permission ix1 for run r1 at 1 s, Core
// approves it at 2 s and d1 applies it at 3 s.
func permissionApplied() *Ledger {
	l := NewLedger()
	l.Wire(wev(WireSent, time.Second, 1, "d1", "core", "r1", wire.PermissionRequest{RequestID: "ix1", Tool: "shell", Title: "run"}))
	l.Wire(wev(WireSent, 2*time.Second, 1, "core", "d1", "ix1", wire.PermissionDecision{DeliveryID: "dl1", Approved: true}))
	l.Wire(wev(WireSent, 3*time.Second, 1, "d1", "core", "ix1", wire.InteractionDecisionAck{DeliveryID: "dl1", Applied: true}))
	return l
}

// changed delivers to d1, at 4 s, a forged opposite decision for ix1, and
// d1's answer to it.
func changed(l *Ledger, approved bool, answer wire.InteractionDecisionAck) {
	ev := wev(WireDelivered, 4*time.Second, 1, "core", "d1", "ix1", wire.PermissionDecision{DeliveryID: "x-d-1", Approved: approved})
	ev.Forged = true
	l.Wire(ev)
	answer.DeliveryID = "x-d-1"
	l.Wire(wev(WireSent, 4*time.Second, 1, "d1", "core", "ix1", answer))
}

func TestChangedDecisionWhileLiveIsConflict(t *testing.T) {
	l := permissionApplied()
	changed(l, false, wire.InteractionDecisionAck{ErrorCode: wire.AckDecisionConflict})
	if got := violationsOf(l, CheckDecisionConflictAfterApply); len(got) > 0 {
		t.Fatalf("unexpected %v", got)
	}
	if !marked(l, MarkDecisionChangedWhileLive) {
		t.Fatalf("mark %s not reached", MarkDecisionChangedWhileLive)
	}
}

func TestChangedDecisionWhileLiveOtherAnswersAreCaught(t *testing.T) {
	for want, answer := range map[string]wire.InteractionDecisionAck{
		"applied":             {Applied: true},
		"refused not_pending": {ErrorCode: wire.AckNotPending},
		"refused not_ready":   {ErrorCode: wire.AckNotReady},
	} {
		l := permissionApplied()
		changed(l, false, answer)
		wantViolation(t, l, CheckDecisionConflictAfterApply, "while its Turn ran, "+want+"; want decision_conflict")
	}
}

// Not judged: the Run's done was sent (the daemon may have forgotten it),
// the same content (a repeat is applied again), a decision never applied,
// or another connection.
func TestChangedDecisionOutsideTheLiveApplied(t *testing.T) {
	cases := map[string]func() *Ledger{
		"after done": func() *Ledger {
			l := permissionApplied()
			l.Wire(wev(WireSent, 3500*time.Millisecond, 1, "d1", "core", "r1", wire.Done{}))
			changed(l, false, wire.InteractionDecisionAck{ErrorCode: wire.AckNotPending})
			return l
		},
		"same content": func() *Ledger {
			l := permissionApplied()
			changed(l, true, wire.InteractionDecisionAck{Applied: true})
			return l
		},
		"refused, not applied": func() *Ledger {
			l := NewLedger()
			l.Wire(wev(WireSent, time.Second, 1, "d1", "core", "r1", wire.PermissionRequest{RequestID: "ix1", Tool: "shell", Title: "run"}))
			l.Wire(wev(WireSent, 2*time.Second, 1, "core", "d1", "ix1", wire.PermissionDecision{DeliveryID: "dl1", Approved: true}))
			l.Wire(wev(WireSent, 3*time.Second, 1, "d1", "core", "ix1", wire.InteractionDecisionAck{DeliveryID: "dl1", ErrorCode: wire.AckNotReady}))
			changed(l, false, wire.InteractionDecisionAck{Applied: true})
			return l
		},
	}
	for name, build := range cases {
		l := build()
		if got := violationsOf(l, CheckDecisionConflictAfterApply); len(got) > 0 {
			t.Fatalf("%s: unexpected %v", name, got)
		}
		if marked(l, MarkDecisionChangedWhileLive) {
			t.Fatalf("%s: mark reached", name)
		}
	}
}
