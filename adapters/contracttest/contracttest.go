package contracttest

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// ErrViolation is wrapped by every problem a check reports.
var ErrViolation = errors.New("contract violation")

// Fixture describes the adapter under test and the controls its native
// fixture offers. Optional hooks that are nil leave the clauses needing
// them unexercised (the report says so); Hold is required by the cancel
// checks.
type Fixture struct {
	// Config prepares every Executor of the run.
	Config agent.ExecutorConfig
	// Capabilities is the kind's declaration; a declared operation that
	// answers ErrUnsupportedOperation is a violation.
	Capabilities wire.AgentKindCapabilities
	// Input is a text input that completes naturally. Default: one message.
	Input wire.MessageInput
	// Hold arms the next Turn to keep running until it is cancelled,
	// applying written input meanwhile.
	Hold func()
	// HoldSlowApply arms the next Turn like Hold, but the native side
	// applies each written input only after longer than Window.
	HoldSlowApply func()
	// SlowCancel arms the next Turn like Hold, and its native end after a
	// cancel takes longer than Window.
	SlowCancel func()
	// Retire arms the next Turn to complete and settle Reusable=false (a
	// native owner that cannot take another Turn).
	Retire func()
	// NativeExit arms the next Turn's native process, query or connection
	// to exit in the middle of the Turn.
	NativeExit func()
	// LateEvent arms the next Turn's native side to deliver one more
	// callback carrying marker after the Turn settled.
	LateEvent func(marker string)
	// FailStartBeforeInput arms the next StartTurn to fail before input.
	FailStartBeforeInput func()
	// FailStartAfterInput arms the next StartTurn to fail after input.
	FailStartAfterInput func()
	// FailClose arms the next Close to fail once.
	FailClose func()
	// Applied reports from the native ground truth whether the native
	// side consumed the input text (initial or steered).
	Applied func(text string) bool
	// UnknownOutcome, when set, is the adapter's error for a written input
	// whose Turn settled without the native side telling whether it was
	// applied (uncertain results keep their own error and are never
	// replayed); a settled receipt may answer it instead of nil or
	// ErrTurnInactive.
	UnknownOutcome error
	// Effects fingerprints the native ground truth (what was really
	// applied, created or closed); unsupported operations must not change it.
	Effects func() string
	// Owned lists, from the native ground truth, the resources the native
	// side holds now (processes, files, connections; a name per resource,
	// repeated for several alike). An executable preparation's unused
	// cleanup must leave none it acquired; nil leaves that clause
	// unexercised.
	Owned func() []string
	// Preparations, when set, is checked for the workspace extensions of
	// the Prepared owner.
	Preparations agent.PreparationFactory
	// NotApplicable marks clauses that cannot apply to this adapter, each
	// with the reason the report prints. Every other clause a kit judges
	// that was exercised zero times fails, naming why.
	NotApplicable map[Clause]string
	// Window bounds each "nothing happens" observation. Default 100ms.
	Window time.Duration
	// Timeout bounds each blocking call. Default 10s.
	Timeout time.Duration
}

func (fx Fixture) withDefaults() Fixture {
	if fx.Input == nil {
		fx.Input = wire.TextInput("contract test input")
	}
	if fx.Window <= 0 {
		fx.Window = 100 * time.Millisecond
	}
	if fx.Timeout <= 0 {
		fx.Timeout = 10 * time.Second
	}
	return fx
}

// Check is one group of clauses; every check returns its Report.
type Check func(agent.ExecutorFactory, Fixture) *Report

// TextLifecycleChecks are the checks TextLifecycle runs, in order.
func TextLifecycleChecks() []Check {
	return []Check{CheckLifecycle, CheckStartRule, CheckReceipts, CheckCancel, CheckRetire, CheckClose, CheckUnsupported,
		CheckPrepared}
}

// CheckTextLifecycle runs every check of the text lifecycle and returns
// one Report.
//
// Every clause of TextLifecycleClauses exercised zero times fails with the
// reason (no Turn started and why, the Fixture hook that is nil, what the
// Turns did not show) unless Fixture.NotApplicable marks it.
func CheckTextLifecycle(f agent.ExecutorFactory, fx Fixture) *Report {
	rep := newReport()
	for _, c := range TextLifecycleChecks() {
		rep.merge(c(f, fx))
	}
	rep.judgeExercised(TextLifecycleClauses(), fx.NotApplicable, func(c Clause) string { return textReason(rep, fx, c) })
	return rep
}

// hooks names the Fixture hooks that exercise each clause.
var hooks = map[Clause][]string{
	ClauseWriteVsApplied:      {"Hold", "HoldSlowApply"},
	ClauseCancelExact:         {"Hold"},
	ClauseStaleCancel:         {"Hold"},
	ClauseContinueAfterCancel: {"Hold"},
	ClauseFreshTurnState:      {"Hold"},
	ClauseLateEvents:          {"LateEvent"},
	ClauseRetire:              {"Retire"},
	ClauseNativeExit:          {"NativeExit"},
	ClauseCleanupFailure:      {"FailClose"},
	ClauseUnknownKept:         {"HoldSlowApply"},
}

