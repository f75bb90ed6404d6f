package codex

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/contracttest"
	"github.com/turnstile-sim/turnstile/internal/testgate"
	"github.com/turnstile-sim/turnstile/wire"
)

// newAskExecutor is an Executor of the on-request mode over the fake.
func newAskExecutor(t *testing.T) (*fakeHarness, *Executor) {
	t.Helper()
	f := newFakeHarness(t)
	f.opts.Approvals = ApprovalsOnRequest
	ex := newFakeExecutor(t, f)
	b, err := os.ReadFile(filepath.Join(f.dir, "policy"))
	if err != nil || string(b) != "untrusted danger-full-access" {
		t.Fatalf("thread/start policy %q (%v), want untrusted danger-full-access", b, err)
	}
	return f, ex
}

// nextPermission reads events up to the next permission request.
func nextPermission(t *testing.T, r *turnRun) wire.PermissionRequest {
	t.Helper()
	for {
		if p, ok := r.next(t).Payload.(wire.PermissionRequest); ok {
			return p
		}
	}
}

// awaitEffect waits for the fake to record line.
func awaitEffect(t *testing.T, f *fakeHarness, line string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !f.applied(line) {
		if time.Now().After(deadline) {
			t.Fatalf("the fake never recorded %q; effects %q", line, f.effects())
		}
		<-time.After(10 * time.Millisecond)
	}
}

func respond(turn agent.Turn, id string, approved bool) error {
	return turn.(agent.PermissionResponder).RespondPermission(context.Background(), id,
		wire.PermissionDecision{DeliveryID: "delivery-" + id, Approved: approved})
}

// In the on-request mode each approval app-server asks for on the Turn's
// native turn is one permission request (ID = the JSON-RPC request ID);
// an approval of another turn is declined; answers are written with the
// schema's decisions; an unknown or answered ID is ErrNotPending.
func TestFakeApprovalsForwarded(t *testing.T) {
	f, ex := newAskExecutor(t)
	f.arm(t, fakeAsk)
	r := startRun(t, ex, "run-ask", "go")
	if r.err != nil {
		t.Fatal(r.err)
	}
	cmd, file := nextPermission(t, r), nextPermission(t, r)
	if cmd.RequestID != "srv-cmd" || cmd.Tool != "shell" || cmd.Detail != "needs to clean" || !strings.Contains(string(cmd.Payload), "rm -rf build") {
		t.Fatalf("command approval %+v", cmd)
	}
	if file.RequestID != "7" || file.Tool != "apply_patch" {
		t.Fatalf("file change approval %+v", file)
	}
	awaitEffect(t, f, "answer 8 decline") // another turn's approval
	if err := respond(r.turn, "srv-cmd", true); err != nil {
		t.Fatal(err)
	}
	awaitEffect(t, f, `answer "srv-cmd" accept`)
	if err := respond(r.turn, "7", false); err != nil {
		t.Fatal(err)
	}
	awaitEffect(t, f, "answer 7 decline")
	for _, id := range []string{"srv-cmd", "7", "8", "permission-1"} {
		if err := respond(r.turn, id, true); !errors.Is(err, agent.ErrNotPending) {
			t.Errorf("RespondPermission(%q) = %v, want ErrNotPending", id, err)
		}
	}
	if err := r.turn.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.settle(t)
	for _, ev := range r.got {
		if _, ok := ev.Payload.(wire.PermissionCancel); ok {
			t.Errorf("answered approval withdrawn: %+v", ev)
		}
	}
	closeExec(t, ex)
}

// A Turn that settles with approvals unanswered withdraws each with a
// permission_cancel before done; a late answer is ErrNotPending and
// writes nothing.
func TestFakeApprovalsWithdrawnAtSettlement(t *testing.T) {
	f, ex := newAskExecutor(t)
	f.arm(t, fakeAsk)
	r := startRun(t, ex, "run-ask", "go")
	if r.err != nil {
		t.Fatal(r.err)
	}
	nextPermission(t, r)
	nextPermission(t, r)
	if err := respond(r.turn, "7", true); err != nil {
		t.Fatal(err)
	}
	if err := r.turn.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.settle(t)
	var cancels []string
	for _, ev := range r.got {
		if _, ok := ev.Payload.(wire.PermissionCancel); ok {
			if err := ev.Validate(); err != nil {
				t.Fatal(err)
			}
			cancels = append(cancels, ev.InteractionID)
		}
	}
	if !slices.Equal(cancels, []string{"srv-cmd"}) {
		t.Fatalf("withdrawn %v, want [srv-cmd]", cancels)
	}
	if _, ok := r.got[len(r.got)-2].Payload.(wire.PermissionCancel); !ok {
		t.Fatalf("the withdrawal does not come right before done: %v", r.got)
	}
	if err := respond(r.turn, "srv-cmd", true); !errors.Is(err, agent.ErrNotPending) {
		t.Fatalf("late answer = %v, want ErrNotPending", err)
	}
	closeExec(t, ex)
	if strings.Contains(f.effects(), `"srv-cmd"`) {
		t.Fatalf("a withdrawn approval was answered: %q", f.effects())
	}
}

