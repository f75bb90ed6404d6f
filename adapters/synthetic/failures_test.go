package synthetic_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/synthetic"
	"github.com/turnstile-sim/turnstile/wire"
)

// untouched reports whether the caller-owned channel stayed empty and open
// once every goroutine of the bubble is blocked.
func untouched(t *testing.T, out chan agent.Event) {
	t.Helper()
	synctest.Wait()
	select {
	case ev, ok := <-out:
		t.Fatalf("nil Turn but output used: %v %v", ev, ok)
	default:
	}
	close(out) // the caller owns it after a nil Turn
}

func TestImageInputIsRejectedNotDropped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		ex := newExecutor(t, h)
		img := wire.MessageInput{{Content: []wire.InputContent{wire.TextPart("see"), wire.ImagePart("https://example.invalid/a.png")}}}
		tr := startTurn(t, ex, "run-1", img)
		if tr.Turn != nil || !errors.Is(tr.startErr, wire.ErrImageUnsupported) ||
			!errors.Is(tr.startErr, agent.ErrUnsupportedOperation) {
			t.Fatalf("StartTurn(image) = %v, %v", tr.Turn, tr.startErr)
		}
		untouched(t, tr.out)
		h.Script(synthetic.TurnScript{Hold: true})
		held := startTurn(t, ex, "run-2", wire.TextInput("text"))
		_, err := held.SteerDurable(t.Context(), agent.SteerInput{InputID: "i1", Input: img})
		if !errors.Is(err, wire.ErrImageUnsupported) {
			t.Fatalf("SteerDurable(image) = %v", err)
		}
		_ = held.Cancel(t.Context())
		mustSettle(t, held)
		if got := h.Truth().InputsApplied; !slices.Equal(got, []string{"text"}) {
			t.Fatalf("inputs applied %v: an image input reached the native side", got)
		}
		_ = ex.Close(t.Context())
	})
}

func TestStartFailureBeforeInputReturnsNilTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		h.Script(synthetic.TurnScript{StartFailure: synthetic.StartFailsBeforeInput})
		ex := newExecutor(t, h)
		tr := startTurn(t, ex, "run-1", wire.TextInput("hi"))
		if tr.Turn != nil || !errors.Is(tr.startErr, agent.ErrExecutorUnavailable) {
			t.Fatalf("StartTurn = %v, %v", tr.Turn, tr.startErr)
		}
		untouched(t, tr.out)
		if truth := h.Truth(); truth.TurnsStarted != 0 || len(truth.InputsApplied) != 0 {
			t.Fatalf("truth %+v after a refused start", truth)
		}
		next := startTurn(t, ex, "run-2", wire.TextInput("again"))
		if next.startErr != nil {
			t.Fatalf("Executor unusable after a refused start: %v", next.startErr)
		}
		mustSettle(t, next)
		_ = ex.Close(t.Context())
	})
}

func TestStartFailureAfterInputReturnsTurnAndRetires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		h.Script(synthetic.TurnScript{StartFailure: synthetic.StartFailsAfterInput})
		ex := newExecutor(t, h)
		tr := startTurn(t, ex, "run-1", wire.TextInput("hi"))
		if tr.Turn == nil || !errors.Is(tr.startErr, synthetic.ErrStartFailedAfterInput) {
			t.Fatalf("StartTurn = %v, %v", tr.Turn, tr.startErr)
		}
		s := mustSettle(t, tr)
		if s.Reusable || s.Reason == "" {
			t.Fatalf("settlement %+v, want retirement with a reason", s)
		}
		if evs := <-tr.events; len(evs) != 0 {
			t.Fatalf("events %v from an unconfirmed start", evs)
		}
		if got := h.Truth().InputsApplied; !slices.Equal(got, []string{"hi"}) {
			t.Fatalf("inputs applied %v", got)
		}
		next := startTurn(t, ex, "run-2", wire.TextInput("again"))
		if next.Turn != nil || !errors.Is(next.startErr, agent.ErrExecutorUnavailable) {
			t.Fatalf("retired Executor started %v, %v", next.Turn, next.startErr)
		}
		untouched(t, next.out)
		if err := ex.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
	})
}