// textReason explains why clause c was exercised zero times, from what
// the run did.
func textReason(rep *Report, fx Fixture, c Clause) string {
	if fails := rep.Result(ClauseFixture).Failures; len(fails) > 0 {
		return "the fixture could not run it: " + fails[0]
	}
	if rep.started == 0 {
		if rep.startErr != nil {
			return fmt.Sprintf("no Turn started: %v", rep.startErr)
		}
		return "no Turn started"
	}
	if names := hooks[c]; len(names) > 0 && !fx.hasAny(names) {
		return fmt.Sprintf("Fixture.%s is nil", strings.Join(names, " and Fixture."))
	}
	switch c {
	case ClauseOwnerContinuity:
		return "no Turn reported a native session identity (done metadata agent_session_id or CancellationOutcome.NativeSessionID)"
	case ClauseFreshTurnState:
		return "no second Turn ran on a reusable Executor"
	}
	return fmt.Sprintf("no step exercised it (%d Turns started)", rep.started)
}

// hasAny reports whether any named hook is set.
func (fx Fixture) hasAny(names []string) bool {
	set := map[string]bool{
		"Hold": fx.Hold != nil, "HoldSlowApply": fx.HoldSlowApply != nil, "LateEvent": fx.LateEvent != nil,
		"Retire": fx.Retire != nil, "NativeExit": fx.NativeExit != nil, "FailClose": fx.FailClose != nil,
	}
	for _, n := range names {
		if set[n] {
			return true
		}
	}
	return false
}

// TextLifecycle runs every clause of the text lifecycle against f and
// reports each failure through t, naming its clause, followed by the
// per-clause summary. Run it inside testing/synctest with a controlled
// fixture: the "nothing happens" windows are then virtual time.
func TextLifecycle(t testing.TB, f agent.ExecutorFactory, fx Fixture) {
	t.Helper()
	Assert(t, "TextLifecycle", CheckTextLifecycle(f, fx))
}

// UnsupportedExtensionsHaveNoNativeEffects checks every extension
// operation on the Executor, a Turn and (with Fixture.Preparations) a
// Prepared owner: each is implemented explicitly; a refusal wraps
// ErrUnsupportedOperation with a fixed reason that echoes no submitted
// content and has no native effect; a declared operation is not refused.
func UnsupportedExtensionsHaveNoNativeEffects(t testing.TB, f agent.ExecutorFactory, fx Fixture) {
	t.Helper()
	rep := CheckUnsupported(f, fx)
	rep.judgeExercised([]Clause{ClauseUnsupported}, fx.NotApplicable, func(c Clause) string { return textReason(rep, fx, c) })
	Assert(t, "UnsupportedExtensionsHaveNoNativeEffects", rep)
}

// Assert fails t with one message per failing clause and the summary when
// rep failed, and logs the summary otherwise.
func Assert(t testing.TB, name string, rep *Report) {
	t.Helper()
	if rep.Failed() {
		t.Errorf("%s: contract violations:\n%s\nper clause:\n%s", name, rep.Failures(), rep.String())
		return
	}
	t.Logf("%s: per clause:\n%s", name, rep.String())
}

// The error-returning forms, in the shape of testing/fstest.TestFS.

// TestLifecycle runs CheckLifecycle; nil when it passed.
func TestLifecycle(f agent.ExecutorFactory, fx Fixture) error { return CheckLifecycle(f, fx).Err() }

// TestStartRule runs CheckStartRule; nil when it passed.
func TestStartRule(f agent.ExecutorFactory, fx Fixture) error { return CheckStartRule(f, fx).Err() }

// TestReceipts runs CheckReceipts; nil when it passed.
func TestReceipts(f agent.ExecutorFactory, fx Fixture) error { return CheckReceipts(f, fx).Err() }

// TestCancel runs CheckCancel; nil when it passed.
func TestCancel(f agent.ExecutorFactory, fx Fixture) error { return CheckCancel(f, fx).Err() }

// TestRetire runs CheckRetire; nil when it passed.
func TestRetire(f agent.ExecutorFactory, fx Fixture) error { return CheckRetire(f, fx).Err() }

// TestClose runs CheckClose; nil when it passed.
func TestClose(f agent.ExecutorFactory, fx Fixture) error { return CheckClose(f, fx).Err() }

// TestUnsupported runs CheckUnsupported; nil when it passed.
func TestUnsupported(f agent.ExecutorFactory, fx Fixture) error { return CheckUnsupported(f, fx).Err() }

// TestPrepared runs CheckPrepared; nil when it passed.
func TestPrepared(f agent.ExecutorFactory, fx Fixture) error { return CheckPrepared(f, fx).Err() }
