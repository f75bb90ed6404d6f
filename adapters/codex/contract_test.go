package codex

import (
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/contracttest"
	"github.com/turnstile-sim/turnstile/internal/testgate"
)

// The shared text lifecycle against the fake app-server (a controlled
// fixture: a real child process speaking the protocol, scripted per turn).
func TestSharedTextLifecycle(t *testing.T) {
	testgate.Long(t) // the contract kit waits out its real-time windows
	f := newFakeHarness(t)
	fx := contracttest.Fixture{
		Config:               fakeConfig(),
		Capabilities:         Capabilities(),
		Hold:                 func() { f.arm(t, fakeHold) },
		FailStartBeforeInput: func() { f.arm(t, fakeRefuseStart) },
		FailStartAfterInput:  func() { f.arm(t, fakeDieOnStart) },
		HoldSlowApply:        func() { f.arm(t, fakeSlowApply) },
		SlowCancel:           func() { f.arm(t, fakeSlowCancel) },
		NativeExit:           func() { f.arm(t, fakeCrash) },
		LateEvent:            func(marker string) { f.arm(t, fakeLateDone+marker) },
		Applied:              f.applied,
		Effects:              f.effects,
		UnknownOutcome:       ErrApplyUnknown,
		Window:               300 * time.Millisecond,
		Timeout:              30 * time.Second,
		NotApplicable: map[contracttest.Clause]string{
			contracttest.ClauseCleanupFailure: "not scripted: the fake app-server cannot make stopping its process group fail " +
				"(a coverage gap of this fixture, not a property of Codex)",
			contracttest.ClausePreparedNothingLeft: "not observed: the fake app-server reports no list of the processes " +
				"it holds (a coverage gap of this fixture, not a property of Codex)",
		},
	}
	contracttest.TextLifecycle(t, f, fx)
}

// Every extension the declaration leaves unsupported answers Unsupported
// without a native effect.
func TestUnsupportedExtensionsHaveNoNativeEffects(t *testing.T) {
	testgate.Long(t) // the contract kit waits out its real-time windows
	f := newFakeHarness(t)
	fx := contracttest.Fixture{
		Config:       fakeConfig(),
		Capabilities: Capabilities(),
		Hold:         func() { f.arm(t, fakeHold) },
		Effects:      f.effects,
		Window:       300 * time.Millisecond,
		Timeout:      30 * time.Second,
	}
	contracttest.UnsupportedExtensionsHaveNoNativeEffects(t, f, fx)
}
