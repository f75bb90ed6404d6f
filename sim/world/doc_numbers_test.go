package world

import (
	"fmt"
	"testing"

	"github.com/turnstile-sim/turnstile/internal/docnumbers"
	"github.com/turnstile-sim/turnstile/wire"
)

// TestDocNumbersAreTheLimits keeps the numbers doc.go states equal to the
// world's constants and the wire limits its workloads and faults reach.
func TestDocNumbersAreTheLimits(t *testing.T) {
	docnumbers.Check(t, ".",
		"a liveness phase of "+docnumbers.Seconds(livenessBase)+" plus "+docnumbers.Seconds(livenessPerTurn)+" per turn",
		"Calls to a crashed Core time out after "+docnumbers.Seconds(callTimeout)+".",
		fmt.Sprintf("more than %d admissions on one connection", wire.AdmissionRecordsMax),
		fmt.Sprintf("(Core refuses those past %d: steer_input_limit)", wire.SteerInputsPerRunMax),
		"padded to just under "+docnumbers.MiB(wire.FrameBytesMax),
		fmt.Sprintf("inflated past %d bytes", wire.IDBytesMax),
		"a copy over "+docnumbers.MiB(wire.FrameBytesMax),
		fmt.Sprintf("an input_id over %d bytes", wire.InputIDBytesMax),
	)
}
