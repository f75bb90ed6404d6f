package runner_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/wire"
)

func nonePrepare(executor string) daemon.Prepare {
	return daemon.Prepare{Executor: executor, Kind: "k", Session: "s-" + executor,
		Configuration: wire.ExecutionConfiguration{DisableExecutionEnvironment: true}}
}

func wantCalls(t *testing.T, f *recordingFactory, i int, want ...string) {
	t.Helper()
	f.mu.Lock()
	ex := f.made[i]
	f.mu.Unlock()
	if got := ex.Calls(); !slices.Equal(got, want) {
		t.Fatalf("executor %d calls %v, want %v", i, got, want)
	}
}

// TestUnusedExecutablePreparationIsCancelledReleasedThenClosed: an
// Executor retired before any Turn started on it is an unused
// executable preparation: CancelPrepared, Release, then Close.
func TestUnusedExecutablePreparationIsCancelledReleasedThenClosed(t *testing.T) {
	f := &recordingFactory{prepared: true}
	r := newExecutorRig(t, f, "")
	if res := r.call(nonePrepare("ex-1")); res != (daemon.PrepareResult{}) {
		t.Fatalf("prepare: %+v", res)
	}
	if res := r.call(daemon.CloseExecutor{Executor: "ex-1"}); res != (daemon.CloseResult{}) {
		t.Fatalf("close: %+v", res)
	}
	wantCalls(t, f, 0, "CancelPrepared", "Release", "Close")
}

// TestStartedPreparationIsClosedOnly: once a Turn started on the
// Executor, the Turn owns its output and the preparation is consumed:
// its retirement is Close alone. A nil-Turn start consumes nothing.
func TestStartedPreparationIsClosedOnly(t *testing.T) {
	f := &recordingFactory{prepared: true}
	r := newExecutorRig(t, f, "")
	r.call(nonePrepare("ex-1"))
	if res := r.call(daemon.StartTurn{Executor: "ex-1", Turn: "t-1", Run: "run-1", Input: wire.TextInput("hi")}); res != (daemon.StartResult{Turn: true}) {
		t.Fatalf("start: %+v", res)
	}
	if res := r.call(daemon.AwaitSettlement{Turn: "t-1"}).(daemon.SettleResult); !res.Settled || !res.Reusable {
		t.Fatalf("settle: %+v", res)
	}
	if res := r.call(daemon.CloseExecutor{Executor: "ex-1"}); res != (daemon.CloseResult{}) {
		t.Fatalf("close: %+v", res)
	}
	wantCalls(t, f, 0, "StartTurn", "Close")

	refusing := &recordingFactory{prepared: true, refuseStart: true}
	r = newExecutorRig(t, refusing, "")
	r.call(nonePrepare("ex-2"))
	if res := r.call(daemon.StartTurn{Executor: "ex-2", Turn: "t-2", Run: "run-2", Input: wire.TextInput("hi")}).(daemon.StartResult); res.Turn {
		t.Fatalf("start: %+v", res)
	}
	r.call(daemon.CloseExecutor{Executor: "ex-2"})
	wantCalls(t, refusing, 0, "StartTurn", "CancelPrepared", "Release", "Close")
}

// TestExecutorWithoutPreparationIsClosedOnly: an Executor that is no
// executable preparation is retired by Close alone.
func TestExecutorWithoutPreparationIsClosedOnly(t *testing.T) {
	f := &recordingFactory{}
	r := newExecutorRig(t, f, "")
	r.call(nonePrepare("ex-1"))
	if res := r.call(daemon.CloseExecutor{Executor: "ex-1"}); res != (daemon.CloseResult{}) {
		t.Fatalf("close: %+v", res)
	}
	wantCalls(t, f, 0, "Close")
}

// TestUnconfirmedReleaseKeepsThePreparationOwned: a failed Release fails
// the close and keeps the Executor (never Closed past an unconfirmed
// Release); the retry repeats the sequence and confirms.
func TestUnconfirmedReleaseKeepsThePreparationOwned(t *testing.T) {
	f := &recordingFactory{prepared: true, failRelease: true}
	r := newExecutorRig(t, f, "")
	r.call(nonePrepare("ex-1"))
	if res := r.call(daemon.CloseExecutor{Executor: "ex-1"}).(daemon.CloseResult); res.Err == "" {
		t.Fatalf("close with a failed Release confirmed: %+v", res)
	}
	if res := r.call(daemon.CloseExecutor{Executor: "ex-1"}); res != (daemon.CloseResult{}) {
		t.Fatalf("retried close: %+v", res)
	}
	wantCalls(t, f, 0, "CancelPrepared", "Release", "CancelPrepared", "Release", "Close")
}

// TestFailedPreparationThatReturnsItsExecutor: a factory that returns its
// Executor with the error hands the runner that cleanup: confirmed at
// once, the preparation fails without a resource; unconfirmed, it fails
// Retained and the executor stays for the machine's close.
func TestFailedPreparationThatReturnsItsExecutor(t *testing.T) {
	boom := errors.New("native setup failed")
	f := &recordingFactory{prepared: true, failWith: boom}
	r := newExecutorRig(t, f, "")
	if res := r.call(nonePrepare("ex-1")); res != (daemon.PrepareResult{Err: boom.Error()}) {
		t.Fatalf("prepare: %+v", res)
	}
	wantCalls(t, f, 0, "CancelPrepared", "Release", "Close")

	f = &recordingFactory{prepared: true, failWith: boom, failRelease: true}
	r = newExecutorRig(t, f, "")
	if res := r.call(nonePrepare("ex-2")); res != (daemon.PrepareResult{Err: boom.Error(), Retained: true}) {
		t.Fatalf("prepare with an unconfirmed cleanup: %+v", res)
	}
	if res := r.call(daemon.CloseExecutor{Executor: "ex-2"}); res != (daemon.CloseResult{}) {
		t.Fatalf("the machine's close of the retained executor: %+v", res)
	}
	wantCalls(t, f, 0, "CancelPrepared", "Release", "CancelPrepared", "Release", "Close")
	if d := (daemon.PrepareResult{Err: "x", Retained: true}).Describe(); !strings.Contains(d, "retained=true") {
		t.Fatalf("describe: %s", d)
	}
}
