package synthetic_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"testing/synctest"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/synthetic"
	"github.com/turnstile-sim/turnstile/wire"
)

func TestNonReusableSettlementRetiresExecutor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		h.Script(synthetic.TurnScript{Retire: "native process exited"})
		ex := newExecutor(t, h)
		tr := startTurn(t, ex, "run-1", wire.TextInput("hi"))
		s := mustSettle(t, tr)
		if s != agent.Retire("native process exited") {
			t.Fatalf("settlement %+v", s)
		}
		next := startTurn(t, ex, "run-2", wire.TextInput("again"))
		if next.Turn != nil || !errors.Is(next.startErr, agent.ErrExecutorUnavailable) {
			t.Fatalf("retired Executor started: %v", next.startErr)
		}
		untouched(t, next.out)
		if err := ex.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
		if got := h.Truth().ExecutorsClosed; got != 1 {
			t.Fatalf("closed %d", got)
		}
	})
}

func TestCloseFailureKeepsOwnershipThenRetrySucceeds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		h.FailCloses(1)
		ex := newExecutor(t, h)
		if err := ex.Close(t.Context()); !errors.Is(err, agent.ErrCloseFailed) {
			t.Fatalf("Close = %v, want ErrCloseFailed", err)
		}
		if truth := h.Truth(); truth.ExecutorsClosed != 0 || truth.CloseFailures != 1 {
			t.Fatalf("truth after a failed close %+v", truth)
		}
		for range 2 {
			if err := ex.Close(t.Context()); err != nil {
				t.Fatalf("retry Close = %v", err)
			}
		}
		if got := h.Truth().ExecutorsClosed; got != 1 {
			t.Fatalf("closed %d times", got)
		}
	})
}

func TestCloseCancelsAndSettlesActiveTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		h.Script(synthetic.TurnScript{Hold: true})
		ex := newExecutor(t, h)
		tr := startTurn(t, ex, "run-1", wire.TextInput("hi"))
		if err := ex.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
		synctest.Wait() // a still-running Turn would keep its output open
		select {
		case <-tr.events:
		default:
			t.Fatal("Close returned before the Turn's output closed")
		}
		mustSettle(t, tr)
	})
}

func TestStartDuringCloseIsRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		h.Script(synthetic.TurnScript{Hold: true, CancelLatency: 5 * time.Second})
		ex := newExecutor(t, h)
		held := startTurn(t, ex, "run-1", wire.TextInput("hi"))
		closed := make(chan error, 1)
		go func() { closed <- ex.Close(t.Context()) }()
		synctest.Wait() // Close waits for the held Turn's slow cancel
		during := startTurn(t, ex, "run-2", wire.TextInput("no"))
		if during.Turn != nil || !errors.Is(during.startErr, agent.ErrExecutorUnavailable) {
			t.Fatalf("StartTurn during Close = %v, %v", during.Turn, during.startErr)
		}
		untouched(t, during.out)
		if err := <-closed; err != nil {
			t.Fatal(err)
		}
		mustSettle(t, held)
		if got := h.Truth().TurnsStarted; got != 1 {
			t.Fatalf("turns started %d", got)
		}
	})
}

func TestCloseTimeoutKeepsExecutorOwned(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		h.Script(synthetic.TurnScript{Hold: true, CancelLatency: time.Minute})
		ex := newExecutor(t, h)
		held := startTurn(t, ex, "run-1", wire.TextInput("hi"))
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		err := ex.Close(ctx)
		cancel()
		if !errors.Is(err, agent.ErrCloseFailed) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Close with an unsettled Turn = %v", err)
		}
		if got := h.Truth().ExecutorsClosed; got != 0 {
			t.Fatalf("a timed-out Close released the Executor")
		}
		mustSettle(t, held)
		if err := ex.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
	})
}

func TestBusyExecutorRefusesSecondTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		h.Script(synthetic.TurnScript{Hold: true})
		ex := newExecutor(t, h)
		held := startTurn(t, ex, "run-1", wire.TextInput("hi"))
		busy := startTurn(t, ex, "run-2", wire.TextInput("no"))
		if busy.Turn != nil || !errors.Is(busy.startErr, agent.ErrExecutorBusy) {
			t.Fatalf("second StartTurn = %v, %v", busy.Turn, busy.startErr)
		}
		untouched(t, busy.out)
		_ = held.Cancel(t.Context())
		mustSettle(t, held)
		_ = ex.Close(t.Context())
	})
}

func TestInvalidTurnRequestIsRejected(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		ex := newExecutor(t, h)
		out := make(chan agent.Event, 1)
		for name, req := range map[string]agent.TurnRequest{
			"blank run":  {Input: wire.TextInput("x"), Output: out},
			"nil output": {RunID: "r", Input: wire.TextInput("x")},
			"no input":   {RunID: "r", Output: out},
		} {
			if tr, err := ex.StartTurn(t.Context(), req); tr != nil || !errors.Is(err, agent.ErrInvalidRequest) {
				t.Errorf("%s: StartTurn = %v, %v", name, tr, err)
			}
		}
		untouched(t, out)
		_ = ex.Close(t.Context())
	})
}

