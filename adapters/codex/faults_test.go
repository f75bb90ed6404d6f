package codex

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

func newFakeExecutor(t *testing.T, f *fakeHarness) *Executor {
	t.Helper()
	ex, err := f.NewExecutor(context.Background(), fakeConfig())
	if err != nil {
		t.Fatal(err)
	}
	return ex.(*Executor)
}

// app-server exiting mid-turn: the Turn reports an error, closes its
// output and settles non-reusable; the Executor refuses the next Turn as
// unavailable and still closes.
func TestFakeCrashMidTurn(t *testing.T) {
	f := newFakeHarness(t)
	ex := newFakeExecutor(t, f)
	f.arm(t, fakeCrash)
	r := startRun(t, ex, "run-crash", "go")
	if r.err != nil {
		t.Fatal(r.err)
	}
	s := r.settle(t)
	if s.Reusable || s.Reason == "" {
		t.Fatalf("settlement %+v after a crash, want retire", s)
	}
	if e := errorOf(r.got); e == nil || text(r.got) != "partial" {
		t.Fatalf("events %v", r.got)
	}
	if doneOf(t, r.got).Content != "partial" {
		t.Fatalf("done %+v", doneOf(t, r.got))
	}
	if next := startRun(t, ex, "run-next", "again"); next.turn != nil || !errors.Is(next.err, agent.ErrExecutorUnavailable) {
		t.Fatalf("StartTurn after a crash = %v, %v", next.turn, next.err)
	}
	closeExec(t, ex)
}

// An interrupt app-server never answers: settlement is not confirmed, and
// Close (stopping the process) settles the Turn before it confirms.
func TestFakeInterruptLeftPending(t *testing.T) {
	f := newFakeHarness(t)
	ex := newFakeExecutor(t, f)
	f.arm(t, fakeDeafCancel)
	r := startRun(t, ex, "run-deaf", "go")
	r.next(t)
	if err := r.turn.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	_, err := r.turn.AwaitSettlement(ctx)
	cancel()
	if !errors.Is(err, agent.ErrNotSettled) {
		t.Fatalf("AwaitSettlement = %v with the interrupt pending, want ErrNotSettled", err)
	}
	go r.drain()
	closeExec(t, ex)
	s, err := r.turn.AwaitSettlement(context.Background())
	if err != nil || s.Reusable {
		t.Fatalf("after Close: %+v, %v", s, err)
	}
}

// A steer whose echo never comes: written, then unknown once the Turn
// ended; never applied, never replayed. (Codex 0.171.0 echoes a steer at
// once, even while the model still streams, so only the fake can withhold
// the echo on demand.)
func TestFakeSteerWithoutEchoIsUnknown(t *testing.T) {
	f := newFakeHarness(t)
	ex := newFakeExecutor(t, f)
	f.arm(t, fakeNoEcho)
	r := startRun(t, ex, "run-noecho", "go")
	r.next(t)
	rc, err := r.turn.SteerDurable(context.Background(), agent.SteerInput{InputID: "in-1", Input: wire.TextInput("more")})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	if err := rc.AwaitApplied(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("AwaitApplied before the end = %v, want still open", err)
	}
	cancel()
	_ = r.turn.Cancel(context.Background())
	r.settle(t)
	if err := rc.AwaitApplied(context.Background()); !errors.Is(err, ErrApplyUnknown) {
		t.Fatalf("AwaitApplied after the end = %v, want ErrApplyUnknown", err)
	}
	if strings.Contains(f.effects(), "more") {
		t.Fatal("the fake applied the input")
	}
	closeExec(t, ex)
}

// An approval request is declined (the adapter never approves) and the
// turn continues.
func TestFakeApprovalDeclined(t *testing.T) {
	f := newFakeHarness(t)
	ex := newFakeExecutor(t, f)
	f.arm(t, fakeApproval)
	r := startRun(t, ex, "run-approval", "go")
	r.settle(t)
	if got := text(r.got); got != "decision:decline" {
		t.Fatalf("streamed %q", got)
	}
	closeExec(t, ex)
}

// Native retries without progress exhaust the retry budget: the Turn is
// interrupted and reports connection_failed with the observed status.
func TestFakeRetryBudget(t *testing.T) {
	f := newFakeHarness(t)
	ex := newFakeExecutor(t, f)
	f.arm(t, fakeRetry)
	r := startRun(t, ex, "run-retry", "go")
	if s := r.settle(t); !s.Reusable {
		t.Fatalf("settlement %+v", s)
	}
	e := errorOf(r.got)
	if e == nil || e.Code != wire.EngineConnectionFailed || e.HTTPStatus != 502 {
		t.Fatalf("error %+v", e)
	}
	closeExec(t, ex)
}

