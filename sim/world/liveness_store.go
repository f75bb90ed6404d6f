package world

import (
	"fmt"
	"strings"

	"github.com/turnstile-sim/turnstile/sim/check"
)

// storeLiveness judges liveness on Core's durable store itself at the end
// of a run: every turn Core ever stored must be terminal there, whatever
// the ledger recorded on the way. The ledger's own liveness check reads
// the states the store tap reported; this one reads what the store holds
// when the run ends (the states FuzzWorld's exploration line and
// Outcome.TurnStates report), so a turn that stays queued, starting or
// running is a named liveness violation even if a tap missed a write or a
// turn was stored after the last record the ledger saw.
func (u *universe) storeLiveness() error {
	var pending []string
	for _, t := range u.store.Memory.Turns() {
		if !check.IsTerminal(publicState(t.State)) {
			pending = append(pending, fmt.Sprintf("turn %s is %s", t.ID, t.State))
		}
	}
	if len(pending) == 0 {
		return nil
	}
	return fmt.Errorf("%s in Core's store at the end of the run", strings.Join(pending, "; "))
}

// checkUnreported names a ledger or world violation that no registered
// check took (one the world failed under a name no rule registers), so
// without this last check it would be dropped and the run would pass.
const checkUnreported = "unreported_violation"

// unreported fails a run that ends with a violation nobody reported.
func (u *universe) unreported() error {
	if len(u.pendingV) == 0 {
		return nil
	}
	v := u.pendingV[0]
	return fmt.Errorf("%s: %s (check not registered)", v.Check, v.Message)
}
