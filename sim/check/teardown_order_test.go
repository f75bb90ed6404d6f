package check

import (
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

// wf builds a wire event carrying a decoded frame.
func wf(at int64, kind string, conn uint64, from, to, id string, p wire.Payload) WireEvent {
	return WireEvent{At: at, Kind: kind, Conn: conn, From: from, To: to, Raw: []byte("{}"),
		Frame: wire.Frame{ID: id, Payload: p}}
}

// only asserts that exactly the named check fired (want "" : none), with
// a message containing sub.
func only(t *testing.T, l *Ledger, want, sub string) {
	t.Helper()
	vs := untimed(l.Violations())
	if want == "" {
		if len(vs) > 0 {
			t.Fatalf("unexpected violations:\n%s", Render(vs))
		}
		return
	}
	for _, v := range vs {
		if v.Check == want && strings.Contains(v.Message, sub) {
			return
		}
	}
	t.Fatalf("want %s containing %q, got:\n%s", want, sub, Render(vs))
}

// teardown plays one run on d1 conn 1: a steer delivered, its receipt,
// native settlement and done; bug reorders or drops one step.
func teardown(bug string) *Ledger {
	l := NewLedger()
	l.TurnCreated(1, "d1", "r1")
	l.ExecutorCreated(1, "d1", "e1")
	l.Wire(wf(2, WireDelivered, 1, "core", "d1", "r1", wire.PromptSteer{InputID: "i1", DurableReceipt: true}))
	if bug != "no_receipt" {
		l.Wire(wf(3, WireSent, 1, "d1", "core", "r1", wire.PromptSteerAck{InputID: "i1", Written: true}))
	}
	if bug != "unsettled" {
		l.TurnSettled(4, "r1", NativeCancelled)
	}
	if bug == "retired_open" || bug == "retired_closed" {
		l.ExecutorRetired(4, "d1", "r1", "e1")
	}
	if bug == "retired_closed" {
		l.ExecutorClosed(5, "d1", "e1")
	}
	l.Wire(wf(6, WireSent, 1, "d1", "core", "r1", wire.InteractionDecisionAck{DeliveryID: "x", Applied: true}))
	l.Wire(wf(6, WireSent, 1, "d1", "core", "r1", wire.Done{}))
	return l
}

func TestDoneBeforeReceipt(t *testing.T) {
	only(t, teardown("no_receipt"), CheckDoneBeforeReceipt, "input i1")
}

func TestDoneAfterReceiptIsClean(t *testing.T) {
	only(t, teardown(""), "", "")
}

func TestDoneReceiptOnOtherConnectionDoesNotCount(t *testing.T) {
	l := NewLedger()
	l.Wire(wf(2, WireDelivered, 1, "core", "d1", "r1", wire.PromptSteer{InputID: "i1"}))
	l.Wire(wf(3, WireSent, 2, "d1", "core", "r1", wire.PromptSteerAck{InputID: "i1"}))
	l.Wire(wf(4, WireSent, 1, "d1", "core", "r1", wire.Done{}))
	only(t, l, CheckDoneBeforeReceipt, "conn c1")
}

func TestPublishedBeforeSettlement(t *testing.T) {
	l := teardown("unsettled")
	only(t, l, CheckPublishedBeforeSettled, "applied cancel receipt for run r1 before the Harness settled")
	only(t, l, CheckPublishedBeforeSettled, "done for run r1 before the Harness settled")
}

func TestPublishedBeforeRetiredClose(t *testing.T) {
	only(t, teardown("retired_open"), CheckPublishedBeforeSettled, "close of executor e1")
}

func TestPublishedAfterRetiredCloseIsClean(t *testing.T) {
	only(t, teardown("retired_closed"), "", "")
}

func TestUnappliedCancelReceiptMayPrecedeSettlement(t *testing.T) {
	l := NewLedger()
	l.TurnCreated(1, "d1", "r1")
	l.Wire(wf(2, WireSent, 1, "d1", "core", "r1", wire.InteractionDecisionAck{DeliveryID: "x", ErrorCode: "cancel_failed"}))
	only(t, l, "", "")
}
