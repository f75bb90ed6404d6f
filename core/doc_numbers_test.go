package core

import (
	"fmt"
	"testing"

	"github.com/turnstile-sim/turnstile/internal/docnumbers"
)

// The package doc states the limits the code keeps unexported.
func TestDocNumbers(t *testing.T) {
	docnumbers.Check(t, ".", fmt.Sprintf("at most %d per Turn", interactionsPerTurnMax),
		"ExportCancelSendBudget ("+docnumbers.Seconds(ExportCancelSendBudget)+")",
		"within "+docnumbers.Seconds(ExportCancelSendBudget)+" of queueing it")
	docnumbers.Check(t, ".", fmt.Sprintf("at most %d per Turn, in arrival order", subagentsPerTurnMax))
}
