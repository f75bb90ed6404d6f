package synthetic_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/contracttest"
	"github.com/turnstile-sim/turnstile/adapters/synthetic"
	"github.com/turnstile-sim/turnstile/wire"
)

func config() agent.ExecutorConfig {
	return agent.ExecutorConfig{SessionID: "session-1", Configuration: wire.ExecutionConfiguration{AgentKind: synthetic.Kind}}
}

func fixture(h *synthetic.Harness) contracttest.Fixture {
	return contracttest.Fixture{
		Config:       config(),
		Capabilities: synthetic.Capabilities(),
		Hold:         func() { h.Script(synthetic.TurnScript{Hold: true}) },
		FailStartBeforeInput: func() {
			h.Script(synthetic.TurnScript{StartFailure: synthetic.StartFailsBeforeInput})
		},
		FailStartAfterInput: func() {
			h.Script(synthetic.TurnScript{StartFailure: synthetic.StartFailsAfterInput})
		},
		FailClose: func() { h.FailCloses(1) },
		Effects:   func() string { return fmt.Sprintf("%+v", h.Truth()) },
		Owned: func() []string {
			tr := h.Truth()
			return slices.Repeat([]string{"native session"}, max(0, tr.ExecutorsCreated-tr.ExecutorsClosed))
		},
		Applied: func(text string) bool { return slices.Contains(h.Truth().InputsApplied, text) },

		HoldSlowApply: func() { h.Script(synthetic.TurnScript{Hold: true, SteerApplyLatency: time.Second}) },
		SlowCancel:    func() { h.Script(synthetic.TurnScript{Hold: true, CancelLatency: time.Second}) },
		Retire:        func() { h.Script(synthetic.TurnScript{Retire: "native owner cannot continue"}) },
		NativeExit: func() {
			h.Script(synthetic.TurnScript{Deltas: []string{"partial"},
				Error: &wire.RunError{Error: "native process exited"}, Retire: "native process exited"})
		},
		LateEvent: func(marker string) { h.Script(synthetic.TurnScript{LateDelta: marker}) },
	}
}

// TestSharedTextLifecycle runs the shared contract checks on the adapter.
func TestSharedTextLifecycle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		contracttest.TextLifecycle(t, h, fixture(h))
	})
}

// TestUnsupportedExtensionsHaveNoNativeEffects checks every refusal on the
// Executor and the Turn with the shared assertion, and on a preparation.
func TestUnsupportedExtensionsHaveNoNativeEffects(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		contracttest.UnsupportedExtensionsHaveNoNativeEffects(t, h, fixture(h))
		p, err := h.Prepare(t.Context(), config())
		if err != nil {
			t.Fatal(err)
		}
		before := h.Truth()
		prepared := p.(*synthetic.Prepared)
		if _, err := prepared.ReadWorkspaceFile(t.Context(), wire.WorkspaceRead{}); !errors.Is(err, agent.ErrUnsupportedOperation) {
			t.Errorf("Prepared.ReadWorkspaceFile = %v", err)
		}
		if _, err := prepared.ListWorkspaceDirectory(t.Context(), wire.WorkspaceRead{}); !errors.Is(err, agent.ErrUnsupportedOperation) {
			t.Errorf("Prepared.ListWorkspaceDirectory = %v", err)
		}
		if err := prepared.WriteWorkspaceFile(t.Context(), agent.WorkspaceFile{}); !errors.Is(err, agent.ErrUnsupportedOperation) {
			t.Errorf("Prepared.WriteWorkspaceFile = %v", err)
		}
		if !equalTruth(before, h.Truth()) {
			t.Errorf("refusals changed ground truth")
		}
		if err := prepared.CancelPrepared(t.Context()); err != nil {
			t.Errorf("CancelPrepared = %v", err)
		}
		if o := prepared.CancellationOutcome(); o.Observed() {
			t.Errorf("preparation outcome %+v, want nothing observed", o)
		}
		for range 2 {
			if err := p.Release(t.Context()); err != nil {
				t.Errorf("Release = %v", err)
			}
		}
	})
}

