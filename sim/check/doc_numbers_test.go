package check

import (
	"fmt"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/internal/docnumbers"
)

// TestDocNumbersAreTheLimits keeps the numbers doc.go and the rules state
// equal to the oracles' own tables of the documents' limits and timers.
func TestDocNumbersAreTheLimits(t *testing.T) {
	s := func(name string) string { return docnumbers.Seconds(DocumentedTimer(name)) }
	for _, r := range []struct{ rule, phrase string }{
		{CheckTimingWritten, "a written or accepted receipt " + s(TimerWritten) + " later"},
		{CheckTimingCancelConfirm, "no deciding cancel receipt " + s(TimerCancelConfirm) + " after"},
		{CheckTimingConnIdle, "Core closes a connection exactly " + s(TimerConnIdle) + " after"},
		{CheckTimingNativeWrite, "had not returned " + s(TimerNativeWrite) + " after"},
		{CheckTimingReceiptSend, "the " + s(TimerReceiptSend) + " budget"},
		{CheckTimingSettlementWait, "start + " + s(TimerSettlementWait) + ", cancel_failed"},
		{CheckPreparationsPerConn, fmt.Sprintf("at most %d preparation streams", DocumentedPreparationsPerConn)},
	} {
		if i := ruleIndex[r.rule]; !strings.Contains(rules[i].Text, r.phrase) {
			t.Errorf("rule %s does not state %q", r.rule, r.phrase)
		}
	}
	docnumbers.Check(t, ".",
		fmt.Sprintf("the seeds' %d active and %d executors", DocumentedActiveMax, DocumentedExecutorsMax),
		"an input unknown exactly "+s(TimerWritten)+" after delivery",
		fmt.Sprintf("a %dth admission on one connection", DocumentedAdmissionRecordsMax+1),
		fmt.Sprintf("its Run holds %d inputs", DocumentedSteerInputsPerRun),
	)
}
