package world

import (
	"slices"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/sim/check"
)

// TestWorldRulesRegistered: the names the world reports under are rules
// of the registry judged here, the ledger check reports every after-step
// rule but the Harness contract (its own kernel check), and the panic
// comes last, so a rule a machine broke in its failing step reports first.
func TestWorldRulesRegistered(t *testing.T) {
	for _, name := range []string{checkWire, checkPanic, checkHarnessContract} {
		i := slices.IndexFunc(check.Rules(), func(r check.Rule) bool { return r.Name == name })
		if i < 0 {
			t.Fatalf("world check %s is not registered", name)
		}
		if !strings.HasPrefix(check.Rules()[i].Checker, "sim/world/") {
			t.Errorf("rule %s is judged in sim/world, its checker says %s", name, check.Rules()[i].Checker)
		}
	}
	if last := ledgerOrder[len(ledgerOrder)-1]; last != checkPanic {
		t.Errorf("the ledger reports %s last, want %s", last, checkPanic)
	}
	if slices.Contains(ledgerOrder, checkHarnessContract) {
		t.Errorf("the ledger order holds %s, which has its own kernel check", checkHarnessContract)
	}
	var after []string
	for _, r := range check.Rules() {
		if r.Verdict&check.AfterStep != 0 {
			after = append(after, r.Name)
		}
	}
	if len(ledgerOrder) != len(after)-1 {
		t.Errorf("the ledger reports %d rules, want the %d after-step rules but the Harness contract", len(ledgerOrder), len(after)-1)
	}
	if want := []string{check.CheckFailoverStaleCommit, check.CheckFailoverZombieFrame, check.CheckRunStartedTwice}; !slices.Equal(ledgerOrder[:3], want) {
		t.Errorf("the ledger order starts %v, want %v", ledgerOrder[:3], want)
	}
}
