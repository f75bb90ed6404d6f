package contracttest_test

import (
	"errors"
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/contracttest"
	"github.com/turnstile-sim/turnstile/adapters/synthetic"
	"github.com/turnstile-sim/turnstile/wire"
)

// fixture drives the synthetic Harness through its scripting controls.
func fixture(h *synthetic.Harness) contracttest.Fixture {
	return contracttest.Fixture{
		Config: agent.ExecutorConfig{
			SessionID:     "session-1",
			Configuration: wire.ExecutionConfiguration{AgentKind: synthetic.Kind},
		},
		Capabilities: synthetic.Capabilities(),
		Hold:         func() { h.Script(synthetic.TurnScript{Hold: true, Deltas: []string{"held"}}) },
		FailStartBeforeInput: func() {
			h.Script(synthetic.TurnScript{StartFailure: synthetic.StartFailsBeforeInput})
		},
		FailStartAfterInput: func() {
			h.Script(synthetic.TurnScript{StartFailure: synthetic.StartFailsAfterInput})
		},
		FailClose: func() { h.FailCloses(1) },
		Effects:   func() string { return fmt.Sprintf("%+v", h.Truth()) },
	}
}

// TestSyntheticConforms proves the synthetic Harness passes every check.
func TestSyntheticConforms(t *testing.T) {
	checks := map[string]func(agent.ExecutorFactory, contracttest.Fixture) error{
		"TestLifecycle":   contracttest.TestLifecycle,
		"TestStartRule":   contracttest.TestStartRule,
		"TestCancel":      contracttest.TestCancel,
		"TestUnsupported": contracttest.TestUnsupported,
		"TestClose":       contracttest.TestClose,
		"TextLifecycle":   contracttest.TextLifecycle,
	}
	for name, check := range checks {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := synthetic.New()
				if err := check(h, fixture(h)); err != nil {
					t.Fatal(err)
				}
			})
		})
	}
}

// TestCancelNeedsHold proves a fixture without Hold is reported, not passed.
func TestCancelNeedsHold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		fx := fixture(h)
		fx.Hold = nil
		err := contracttest.TestCancel(h, fx)
		if !errors.Is(err, contracttest.ErrViolation) {
			t.Fatalf("TestCancel without Hold = %v, want a violation", err)
		}
	})
}
