package world

import (
	"strings"
	"testing"
)

func TestAPanicInsideAStepFailsAtOnce(t *testing.T) {
	u := &universe{}
	u.machinePanicked(false, "d1: boom")
	if len(u.pendingV) != 1 || u.pendingV[0].Check != checkPanic || u.heldPanic != "" {
		t.Fatalf("pending %v held %q; want one panic violation now", u.pendingV, u.heldPanic)
	}
}

func TestAnEndOfStepInvariantFailureIsHeldToTheEnd(t *testing.T) {
	u := &universe{}
	c := u.heldPanicCheck()
	if err := c.AtEnd(nil); err != nil {
		t.Fatalf("no panic, yet %v", err)
	}
	u.machinePanicked(true, "d1: first")
	u.machinePanicked(true, "d1: second")
	if len(u.pendingV) != 0 {
		t.Fatalf("a held panic stopped the run: %v", u.pendingV)
	}
	err := c.AtEnd(nil)
	if err == nil || !strings.Contains(err.Error(), "d1: first") || c.Name != checkPanic {
		t.Fatalf("end of run: %v (check %s); want the first held panic under %s", err, c.Name, checkPanic)
	}
}

// While a panic is held no process is crashed, replaced or restarted, so
// the broken state lives on until a checker names it; other faults go on.
func TestAHeldPanicSparesEveryProcess(t *testing.T) {
	u := &universe{}
	ends := []kind{kCoreCrash, kDaemonCrash, kDeviceReplace, kVersionMismatch}
	for _, k := range append(ends, kInvalidHeartbeat, kStatusRepublish) {
		if u.heldPanicSpares(k) {
			t.Fatalf("%s withheld with no panic held", k.kind)
		}
	}
	u.machinePanicked(false, "d1: inside a step")
	if u.heldPanicSpares(kDaemonCrash) {
		t.Fatal("a panic inside a step ends the run; it holds nothing back")
	}
	u.machinePanicked(true, "d1: closing executor without a retry")
	for _, k := range ends {
		if !u.heldPanicSpares(k) {
			t.Errorf("%s applied while a panic is held", k.kind)
		}
	}
	for _, k := range []kind{kInvalidHeartbeat, kStatusRepublish} {
		if u.heldPanicSpares(k) {
			t.Errorf("%s withheld: it ends no process", k.kind)
		}
	}
}
