package world

import "github.com/turnstile-sim/turnstile/sim"

// A machine's failed assertion always fails the seed, check panic. How it
// is reported depends on where it fired.
//
// An assertion inside a step leaves a half-applied state: the step's
// effects are applied (so a checker that sees the breach in them reports
// in the same step, ahead of the panic: panic is the last after-step rule)
// and the node stops.
//
// A failure of the invariant check that ends every step leaves the whole
// result of the step in the machine. The panic is then held and the run
// goes on with the machine still stepped, so that the checkers, which
// judge frames, native calls and API answers, get to name the rule the
// broken state breaks when its consequence shows (an idle executor never
// closed, a close never retried). The first violation any checker
// reports ends the run as usual; a run that ends without one fails with
// the held panic. While a panic is held the world crashes, replaces and
// restarts no process: the seed fails either way, and a restart would
// erase the broken state (and excuse every timer it owed) before the
// checker that judges its bound gets to see it.

// machinePanicked records a machine's failed assertion; completed tells
// an end-of-step invariant failure (held) from one inside the step.
func (u *universe) machinePanicked(completed bool, msg string) {
	if !completed {
		u.fail(checkPanic, "%s", msg)
		return
	}
	if u.heldPanic == "" {
		u.heldPanic = msg
	}
}

// heldPanicCheck reports, at the end of a run, the first end-of-step
// invariant failure that no checker named first.
func (u *universe) heldPanicCheck() sim.Check {
	return sim.Check{Name: checkPanic, AtEnd: func(*sim.View) error {
		if u.heldPanic == "" {
			return nil
		}
		return &sim.NamedViolation{Check: checkPanic, Message: u.heldPanic + " (an invariant failed at the end of that step; the run went on)"}
	}}
}

// heldPanicSpares reports whether a fault of kind k, one that would end
// a process, is withheld because a panic is held.
func (u *universe) heldPanicSpares(k kind) bool {
	if u.heldPanic == "" {
		return false
	}
	switch k {
	case kCoreCrash, kCoreZombie, kDaemonCrash, kDeviceReplace, kVersionMismatch:
		return true
	}
	return false
}