// The never mode keeps the fixed-reason refusal; an unknown mode fails
// discovery; the on-request declaration differs only in permissions.
func TestApprovalModes(t *testing.T) {
	f := newFakeHarness(t)
	ex := newFakeExecutor(t, f)
	f.arm(t, fakeHold)
	r := startRun(t, ex, "run-never", "go")
	err := respond(r.turn, "permission-1", true)
	if !errors.Is(err, agent.ErrUnsupportedOperation) || err.Error() != agent.Unsupported(reasonInteractions).Error() {
		t.Fatalf("never mode: %v", err)
	}
	_ = r.turn.Cancel(context.Background())
	r.settle(t)
	closeExec(t, ex)
	if c := Declaration(Options{}).Capabilities; c.Permissions != wire.CapabilityUnsupported {
		t.Fatalf("default declares permissions %v", c.Permissions)
	}
	want := Capabilities()
	want.Permissions = wire.CapabilitySupported
	if got := Declaration(Options{Approvals: ApprovalsOnRequest}).Capabilities; got != want {
		t.Fatalf("on-request declaration %+v", got)
	}
	if _, err := Declaration(Options{Binary: "codex", Approvals: "always"}).Discover(context.Background(), nil, nil); err == nil {
		t.Fatal("an unknown approval mode was accepted")
	}
}

// The contract kit over the on-request mode: its declaration is complete
// and, permissions being declared, an interaction the Turn never emitted
// is ErrNotPending while every other unsupported extension still refuses
// without a native effect.
func TestApprovalModeContracts(t *testing.T) {
	testgate.Long(t) // the contract kit waits out its real-time windows
	f := newFakeHarness(t)
	opts := fakeOptions(t, f)
	opts.Approvals = ApprovalsOnRequest
	contracttest.Declaration(t, Declaration(opts), contracttest.DeclarationOptions{
		Config: fakeConfig(), Hold: func() { f.arm(t, fakeHold) }, Timeout: 30 * time.Second})
	f.opts.Approvals = ApprovalsOnRequest
	contracttest.UnsupportedExtensionsHaveNoNativeEffects(t, f, contracttest.Fixture{
		Config:       fakeConfig(),
		Capabilities: ApprovalCapabilities(),
		Hold:         func() { f.arm(t, fakeHold) },
		Effects:      f.effects,
		Window:       300 * time.Millisecond,
		Timeout:      30 * time.Second,
	})
}

// app-server reporting another sandbox than full access (as a managed
// requirements file could impose) fails NewExecutor with ErrNativePolicy
// (the Executor is closed, not returned); the approval policy asked for is the
// mode's: never, or untrusted for on-request, always with full access.
func TestFakeNativePolicyChecked(t *testing.T) {
	for _, mode := range []string{ApprovalsNever, ApprovalsOnRequest} {
		f := newFakeHarness(t)
		f.opts.Approvals = mode
		ex := newFakeExecutor(t, f)
		b, err := os.ReadFile(filepath.Join(f.dir, "policy"))
		if want := f.approvalPolicy() + " " + sandboxFull; err != nil || string(b) != want {
			t.Fatalf("%s: thread/start policy %q (%v), want %q", mode, b, err, want)
		}
		closeExec(t, ex)
	}
	if (&Harness{opts: Options{Approvals: ApprovalsOnRequest}}).approvalPolicy() != policyUntrusted {
		t.Fatal("on-request mode does not ask app-server for approvals")
	}
	f := newFakeHarness(t)
	if err := os.WriteFile(filepath.Join(f.dir, "applied"), []byte("workspaceWrite"), 0o600); err != nil {
		t.Fatal(err)
	}
	ex, err := f.NewExecutor(t.Context(), fakeConfig())
	if !errors.Is(err, ErrNativePolicy) || ex != nil {
		t.Fatalf("a sandboxed thread was accepted: %v, %v", ex, err)
	}
}
