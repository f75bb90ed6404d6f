package world

import (
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/store"
	"github.com/turnstile-sim/turnstile/sim/check"
)

// TestStoreLivenessNamesPendingTurns checks the end-of-run liveness rule on
// Core's store: a turn stored queued, starting or running is named with
// its state, even when the ledger never heard of it (the write bypasses the
// tap here); terminal turns pass.
func TestStoreLivenessNamesPendingTurns(t *testing.T) {
	u := &universe{store: &observedStore{Memory: store.NewMemory()}}
	u.store.Memory.PutTurn(core.TurnRecord{ID: "t1", Session: "s", State: core.TurnCompleted})
	u.store.Memory.PutTurn(core.TurnRecord{ID: "t2", Session: "s", State: core.TurnFailed})
	if err := u.storeLiveness(); err != nil {
		t.Fatalf("terminal turns only: %v", err)
	}
	for _, st := range []core.TurnState{core.TurnQueued, core.TurnStarting, core.TurnRunning} {
		u.store.Memory.PutTurn(core.TurnRecord{ID: "t3", Session: "s", State: st})
		err := u.storeLiveness()
		if err == nil || !strings.Contains(err.Error(), "turn t3 is "+string(st)) {
			t.Fatalf("turn stored %s: %v", st, err)
		}
	}
}

// TestUnreportedViolationFails checks that a violation whose check name no
// registered check takes still fails the run, under its own name.
func TestUnreportedViolationFails(t *testing.T) {
	u := &universe{}
	if err := u.unreported(); err != nil {
		t.Fatal(err)
	}
	u.pendingV = append(u.pendingV, check.Violation{Check: "no_such_check", Message: "lost"})
	err := u.unreported()
	if err == nil || !strings.Contains(err.Error(), "no_such_check: lost") {
		t.Fatalf("leftover violation: %v", err)
	}
}

// TestConvergedRunsLeaveNoPendingTurn runs a few seeds of the default
// swarm: each passes, and Core's store holds no turn that is not terminal.
func TestConvergedRunsLeaveNoPendingTurn(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		o := Run(seed, Config{})
		if o.Result.Failed() {
			t.Fatalf("seed %d: %s", seed, o.Result.Violations[0])
		}
		for s, n := range o.TurnStates {
			if state, _, _ := strings.Cut(s, "/"); !check.IsTerminal(publicState(core.TurnState(state))) && n > 0 {
				t.Fatalf("seed %d ends with %d turns %s", seed, n, s)
			}
		}
	}
}