func TestSlowCancelSettlesLate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		h.Script(synthetic.TurnScript{Deltas: []string{"partial"}, Hold: true, CancelLatency: 5 * time.Second})
		ex := newExecutor(t, h)
		tr := startTurn(t, ex, "run-1", wire.TextInput("hi"))
		synctest.Wait()
		begin := time.Now()
		if err := tr.Cancel(t.Context()); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		_, err := tr.AwaitSettlement(ctx)
		cancel()
		if !errors.Is(err, agent.ErrNotSettled) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("early AwaitSettlement = %v", err)
		}
		outcome := tr.CancellationOutcome()
		if outcome.Content != "partial" || outcome.Completed {
			t.Fatalf("outcome during slow cancel %+v", outcome)
		}
		s := mustSettle(t, tr)
		if elapsed := time.Since(begin); elapsed != 5*time.Second || !s.Reusable {
			t.Fatalf("settled after %v with %+v", elapsed, s)
		}
		evs := <-tr.events
		done := evs[len(evs)-1].Payload.(wire.Done)
		if done.Content != "partial" || done.Metadata.AgentSessionID == "" {
			t.Fatalf("done after cancel %+v", done)
		}
		if tr.CancellationOutcome().NativeSessionID == "" {
			t.Fatal("outcome lost the native identity after settlement")
		}
		_ = ex.Close(t.Context())
	})
}

func TestDurableSteerWrittenThenAccepted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		h.Script(synthetic.TurnScript{Hold: true, SteerApplyLatency: 2 * time.Second})
		ex := newExecutor(t, h)
		tr := startTurn(t, ex, "run-1", wire.TextInput("hi"))
		in := agent.SteerInput{InputID: "input-1", Input: wire.TextInput("more")}
		rc, err := tr.SteerDurable(t.Context(), in)
		if err != nil {
			t.Fatal(err) // the written stage
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		err = rc.AwaitApplied(ctx)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("AwaitApplied before application = %v", err)
		}
		if got := h.Truth().InputsApplied; !slices.Equal(got, []string{"hi"}) {
			t.Fatalf("written input counted as applied: %v", got)
		}
		if err := rc.AwaitApplied(t.Context()); err != nil {
			t.Fatal(err)
		}
		again, err := tr.SteerDurable(t.Context(), in)
		if err != nil || again != rc {
			t.Fatalf("retry of a known input = %v, %v; want the same receipt", again, err)
		}
		in.Input = wire.TextInput("other")
		if _, err := tr.SteerDurable(t.Context(), in); !errors.Is(err, agent.ErrInputConflict) {
			t.Fatalf("conflicting retry = %v", err)
		}
		synctest.Wait()
		if got := h.Truth().InputsApplied; !slices.Equal(got, []string{"hi", "more"}) {
			t.Fatalf("inputs applied %v, want one application", got)
		}
		_ = tr.Cancel(t.Context())
		mustSettle(t, tr)
		_, err = tr.SteerDurable(t.Context(), agent.SteerInput{InputID: "late", Input: wire.TextInput("x")})
		if !errors.Is(err, agent.ErrTurnInactive) {
			t.Fatalf("steer after settlement = %v", err)
		}
		_ = ex.Close(t.Context())
	})
}

func TestWrittenInputNotAppliedWhenTurnEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		h.Script(synthetic.TurnScript{Hold: true, SteerApplyLatency: time.Minute})
		ex := newExecutor(t, h)
		tr := startTurn(t, ex, "run-1", wire.TextInput("hi"))
		rc, err := tr.SteerDurable(t.Context(), agent.SteerInput{InputID: "i1", Input: wire.TextInput("late")})
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		_ = tr.Cancel(t.Context())
		mustSettle(t, tr)
		if err := rc.AwaitApplied(t.Context()); !errors.Is(err, agent.ErrTurnInactive) {
			t.Fatalf("AwaitApplied = %v, want ErrTurnInactive", err)
		}
		if got := h.Truth().InputsApplied; !slices.Equal(got, []string{"hi"}) {
			t.Fatalf("inputs applied %v", got)
		}
		_ = ex.Close(t.Context())
	})
}

func TestInvalidSteerInputIsRejected(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		h.Script(synthetic.TurnScript{Hold: true})
		ex := newExecutor(t, h)
		tr := startTurn(t, ex, "run-1", wire.TextInput("hi"))
		for _, in := range []agent.SteerInput{
			{InputID: "", Input: wire.TextInput("x")},
			{InputID: string(make([]byte, wire.InputIDBytesMax+1)), Input: wire.TextInput("x")},
			{InputID: "i", Input: wire.MessageInput{}},
		} {
			if _, err := tr.SteerDurable(t.Context(), in); !errors.Is(err, agent.ErrInvalidRequest) {
				t.Errorf("SteerDurable(%.8q) = %v", in.InputID, err)
			}
		}
		_ = ex.Close(t.Context()) // cancels and settles the held Turn
		mustSettle(t, tr)
	})
}
