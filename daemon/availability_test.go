package daemon

import (
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

func TestKindAvailabilityIsDeclaredAtOnce(t *testing.T) {
	r := newRig(t)
	r.step(KindAvailability{Kind: "contract", Available: false})
	hbs := payloadsOf[wire.Heartbeat](r.sent())
	if len(hbs) != 1 || len(hbs[0].SupportedAgentKinds) != 1 || hbs[0].SupportedAgentKinds[0].Available {
		t.Fatalf("want one heartbeat declaring contract unavailable, got %s", describeAll(r.out))
	}
	r.recv("p1", prepareFor("s1"))
	eq(t, oneStatus(r).ErrorCode, CodeResourceUnavailable, "prepare of an unavailable kind")
	r.step(KindAvailability{Kind: "contract", Available: true})
	r.recv("p2", prepareFor("s1"))
	eq(t, oneStatus(r).State, wire.StatePreparing, "prepare once available again")
}

func TestKindAvailabilityKeepsAdmittedExecutors(t *testing.T) {
	r := newRig(t)
	st := r.ready("p1", "s1")
	r.step(KindAvailability{Kind: "contract", Available: false})
	r.recv("p1", startFor(st, "run-1"))
	eq(t, oneStatus(r).State, wire.StateStarting, "a ready admission still starts")
}

func TestKindAvailabilityIgnoresUnchangedAndUnknownKinds(t *testing.T) {
	r := newRig(t)
	for _, ev := range []KindAvailability{{Kind: "contract", Available: true}, {Kind: "nope", Available: false}} {
		if out := r.step(ev); len(out) != 0 {
			t.Fatalf("%s: want no effects, got %s", ev.Describe(), describeAll(out))
		}
	}
}
