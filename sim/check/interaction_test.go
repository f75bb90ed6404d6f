package check

import (
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

func ixFeed() (*Ledger, wireFeed) {
	l := NewLedger()
	var now int64
	w := wireFeed{l: l, now: &now}
	w.open(1, "d1")
	return l, w
}

func violated(l *Ledger, check string) bool {
	for _, v := range l.Violations() {
		if v.Check == check {
			return true
		}
	}
	return false
}

func decision(delivery string) wire.PermissionDecision {
	return wire.PermissionDecision{DeliveryID: delivery, Approved: true}
}

func ack(delivery string, applied bool) wire.InteractionDecisionAck {
	a := wire.InteractionDecisionAck{DeliveryID: delivery, Applied: applied}
	if !applied {
		a.ErrorCode = wire.AckNotPending
	}
	return a
}

// An honest exchange: asked, decided, applied natively, acked, done.
func TestInteractionHonestExchangePasses(t *testing.T) {
	l, w := ixFeed()
	l.InteractionAsked(w.tick(), "d1", "run-1", "permission", "perm-1")
	w.coreSends(1, "d1", wire.Frame{ID: "perm-1", Payload: decision("dl-1")})
	l.DecisionCalled(w.tick(), "d1", "run-1", "perm-1", false)
	l.DecisionAnswered(w.tick(), "d1", "run-1", "perm-1", true)
	w.deviceSends(1, "d1", wire.Frame{ID: "perm-1", Payload: ack("dl-1", true)})
	l.CoreInteraction(w.tick(), "t-1", "perm-1", "applied", "dl-1")
	w.deviceSends(1, "d1", wire.Frame{ID: "run-1", Payload: wire.Done{}})
	for _, c := range []string{CheckDecisionAppliedTwice, CheckDecisionMisrouted, CheckAppliedWithoutNative,
		CheckDoneBeforeDecision, CheckInteractionAfterDone, CheckResolvedWithoutReceipt} {
		if violated(l, c) {
			t.Fatalf("honest exchange judged %s: %v", c, l.Violations())
		}
	}
	if v, bad := l.LinearizeDecisions(w.tick()); bad {
		t.Fatalf("honest history not linearizable: %v", v)
	}
}

func TestInteractionChecksCatch(t *testing.T) {
	cases := []struct {
		name  string
		check string
		run   func(l *Ledger, w wireFeed)
	}{
		{"applied twice", CheckDecisionAppliedTwice, func(l *Ledger, w wireFeed) {
			l.InteractionAsked(w.tick(), "d1", "run-1", "permission", "perm-1")
			l.DecisionAnswered(w.tick(), "d1", "run-1", "perm-1", true)
			l.DecisionAnswered(w.tick(), "d1", "run-1", "perm-1", true)
		}},
		{"applied ack before native", CheckAppliedWithoutNative, func(l *Ledger, w wireFeed) {
			l.InteractionAsked(w.tick(), "d1", "run-1", "permission", "perm-1")
			w.coreSends(1, "d1", wire.Frame{ID: "perm-1", Payload: decision("dl-1")})
			w.deviceSends(1, "d1", wire.Frame{ID: "perm-1", Payload: ack("dl-1", true)})
			l.DecisionAnswered(w.tick(), "d1", "run-1", "perm-1", true)
		}},
		{"misrouted", CheckDecisionMisrouted, func(l *Ledger, w wireFeed) {
			l.InteractionAsked(w.tick(), "d1", "run-1", "permission", "perm-1")
			l.DecisionCalled(w.tick(), "d1", "run-2", "perm-1", false)
		}},
		{"done before the decision settled", CheckDoneBeforeDecision, func(l *Ledger, w wireFeed) {
			l.InteractionAsked(w.tick(), "d1", "run-1", "function_call", "run-1/call-1")
			l.DecisionCalled(w.tick(), "d1", "run-1", "run-1/call-1", false)
			w.deviceSends(1, "d1", wire.Frame{ID: "run-1", Payload: wire.Done{}})
		}},
		{"interaction after done", CheckInteractionAfterDone, func(l *Ledger, w wireFeed) {
			w.deviceSends(1, "d1", wire.Frame{ID: "run-1", Payload: wire.Done{}})
			w.deviceSends(1, "d1", wire.Frame{ID: "run-1", Payload: wire.PermissionRequest{RequestID: "p", Tool: "t", Title: "x"}})
		}},
		{"resolved without receipt", CheckResolvedWithoutReceipt, func(l *Ledger, w wireFeed) {
			w.coreSends(1, "d1", wire.Frame{ID: "perm-1", Payload: decision("dl-1")})
			w.deviceSends(1, "d1", wire.Frame{ID: "perm-1", Payload: ack("dl-1", false)})
			l.CoreInteraction(w.tick(), "t-1", "perm-1", "applied", "dl-1")
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, w := ixFeed()
			c.run(l, w)
			if !violated(l, c.check) {
				t.Fatalf("%s not caught: %v", c.check, l.Violations())
			}
		})
	}
}

// The ledger's decision history, judged by linearize's decision model: a
// second native apply, or an applied receipt with no native apply
// linearizable before it, is a violation naming the interaction; a
// refused attempt claims nothing.
func TestLinearizeDecisions(t *testing.T) {
	build := func(steps func(l *Ledger, w wireFeed)) (Violation, bool) {
		l, w := ixFeed()
		steps(l, w)
		return l.LinearizeDecisions(w.tick())
	}
	if v, bad := build(func(l *Ledger, w wireFeed) {
		w.coreSends(1, "d1", wire.Frame{ID: "perm-1", Payload: decision("dl-1")}) // refused by the last receipt
		w.coreSends(1, "d1", wire.Frame{ID: "perm-1", Payload: decision("dl-2")})
		l.DecisionAnswered(w.tick(), "d1", "run-1", "perm-1", true)
		w.deviceSends(1, "d1", wire.Frame{ID: "perm-1", Payload: ack("dl-2", true)})
		w.deviceSends(1, "d1", wire.Frame{ID: "perm-1", Payload: ack("dl-1", false)})
	}); bad {
		t.Fatalf("unknown then applied retry judged: %v", v)
	}
	if v, bad := build(func(l *Ledger, w wireFeed) {
		w.coreSends(1, "d1", wire.Frame{ID: "perm-1", Payload: decision("dl-1")}) // no receipt: unknown
		l.DecisionAnswered(w.tick(), "d1", "run-1", "perm-1", true)
	}); bad {
		t.Fatalf("unknown attempt then a native apply judged: %v", v)
	}
	if _, bad := build(func(l *Ledger, w wireFeed) {
		l.DecisionAnswered(w.tick(), "d1", "run-1", "perm-1", true)
		l.DecisionAnswered(w.tick(), "d1", "run-1", "perm-1", true)
	}); !bad {
		t.Fatal("double native apply linearized")
	}
	v, bad := build(func(l *Ledger, w wireFeed) {
		w.coreSends(1, "d1", wire.Frame{ID: "perm-1", Payload: decision("dl-1")})
		w.deviceSends(1, "d1", wire.Frame{ID: "perm-1", Payload: ack("dl-1", true)})
		l.DecisionAnswered(w.tick(), "d1", "run-1", "perm-1", true)
	})
	if !bad || v.Check != CheckLinearizability || v.Message != "no linearization of the decision of [perm-1]" {
		t.Fatalf("applied before native linearized: %v %v", bad, v)
	}
}

// Marks: a function result after a cancel, a permission_cancel racing a
// decision, a decision repeated after an unknown outcome.
func TestInteractionMarks(t *testing.T) {
	l, w := ixFeed()
	w.coreSends(1, "d1", wire.Frame{ID: "run-1", Payload: wire.PromptCancel{DeliveryID: "cancel:run-1"}})
	w.coreSends(1, "d1", wire.Frame{ID: "run-1", Payload: wire.FunctionResult{DeliveryID: "dl-9", CallID: "c", Content: []wire.InputContent{}}})
	w.coreSends(1, "d1", wire.Frame{ID: "perm-1", Payload: decision("dl-1")})
	w.deviceSends(1, "d1", wire.Frame{ID: "perm-1", Payload: wire.PermissionCancel{}})
	l.CoreInteraction(w.tick(), "t-1", "perm-1", "unknown", "dl-1")
	l.CoreInteraction(w.tick(), "t-1", "perm-1", "delivering", "dl-2")
	got := map[Mark]int{}
	for _, m := range l.Marks() {
		got[m.Mark] = m.Count
	}
	for _, m := range []Mark{MarkDecisionRepeatedAfterUnknown, MarkDecisionRacedPermissionCancel, MarkFunctionResultAfterCancel} {
		if got[m] != 1 {
			t.Errorf("mark %s: %d", m, got[m])
		}
	}
}
