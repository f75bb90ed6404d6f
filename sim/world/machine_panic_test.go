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
