package contracttest_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/contracttest"
	"github.com/turnstile-sim/turnstile/adapters/synthetic"
	"github.com/turnstile-sim/turnstile/wire"
)

// fixture drives the synthetic Harness through its scripting controls.
func fixture(h *synthetic.Harness) contracttest.Fixture {
	script := func(s synthetic.TurnScript) func() { return func() { h.Script(s) } }
	return contracttest.Fixture{
		Config: agent.ExecutorConfig{
			SessionID:     "session-1",
			Configuration: wire.ExecutionConfiguration{AgentKind: synthetic.Kind},
		},
		Capabilities:         synthetic.Capabilities(),
		Hold:                 script(synthetic.TurnScript{Hold: true, Deltas: []string{"held"}}),
		HoldSlowApply:        script(synthetic.TurnScript{Hold: true, SteerApplyLatency: time.Second}),
		SlowCancel:           script(synthetic.TurnScript{Hold: true, CancelLatency: time.Second}),
		Retire:               script(synthetic.TurnScript{Retire: "native owner cannot continue"}),
		NativeExit:           script(synthetic.TurnScript{Deltas: []string{"partial"}, Error: &wire.RunError{Error: "native process exited"}, Retire: "native process exited"}),
		LateEvent:            func(m string) { h.Script(synthetic.TurnScript{LateDelta: m}) },
		FailStartBeforeInput: script(synthetic.TurnScript{StartFailure: synthetic.StartFailsBeforeInput}),
		FailStartAfterInput:  script(synthetic.TurnScript{StartFailure: synthetic.StartFailsAfterInput}),
		FailClose:            func() { h.FailCloses(1) },
		Applied:              func(text string) bool { return slices.Contains(h.Truth().InputsApplied, text) },
		Effects:              func() string { return fmt.Sprintf("%+v", h.Truth()) },
		Owned:                func() []string { return openExecutors(h) },
	}
}

// openExecutors names one native session per Executor the synthetic
// Harness created and has not closed.
func openExecutors(h *synthetic.Harness) []string {
	tr := h.Truth()
	return slices.Repeat([]string{"native session"}, max(0, tr.ExecutorsCreated-tr.ExecutorsClosed))
}

// TestSyntheticConforms proves the synthetic Harness passes every check
// and that every clause of the text lifecycle is exercised.
func TestSyntheticConforms(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		rep := contracttest.CheckTextLifecycle(h, fixture(h))
		if rep.Failed() {
			t.Fatalf("%s\n%s", rep.Failures(), rep)
		}
		for _, c := range textClauses {
			if r := rep.Result(c); !r.Passed() {
				t.Errorf("clause %q not exercised: %+v", c, r)
			}
		}
		t.Log("\n" + rep.String())
	})
}

var textClauses = []contracttest.Clause{
	contracttest.ClauseIndependentStreams, contracttest.ClauseOwnerContinuity,
	contracttest.ClauseWriteVsApplied, contracttest.ClauseCancelExact, contracttest.ClauseStaleCancel,
	contracttest.ClauseContinueAfterCancel, contracttest.ClauseLateEvents, contracttest.ClauseFreshTurnState,
	contracttest.ClauseSettlement, contracttest.ClauseRetire, contracttest.ClauseNativeExit,
	contracttest.ClauseCleanupFailure, contracttest.ClauseUnknownKept, contracttest.ClauseNilTurn,
	contracttest.ClauseStreamShape, contracttest.ClauseClose, contracttest.ClauseUnsupported,
	contracttest.ClausePreparedStart, contracttest.ClausePreparedCancel, contracttest.ClausePreparedRelease,
}

// TestSyntheticDeclarationIsComplete runs the declaration check on the
// synthetic adapter's own package directory.
func TestSyntheticDeclarationIsComplete(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		fx := fixture(h)
		rep := contracttest.CheckDeclaration(synthetic.Declaration(h), contracttest.DeclarationOptions{
			Config: fx.Config, Dir: "../synthetic", Hold: fx.Hold})
		if rep.Failed() {
			t.Fatal(rep.Failures())
		}
	})
}

// TestFixtureWithoutHooksIsReported proves a fixture without Hold is
// reported, not passed, and that clauses without their hook say so.
func TestFixtureWithoutHooksIsReported(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		fx := contracttest.Fixture{Config: fixture(h).Config, Capabilities: synthetic.Capabilities()}
		rep := contracttest.CheckCancel(h, fx)
		if !strings.Contains(rep.Failures(), "[fixture] cancel: Hold is required") {
			t.Fatalf("CheckCancel without Hold:\n%s", rep.Failures())
		}
		rep = contracttest.CheckRetire(h, fx)
		if r := rep.Result(contracttest.ClauseNativeExit); r.Exercised != 0 || rep.Failed() {
			t.Fatalf("native exit without its hook: %+v", r)
		}
	})
}

func TestReportRendersEveryClause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		fx := fixture(h)
		fx.LateEvent = nil
		s := contracttest.CheckLifecycle(h, fx).String()
		for _, want := range []string{"ok   independent Turn streams: exercised", "passed"} {
			if !strings.Contains(s, want) {
				t.Errorf("summary lacks %q:\n%s", want, s)
			}
		}
		if strings.Contains(s, string(contracttest.ClauseLateEvents)) {
			t.Errorf("late events reported without their hook:\n%s", s)
		}
	})
}
