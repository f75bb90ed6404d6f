package contracttest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/contracttest"
	"github.com/turnstile-sim/turnstile/adapters/synthetic"
	"github.com/turnstile-sim/turnstile/wire"
)

// Deliberately broken adapters: each wraps the synthetic Harness and breaks
// one rule of the contract.
type breakage int

const (
	nilAfterInput    breakage = iota // hides a Turn whose input was submitted
	earlySettle                      // reports settlement before the output closed
	eventAfterDone                   // emits a delta after done
	effectfulRefusal                 // refuses a function result after steering natively
	unsafeReason                     // refusal reason echoes submitted content
	swallowedClose                   // reports a failed Close as success
	minimalTurn                      // implements only agent.Turn, no extensions
	noopCancel                       // Cancel does nothing
)

type brokenFactory struct {
	h    *synthetic.Harness
	mode breakage
}

func (f brokenFactory) NewExecutor(ctx context.Context, cfg agent.ExecutorConfig) (agent.Executor, error) {
	ex, err := f.h.NewExecutor(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &brokenExecutor{Executor: ex.(*synthetic.Executor), mode: f.mode}, nil
}

type brokenExecutor struct {
	*synthetic.Executor
	mode breakage
}

func (e *brokenExecutor) StartTurn(ctx context.Context, req agent.TurnRequest) (agent.Turn, error) {
	out := req.Output
	if e.mode == eventAfterDone {
		inner := make(chan agent.Event, wire.OutputFramesMax)
		req.Output = inner
		defer func() { go forwardWithLateDelta(inner, out, req.RunID) }()
	}
	t, err := e.Executor.StartTurn(ctx, req)
	switch {
	case t == nil:
		if e.mode == eventAfterDone {
			close(req.Output) // nothing to forward; the caller still owns out
		}
		return nil, err
	case e.mode == nilAfterInput && err != nil:
		return nil, err
	case e.mode == minimalTurn:
		return struct{ agent.Turn }{t}, err
	}
	return &brokenTurn{Turn: t.(*synthetic.Turn), mode: e.mode}, err
}

func forwardWithLateDelta(in <-chan agent.Event, out chan<- agent.Event, runID string) {
	n := 0
	for ev := range in {
		n++
		out <- ev
		if ev.Terminal() {
			out <- agent.Event{RunID: runID, Payload: wire.Delta{Delta: "late", Sequence: 1000}}
		}
	}
	if n > 0 {
		close(out)
	}
}

func (e *brokenExecutor) Close(ctx context.Context) error {
	err := e.Executor.Close(ctx)
	if e.mode == swallowedClose {
		return nil
	}
	return err
}

type brokenTurn struct {
	*synthetic.Turn
	mode breakage
}

func (t *brokenTurn) AwaitSettlement(ctx context.Context) (agent.TurnSettlement, error) {
	if t.mode == earlySettle {
		return agent.Reuse(), nil
	}
	return t.Turn.AwaitSettlement(ctx)
}

func (t *brokenTurn) Cancel(ctx context.Context) error {
	if t.mode == noopCancel {
		return nil
	}
	return t.Turn.Cancel(ctx)
}

func (t *brokenTurn) SubmitFunctionResult(ctx context.Context, r wire.FunctionResult) error {
	switch t.mode {
	case effectfulRefusal:
		_ = t.Turn.Steer(ctx, agent.SteerInput{InputID: "smuggled", Input: wire.TextInput("smuggled")})
		return agent.Unsupported("not qualified")
	case unsafeReason:
		return fmt.Errorf("%w: cannot apply %q", agent.ErrUnsupportedOperation, *r.Content[0].Text)
	}
	return t.Turn.SubmitFunctionResult(ctx, r)
}

// TestBrokenAdaptersAreCaught proves that each broken rule is reported.
func TestBrokenAdaptersAreCaught(t *testing.T) {
	slow := synthetic.TurnScript{Deltas: []string{"a", "b"}, EventInterval: time.Second}
	cases := []struct {
		name  string
		mode  breakage
		setup func(h *synthetic.Harness, fx *contracttest.Fixture)
		check func(agent.ExecutorFactory, contracttest.Fixture) error
		want  string
	}{
		{"nil Turn after input", nilAfterInput, nil, contracttest.TestStartRule,
			"failure after input returned a nil Turn"},
		{"nil Turn but output used", nilAfterInput, nil, contracttest.TestStartRule,
			"start-after-input: nil Turn but the adapter closed the caller's output channel"},
		{"settled before output closed", earlySettle,
			func(h *synthetic.Harness, _ *contracttest.Fixture) { h.Script(slow, slow) },
			contracttest.TestLifecycle, "settlement reported while the output channel was still open"},
		{"event after done", eventAfterDone, nil, contracttest.TestLifecycle, "(delta) after done"},
		{"refusal with native effect", effectfulRefusal, nil, contracttest.TestUnsupported,
			"SubmitFunctionResult answered Unsupported but had a native effect"},
		{"refusal echoes content", unsafeReason, nil, contracttest.TestUnsupported,
			"SubmitFunctionResult refusal reason echoes submitted content"},
		{"declared but refused", effectfulRefusal,
			func(_ *synthetic.Harness, fx *contracttest.Fixture) {
				fx.Capabilities.FunctionTools = wire.CapabilitySupported
			},
			contracttest.TestUnsupported, "SubmitFunctionResult is declared but answered Unsupported"},
		{"close failure swallowed", swallowedClose, nil, contracttest.TestClose, "failed Close reported success"},
		{"extensions missing", minimalTurn, nil, contracttest.TestUnsupported,
			"Turn does not implement agent.Steerer"},
		{"cancel ignored", noopCancel, nil, contracttest.TestCancel, "AwaitSettlement"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := synthetic.New()
				fx := fixture(h)
				fx.Timeout = 30 * time.Second
				if tc.setup != nil {
					tc.setup(h, &fx)
				}
				err := tc.check(brokenFactory{h: h, mode: tc.mode}, fx)
				if !errors.Is(err, contracttest.ErrViolation) {
					t.Fatalf("broken adapter passed: %v", err)
				}
				if !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("report does not mention %q:\n%v", tc.want, err)
				}
			})
		})
	}
}
