package adaptertest

import (
	"slices"
	"testing"

	"github.com/turnstile-sim/turnstile/adapters/contracttest"
)

// TestObservedWrappersImplementEveryContract fails when a contract
// interface is added without forwarding it through the observed wrappers:
// the daemon would otherwise see an adapter without it.
func TestObservedWrappersImplementEveryContract(t *testing.T) {
	objects := map[contracttest.Owner]any{
		contracttest.OwnerExecutorFactory: observedFactory{},
		contracttest.OwnerExecutor:        &observedExecutor{},
		contracttest.OwnerTurn:            &observedTurn{},
		contracttest.OwnerReceipt:         &observedReceipt{},
	}
	for _, c := range contracttest.Contracts() {
		for owner, v := range objects {
			if slices.Contains(c.Owners, owner) && !c.Implemented(v) {
				t.Errorf("the observed %s does not forward agent.%s", owner, c.Interface)
			}
		}
	}
}