func TestExecutorConfigurationIsValidatedBeforePreparation(t *testing.T) {
	h := synthetic.New()
	withOptions := func(opts map[string]json.RawMessage) agent.ExecutorConfig {
		c := config()
		c.Configuration.AgentOptions = opts
		return c
	}
	local := config()
	local.Configuration.LocalEnvironment = &wire.LocalEnvironment{ID: "env"}
	other := config()
	other.Configuration.AgentKind = "codex"
	cases := map[string]struct {
		cfg  agent.ExecutorConfig
		want error
	}{
		"blank session": {agent.ExecutorConfig{}, agent.ErrInvalidConfiguration},
		"other kind":    {other, agent.ErrInvalidConfiguration},
		"local environment without a bound workspace": {local, agent.ErrInvalidConfiguration},
		"model provider": {withOptions(map[string]json.RawMessage{
			"model": json.RawMessage(`"m"`), "model_provider": json.RawMessage(`"p"`)}), agent.ErrUnsupportedConfiguration},
		"null model": {withOptions(map[string]json.RawMessage{"model": json.RawMessage(`null`)}), agent.ErrInvalidConfiguration},
	}
	for name, tc := range cases {
		if _, err := h.NewExecutor(t.Context(), tc.cfg); !errors.Is(err, tc.want) {
			t.Errorf("%s: NewExecutor = %v, want %v", name, err, tc.want)
		}
		if _, err := h.Prepare(t.Context(), tc.cfg); !errors.Is(err, tc.want) {
			t.Errorf("%s: Prepare = %v, want %v", name, err, tc.want)
		}
	}
	if got := h.Truth().ExecutorsCreated; got != 0 {
		t.Fatalf("rejected configurations created %d executors", got)
	}
}

func TestDirectSessionClosesItsExecutor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		out := make(chan agent.Event, wire.OutputFramesMax)
		s, err := h.StartSession(t.Context(), config(), agent.TurnRequest{RunID: "run-1", Input: wire.TextInput("hi"), Output: out})
		if err != nil {
			t.Fatal(err)
		}
		var last agent.Event
		for ev := range out {
			last = ev
		}
		if !last.Terminal() {
			t.Fatalf("last event %v", last)
		}
		if err := s.(*synthetic.Session).Wait(t.Context()); err != nil {
			t.Fatal(err)
		}
		if truth := h.Truth(); truth.ExecutorsCreated != 1 || truth.ExecutorsClosed != 1 {
			t.Fatalf("truth %+v", truth)
		}
		if s.CancellationOutcome().Content != "hi" {
			t.Fatalf("outcome %+v", s.CancellationOutcome())
		}
		if err := s.Cancel(t.Context()); err != nil {
			t.Fatalf("stale Cancel = %v", err)
		}
	})
}

func TestDirectSessionNilOnRefusedStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		h.Script(synthetic.TurnScript{StartFailure: synthetic.StartFailsBeforeInput})
		out := make(chan agent.Event, 1)
		s, err := h.StartSession(t.Context(), config(), agent.TurnRequest{RunID: "run-1", Input: wire.TextInput("hi"), Output: out})
		if s != nil || !errors.Is(err, agent.ErrExecutorUnavailable) {
			t.Fatalf("StartSession = %v, %v", s, err)
		}
		untouched(t, out)
		if truth := h.Truth(); truth.ExecutorsClosed != 1 {
			t.Fatalf("the unused Executor was not closed: %+v", truth)
		}
	})
}

func TestDeclarationRegistersThroughDiscovery(t *testing.T) {
	h := synthetic.New()
	d := synthetic.Declaration(h)
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	rt, err := d.Discover(t.Context(), nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var reg agent.Registry
	if err := reg.Register(d, rt); err != nil {
		t.Fatal(err)
	}
	kinds := reg.Kinds()
	if len(kinds) != 1 || kinds[0].Kind != synthetic.Kind || kinds[0].Capabilities != synthetic.Capabilities() {
		t.Fatalf("kinds %+v", kinds)
	}
	if f, ok := reg.Executors(synthetic.Kind); !ok || f != agent.ExecutorFactory(h) {
		t.Fatalf("executor factory %v, %v", f, ok)
	}
	if _, err := wire.Encode(wire.Frame{Payload: wire.Heartbeat{SupportedAgentKinds: kinds}}); err != nil {
		t.Fatalf("heartbeat with the declaration does not encode: %v", err)
	}
}

// A local Environment is accepted with a bound workspace directory (the
// Runtime's binding), and refused when that directory does not exist.
func TestExecutorRunsInTheBoundWorkspace(t *testing.T) {
	h := synthetic.New()
	local := config()
	local.Configuration.DisableExecutionEnvironment = false
	local.Configuration.LocalEnvironment = &wire.LocalEnvironment{ID: "env"}
	local.WorkspaceRoot = t.TempDir()
	ex, err := h.NewExecutor(t.Context(), local)
	if err != nil {
		t.Fatalf("NewExecutor in a bound workspace: %v", err)
	}
	if err := ex.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	local.WorkspaceRoot += "/missing"
	if _, err := h.NewExecutor(t.Context(), local); !errors.Is(err, agent.ErrInvalidConfiguration) {
		t.Fatalf("a missing workspace directory: %v", err)
	}
}
