package daemon

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/wire"
)

func TestKindAvailabilityIsDeclaredAtOnce(t *testing.T) {
	r := newRig(t)
	r.step(KindAvailability{Kind: "contract", Available: false})
	hbs := payloadsOf[wire.Heartbeat](r.sent())
	if len(hbs) != 1 || len(hbs[0].SupportedAgentKinds) != 1 || hbs[0].SupportedAgentKinds[0].Available {
		require.Fail(t, fmt.Sprintf("want one heartbeat declaring contract unavailable, got %s", describeAll(r.out)))
	}
	r.recv("p1", prepareFor("s1"))
	require.Equal(t, CodeResourceUnavailable, oneStatus(r).ErrorCode, "prepare of an unavailable kind")
	r.step(KindAvailability{Kind: "contract", Available: true})
	r.recv("p2", prepareFor("s1"))
	require.Equal(t, wire.StatePreparing, oneStatus(r).State, "prepare once available again")
}

func TestKindAvailabilityKeepsAdmittedExecutors(t *testing.T) {
	r := newRig(t)
	st := r.ready("p1", "s1")
	r.step(KindAvailability{Kind: "contract", Available: false})
	r.recv("p1", startFor(st, "run-1"))
	require.Equal(t, wire.StateStarting, oneStatus(r).State, "a ready admission still starts")
}

func TestKindAvailabilityIgnoresUnchangedAndUnknownKinds(t *testing.T) {
	r := newRig(t)
	for _, ev := range []KindAvailability{{Kind: "contract", Available: true}, {Kind: "nope", Available: false}} {
		if out := r.step(ev); len(out) != 0 {
			require.Fail(t, fmt.Sprintf("%s: want no effects, got %s", ev.Describe(), describeAll(out)))
		}
	}
}
