package check

import (
	"errors"
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

// Every documented cancel receipt passes wire's cancel validator: the
// rule holds today for each code of the seeds' set, and the judgment
// fires on a receipt the validator refuses (an undocumented code is
// refusal_code's, not this check's).
func TestDocumentedCancelReceiptsValidate(t *testing.T) {
	for _, code := range []string{"", "run_inactive", "not_ready", "cancel_failed", "made_up"} {
		l := NewLedger()
		a := wire.InteractionDecisionAck{DeliveryID: "d1", Applied: code == "", ErrorCode: code}
		l.cancelReceiptValidates(wf(1, WireSent, 1, "d1", CoreNode, "r1", a), a)
		if vs := checkOnly(l, CheckWireCodeSets); len(vs) > 0 {
			t.Fatalf("code %q: %s", code, Render(vs))
		}
	}
	// a validator whose cancel set lost not_ready refuses a documented
	// receipt: judged
	lost := func(a wire.InteractionDecisionAck) error {
		if a.ErrorCode == "not_ready" {
			return errNotInSet
		}
		return nil
	}
	l := NewLedger()
	a := wire.InteractionDecisionAck{DeliveryID: "d1", ErrorCode: "not_ready"}
	l.cancelReceiptPasses(wf(1, WireSent, 1, "d1", CoreNode, "r1", a), a, lost)
	if vs := checkOnly(l, CheckWireCodeSets); len(vs) != 1 || !containsMsg(vs[0], "wire refuses d1's cancel receipt of run r1") {
		t.Fatalf("want one wire_code_sets violation, got:\n%s", Render(vs))
	}
}

var errNotInSet = errors.New("code not in the cancel set")
