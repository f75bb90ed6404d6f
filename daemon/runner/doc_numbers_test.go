package runner

import (
	"fmt"
	"testing"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/internal/docnumbers"
	"github.com/turnstile-sim/turnstile/wire"
)

// TestDocNumbersAreTheLimits keeps the numbers doc.go states equal to the
// constants and machine defaults they name.
func TestDocNumbersAreTheLimits(t *testing.T) {
	l := daemon.DefaultLimits()
	docnumbers.Check(t, ".",
		fmt.Sprintf("(wire.OutputFramesMax, %d events)", wire.OutputFramesMax),
		fmt.Sprintf("(%s write, %s receipt send, %s settlement)", docnumbers.Seconds(l.NativeWriteBudget),
			docnumbers.Seconds(l.ReceiptSendBudget), docnumbers.Seconds(l.SettlementWait)),
		"a ShutdownGrace ("+docnumbers.Seconds(ShutdownGrace)+") period",
	)
}
