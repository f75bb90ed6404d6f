package world

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/turnstile-sim/turnstile/sim/check"
)

// TestWorldRulesRegistered: the names the world reports under are rules
// of the registry judged here, the ledger check reports every after-step
// rule but the Harness contract (its own kernel check), and the panic
// comes last, so a rule a machine broke in its failing step reports first.
func TestWorldRulesRegistered(t *testing.T) {
	for _, name := range []string{checkWire, checkPanic, checkHarnessContract} {
		i := slices.IndexFunc(check.Rules(), func(r check.Rule) bool { return r.Name == name })
		require.GreaterOrEqual(t, i, 0, "world check %s is not registered", name)
		require.True(t, strings.HasPrefix(check.Rules()[i].Checker, "sim/world/"), "rule %s is judged in sim/world", name)
	}
	require.Equal(t, checkPanic, ledgerOrder[len(ledgerOrder)-1])
	require.NotContains(t, ledgerOrder, checkHarnessContract)
	var after []string
	for _, r := range check.Rules() {
		if r.Verdict&check.AfterStep != 0 {
			after = append(after, r.Name)
		}
	}
	require.Len(t, ledgerOrder, len(after)-1)
	require.Equal(t, []string{check.CheckFailoverStaleCommit, check.CheckFailoverZombieFrame, check.CheckRunStartedTwice}, ledgerOrder[:3])
}
