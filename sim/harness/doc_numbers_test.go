package harness

import (
	"fmt"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/internal/docnumbers"
)

// TestDocNumbersAreTheLimits keeps the timers and bounds doc.go names equal
// to the machines' defaults and this package's constants.
func TestDocNumbersAreTheLimits(t *testing.T) {
	c, l := core.DefaultConfig(), daemon.DefaultLimits()
	docnumbers.Check(t, ".",
		"past Core's "+docnumbers.Seconds(c.CancelConfirmTimeout)+" window",
		"around the "+docnumbers.Seconds(l.NativeWriteBudget)+" write budget",
		"around the "+docnumbers.Seconds(l.SettlementWait)+" settlement wait",
		fmt.Sprintf("around the %d-minute admission expiry", int(l.AdmissionExpiry/time.Minute)),
		fmt.Sprintf("±[1 s, %d min]", int(ClockJumpMax/time.Minute)),
	)
}
