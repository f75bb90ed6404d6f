package synthetic_test

import (
	"errors"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/contracttest"
	"github.com/turnstile-sim/turnstile/adapters/synthetic"
	"github.com/turnstile-sim/turnstile/wire"
)

var allExtensions = synthetic.Extensions{Permissions: true, FunctionTools: true}

func extendedFixture(h *synthetic.Harness) contracttest.Fixture {
	fx := fixture(h)
	fx.Capabilities = synthetic.Declaration(h).Capabilities
	return fx
}

// With the extensions qualified, the shared kit still passes: the
// declared operations never answer Unsupported, the lifecycle holds.
func TestExtendedHarnessPassesTheContractKit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.NewWith(allExtensions)
		caps := synthetic.Declaration(h).Capabilities
		if !caps.Permissions.IsSupported() || !caps.FunctionTools.IsSupported() || caps.FunctionResultImages.IsSupported() {
			t.Fatalf("declaration %+v", caps)
		}
		contracttest.UnsupportedExtensionsHaveNoNativeEffects(t, h, extendedFixture(h))
		contracttest.TextLifecycle(t, h, extendedFixture(h))
	})
}

// A Turn asks, waits for its answers and applies each natively once;
// unknown identities are not pending, answers bind by question ID.
func TestTurnAppliesAnswersToWhatItAsked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.NewWith(allExtensions)
		h.Script(synthetic.TurnScript{Deltas: []string{"a"}, Asks: []wire.Payload{
			wire.PermissionRequest{RequestID: "perm-1", Tool: "shell", Title: "ls"},
			wire.UserChoicePrompt{AskID: "ask-1", Questions: []wire.UserQuestion{{ID: "q1", Question: "which?", Options: []wire.UserOption{{Label: "x"}}}}},
			wire.FunctionCall{CallID: "call-1", Name: "f", Arguments: []byte(`{}`)},
		}})
		ex := newExecutor(t, h)
		tr := startTurn(t, ex, "run-1", wire.TextInput("hi"))
		synctest.Wait()
		perm := tr.Turn.(agent.PermissionResponder)
		choice := tr.Turn.(agent.UserChoiceResponder)
		fn := tr.Turn.(agent.FunctionResultSubmitter)
		ctx := t.Context()
		if err := perm.RespondPermission(ctx, "perm-9", wire.PermissionDecision{DeliveryID: "d", Approved: true}); !errors.Is(err, agent.ErrNotPending) {
			t.Fatalf("unknown permission: %v", err)
		}
		if err := perm.RespondPermission(ctx, "ask-1", wire.PermissionDecision{DeliveryID: "d", Approved: true}); !errors.Is(err, agent.ErrNotPending) {
			t.Fatalf("permission answer to a prompt: %v", err)
		}
		bad := wire.UserChoiceDecision{DeliveryID: "d", QuestionAnswers: []wire.QuestionAnswer{{QuestionID: "q2", Answers: []string{"x"}}}}
		if err := choice.RespondUserChoice(ctx, "ask-1", bad); !errors.Is(err, agent.ErrInvalidRequest) {
			t.Fatalf("answer to an unknown question: %v", err)
		}
		img := wire.FunctionResult{DeliveryID: "d", CallID: "call-1", Success: true, Content: []wire.InputContent{wire.ImagePart("https://x/y.png")}}
		if err := fn.SubmitFunctionResult(ctx, img); !errors.Is(err, agent.ErrUnsupportedOperation) {
			t.Fatalf("image result: %v", err)
		}
		if got := h.Truth().Decisions; len(got) != 0 {
			t.Fatalf("refusals applied something: %v", got)
		}
		if err := perm.RespondPermission(ctx, "perm-1", wire.PermissionDecision{DeliveryID: "d", Approved: true}); err != nil {
			t.Fatal(err)
		}
		if err := perm.RespondPermission(ctx, "perm-1", wire.PermissionDecision{DeliveryID: "d2", Approved: true}); !errors.Is(err, agent.ErrNotPending) {
			t.Fatalf("second answer: %v", err)
		}
		ok := wire.UserChoiceDecision{DeliveryID: "d", QuestionAnswers: []wire.QuestionAnswer{{QuestionID: "q1", Answers: []string{"x"}}}}
		if err := choice.RespondUserChoice(ctx, "ask-1", ok); err != nil {
			t.Fatal(err)
		}
		if err := fn.SubmitFunctionResult(ctx, wire.FunctionResult{DeliveryID: "d", CallID: "call-1", Success: true, Content: []wire.InputContent{}}); err != nil {
			t.Fatal(err)
		}
		mustSettle(t, tr)
		want := []string{"permission:perm-1:true", "user_choice:ask-1:q1=x", "function:call-1:true"}
		if got := h.Truth().Decisions; !slices.Equal(got, want) {
			t.Fatalf("decisions %v, want %v", got, want)
		}
		if err := perm.RespondPermission(ctx, "perm-1", wire.PermissionDecision{DeliveryID: "d3"}); !errors.Is(err, agent.ErrTurnInactive) {
			t.Fatalf("after settlement: %v", err)
		}
		_ = ex.Close(ctx)
	})
}

// Configured off, the extensions refuse with fixed reasons and no effect.
func TestExtensionsOffRefuse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		h.Script(synthetic.TurnScript{Hold: true})
		ex := newExecutor(t, h)
		tr := startTurn(t, ex, "run-1", wire.TextInput("hi"))
		err := tr.Turn.(agent.PermissionResponder).RespondPermission(t.Context(), "perm-1", wire.PermissionDecision{DeliveryID: "d"})
		if !errors.Is(err, agent.ErrUnsupportedOperation) {
			t.Fatalf("permission: %v", err)
		}
		_ = tr.Cancel(t.Context())
		mustSettle(t, tr)
		_ = ex.Close(t.Context())
	})
}