// A late event of a settled Turn never reaches the next Turn.
func TestFakeLateEventDropped(t *testing.T) {
	f := newFakeHarness(t)
	ex := newFakeExecutor(t, f)
	f.arm(t, fakeLate)
	r := startRun(t, ex, "run-late", "go")
	r.next(t)
	_ = r.turn.Cancel(context.Background())
	r.settle(t)
	next := startRun(t, ex, "run-after", "second")
	next.settle(t)
	if got := text(next.got); got != "second" {
		t.Fatalf("next Turn streamed %q", got)
	}
	for _, ev := range append(r.got, next.got...) {
		if d, ok := ev.Payload.(wire.Delta); ok && d.Delta == "late" {
			t.Fatalf("late delta delivered to %s", ev.RunID)
		}
	}
	closeExec(t, ex)
}

// Resume is strict: an unknown thread fails and starts no fresh thread; a
// recorded one is reported as the native session from the first event on.
func TestFakeStrictResume(t *testing.T) {
	f := newFakeHarness(t)
	cfg := fakeConfig()
	cfg.Configuration.AgentSessionID = "thread-unknown"
	if ex, err := f.NewExecutor(context.Background(), cfg); !errors.Is(err, ErrResume) || ex != nil {
		t.Fatalf("resume of an unknown thread = %v, %v", ex, err)
	}
	cfg.Configuration.AgentSessionID = "thread-fake-recorded"
	ex, err := f.NewExecutor(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := startRun(t, ex, "run-resumed", "hi")
	r.settle(t)
	if md := doneOf(t, r.got).Metadata; md == nil || md.AgentSessionID != "thread-fake-recorded" || md.AgentSessionType != Kind {
		t.Fatalf("done metadata %+v", md)
	}
	closeExec(t, ex)
	cfg.Configuration.AgentSessionID = ""
	cfg.Configuration.RequireExistingNativeSession = true
	if _, err := f.NewExecutor(context.Background(), cfg); !errors.Is(err, ErrResume) {
		t.Fatalf("required existing session without an ID = %v", err)
	}
}

// Configuration the adapter cannot honour is refused before app-server starts.
func TestConfigurationRefusals(t *testing.T) {
	f := newFakeHarness(t)
	for name, mutate := range map[string]func(*wire.ExecutionConfiguration){
		"local environment without a bound workspace": func(c *wire.ExecutionConfiguration) { c.LocalEnvironment = &wire.LocalEnvironment{ID: "env"} },
		"function tools":   func(c *wire.ExecutionConfiguration) { c.FunctionTools = []wire.FunctionTool{{Name: "f"}} },
		"programmatic":     func(c *wire.ExecutionConfiguration) { c.ExecutionControls.DisableProgrammaticToolCalling = true },
		"web search value": func(c *wire.ExecutionConfiguration) { c.ExecutionControls.WebSearch = "sometimes" },
		"verbosity value":  func(c *wire.ExecutionConfiguration) { c.ExecutionControls.TextVerbosity = "loud" },
		"other kind":       func(c *wire.ExecutionConfiguration) { c.AgentKind = "claude" },
	} {
		cfg := fakeConfig()
		mutate(&cfg.Configuration)
		if ex, err := f.NewExecutor(context.Background(), cfg); err == nil || ex != nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if f.effects() != "" {
		t.Fatal("a refused configuration reached app-server")
	}
}

func TestRunErrorMapping(t *testing.T) {
	for raw, want := range map[string]wire.RunError{
		`"unauthorized"`: {Code: wire.EngineAuthenticationError},
		`{"httpConnectionFailed":{"httpStatusCode":401}}`:          {Code: wire.EngineAuthenticationError},
		`{"httpConnectionFailed":{"httpStatusCode":500}}`:          {Code: wire.EngineConnectionFailed, HTTPStatus: 500},
		`{"responseStreamDisconnected":{"httpStatusCode":null}}`:   {Code: wire.EngineConnectionFailed},
		`{"responseTooManyFailedAttempts":{"httpStatusCode":429}}`: {Code: wire.EngineRateLimitExceeded},
		`"contextWindowExceeded"`:                                  {Code: wire.EngineContextLengthExceeded},
		`"other"`:                                                  {},
		`null`:                                                     {},
	} {
		got := runErrorOf(turnError{Message: "m", CodexErrorInfo: []byte(raw)})
		want.Error = "m"
		if got != want {
			t.Errorf("%s: %+v, want %+v", raw, got, want)
		}
	}
}

// The direct-call path runs one Turn on its own Executor and closes it
// after settlement.
func TestFakeDirectSession(t *testing.T) {
	f := newFakeHarness(t)
	out := make(chan agent.Event, wire.OutputFramesMax)
	s, err := f.StartSession(context.Background(), fakeConfig(), agent.TurnRequest{RunID: "run-direct", Input: wire.TextInput("direct"), Output: out})
	if err != nil {
		t.Fatal(err)
	}
	var evs []agent.Event
	for ev := range out {
		evs = append(evs, ev)
	}
	if text(evs) != "direct" || doneOf(t, evs).Metadata == nil {
		t.Fatalf("events %v", evs)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.(*Session).Wait(ctx); err != nil {
		t.Fatalf("executor close after the direct session: %v", err)
	}
	if !s.CancellationOutcome().Completed {
		t.Fatalf("outcome %+v", s.CancellationOutcome())
	}
}