func equalTruth(a, b synthetic.Truth) bool {
	return fmt.Sprintf("%+v", a) == fmt.Sprintf("%+v", b)
}

// turn starts one Turn and collects its events until the output closes.
type turn struct {
	agent.Turn
	startErr error
	out      chan agent.Event
	events   chan []agent.Event
}

func startTurn(t *testing.T, ex agent.Executor, runID string, in wire.MessageInput) *turn {
	t.Helper()
	out := make(chan agent.Event, wire.OutputFramesMax)
	tr := &turn{out: out, events: make(chan []agent.Event, 1)}
	tr.Turn, tr.startErr = ex.StartTurn(t.Context(), agent.TurnRequest{RunID: runID, Input: in, Output: out})
	if tr.Turn != nil {
		go func() {
			var evs []agent.Event
			for ev := range out {
				evs = append(evs, ev)
			}
			tr.events <- evs
		}()
	}
	return tr
}

func newExecutor(t *testing.T, h *synthetic.Harness) agent.Executor {
	t.Helper()
	ex, err := h.NewExecutor(t.Context(), config())
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

func mustSettle(t *testing.T, tr *turn) agent.TurnSettlement {
	t.Helper()
	s, err := tr.AwaitSettlement(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func i32(v int32) *int32 { return &v }

func TestTurnStreamsScriptedEventsInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		usage := &wire.Usage{InputTokens: i32(3), OutputTokens: i32(5)}
		failure := &wire.RunError{Error: "upstream refused", Code: "server_error"}
		h.Script(synthetic.TurnScript{Thinking: "hmm", Deltas: []string{"Hel", "lo"}, Usage: usage,
			Error: failure, NativeSessionID: "native-7", EventInterval: time.Second})
		ex := newExecutor(t, h)
		begin := time.Now()
		tr := startTurn(t, ex, "run-1", wire.TextInput("hi"))
		if tr.startErr != nil {
			t.Fatal(tr.startErr)
		}
		if s := mustSettle(t, tr); !s.Reusable {
			t.Fatalf("settlement %+v, want reusable", s)
		}
		if got := time.Since(begin); got != 3*time.Second {
			t.Errorf("three paced events took %v", got)
		}
		evs := <-tr.events
		var types []string
		for _, ev := range evs {
			if ev.RunID != "run-1" {
				t.Errorf("event %v carries run %q", ev.Payload, ev.RunID)
			}
			types = append(types, ev.Payload.MessageType())
		}
		want := []string{"thinking", "delta", "delta", "usage", "error", "done"}
		if !slices.Equal(types, want) {
			t.Fatalf("event types %v, want %v", types, want)
		}
		if d := evs[2].Payload.(wire.Delta); d.Sequence != 2 || d.Delta != "lo" {
			t.Errorf("second delta %+v", d)
		}
		done := evs[5].Payload.(wire.Done)
		if done.Content != "Hello" || *done.Usage.OutputTokens != 5 || done.Metadata.AgentSessionID != "native-7" {
			t.Errorf("done %+v", done)
		}
		if got := h.Truth().InputsApplied; !slices.Equal(got, []string{"hi"}) {
			t.Errorf("inputs applied %v", got)
		}
		if err := ex.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
	})
}

func TestEchoJoinsTextMessages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		ex := newExecutor(t, h)
		in := wire.MessageInput{
			{Content: []wire.InputContent{wire.TextPart("a"), wire.TextPart("b")}},
			{Content: []wire.InputContent{wire.TextPart("c")}},
		}
		tr := startTurn(t, ex, "run-1", in)
		mustSettle(t, tr)
		evs := <-tr.events
		if d := evs[0].Payload.(wire.Delta); d.Delta != "ab\n\nc" {
			t.Errorf("echo %q", d.Delta)
		}
		_ = ex.Close(t.Context())
	})
}
