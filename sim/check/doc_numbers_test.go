package check

import (
	"fmt"
	"testing"

	"github.com/turnstile-sim/turnstile/internal/docnumbers"
)

// TestDocNumbersAreTheLimits keeps the numbers doc.go states equal to the
// oracles' own tables of the documents' limits and timers.
func TestDocNumbersAreTheLimits(t *testing.T) {
	s := func(name string) string { return docnumbers.Seconds(DocumentedTimer(name)) }
	docnumbers.Check(t, ".",
		fmt.Sprintf("the seeds' %d active and %d executors", DocumentedActiveMax, DocumentedExecutorsMax),
		"a written or accepted receipt "+s(TimerWritten)+" later",
		"no deciding cancel receipt "+s(TimerCancelConfirm)+" after",
		"Core closes a connection exactly "+s(TimerConnIdle)+" after",
		"had not returned "+s(TimerNativeWrite)+" after",
		"the "+s(TimerReceiptSend)+" budget",
		"start + "+s(TimerSettlementWait)+", cancel_failed",
		"an input unknown exactly "+s(TimerWritten)+" after delivery",
		fmt.Sprintf("a %dth admission on one connection", DocumentedAdmissionRecordsMax+1),
		fmt.Sprintf("its Run holds %d inputs", DocumentedSteerInputsPerRun),
		fmt.Sprintf("(LinearizeTimeoutDefault, %s,", LinearizeTimeoutDefault),
	)
}
