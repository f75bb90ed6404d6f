package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/claude/claudetest"
	"github.com/turnstile-sim/turnstile/adapters/contracttest"
)

// canaryText is the content contracttest submits to operations it expects
// refused; a model request carrying it outside a user message, or a file
// named after it, is a native effect.
const canaryText = "contract-canary-5e1d"

// heldFactory holds the native session of the Turn started after Hold:
// the fake answers its model requests with tool calls until the Turn is
// cancelled; the hold ends when that Turn settles.
type heldFactory struct {
	h    *Harness
	s    *claudetest.Server
	hold *atomic.Bool // the next started Turn is held
	exit *atomic.Bool // the next started Turn's agent is killed
}

func (f heldFactory) NewExecutor(ctx context.Context, cfg agent.ExecutorConfig) (agent.Executor, error) {
	ex, err := f.h.NewExecutor(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return heldExecutor{ex.(*Executor), f}, nil
}

type heldExecutor struct {
	*Executor
	f heldFactory
}

func (e heldExecutor) StartTurn(ctx context.Context, req agent.TurnRequest) (agent.Turn, error) {
	held := e.f.hold.CompareAndSwap(true, false)
	if held {
		e.f.s.HoldSession(e.SessionID())
	}
	turn, err := e.Executor.StartTurn(ctx, req)
	if turn == nil {
		if held {
			e.f.s.ReleaseSession(e.SessionID())
		}
		return turn, err
	}
	if held {
		go func() {
			_, _ = turn.AwaitSettlement(context.Background())
			e.f.s.ReleaseSession(e.SessionID())
		}()
	}
	if err == nil && e.f.exit.CompareAndSwap(true, false) {
		// The agent's process group dies in the middle of the Turn.
		_ = syscall.Kill(-e.Pid(), syscall.SIGKILL)
	}
	return turn, err
}

func kitFixture(h *Harness, s *claudetest.Server) (heldFactory, contracttest.Fixture) {
	f := heldFactory{h: h, s: s, hold: new(atomic.Bool), exit: new(atomic.Bool)}
	fx := contracttest.Fixture{
		Config:       testConfig(h.Kind()),
		Capabilities: Capabilities(h.opts.Profile),
		Hold:         func() { f.hold.Store(true) },
		NativeExit: func() {
			f.hold.Store(true)
			f.exit.Store(true)
		},
		Effects:        func() string { return canaryEffects(s, h.opts.WorkDir) },
		UnknownOutcome: ErrApplyUnknown,
		Window:         300 * time.Millisecond,
		Timeout:        60 * time.Second,
	}
	return f, fx
}

// canaryEffects fingerprints what an unsupported operation could do
// natively: a model request carrying the canary outside the user's
// messages, or a file named after it in a working directory.
func canaryEffects(s *claudetest.Server, workDir string) string {
	n := 0
	for _, body := range s.Requests() {
		rest := map[string]any{}
		for k, v := range body {
			if k != "messages" {
				rest[k] = v
			}
		}
		b, _ := json.Marshal(rest)
		if strings.Contains(string(b), canaryText) {
			n++
		}
	}
	files, _ := filepath.Glob(filepath.Join(workDir, "*", canaryText+"*"))
	return fmt.Sprintf("%d requests, %d files", n, len(files))
}

// claimedChecks are the text lifecycle checks of the clauses the
// declaration claims: every check but the durable receipts (durable input
// receipts are unsupported: no ACP agent proves that a steered input was
// consumed, TestRealSteerThroughExtension checks the unknown outcome).
func claimedChecks() []contracttest.Check {
	return []contracttest.Check{contracttest.CheckLifecycle, contracttest.CheckStartRule,
		contracttest.CheckCancel, contracttest.CheckRetire, contracttest.CheckClose, contracttest.CheckUnsupported}
}

// The shared text lifecycle against the pinned agent and the fake
// Messages API, for the clauses the declaration claims: Hold keeps the
// next Turn's native turn running on tool calls until it is cancelled;
// NativeExit holds it and kills the agent's process group once the Turn
// started.
func TestSharedTextLifecycle(t *testing.T) {
	if Capabilities(ClaudeAgentACP()).DurableInputReceipts.IsSupported() {
		t.Fatal("durable input receipts are declared: run contracttest.TextLifecycle whole")
	}
	h, s := realHarness(t)
	f, fx := kitFixture(h, s)
	for _, check := range claimedChecks() {
		contracttest.Assert(t, "TextLifecycle", check(f, fx))
	}
}

// Every extension the declaration leaves unsupported answers Unsupported
// without a native effect.
func TestUnsupportedExtensionsHaveNoNativeEffects(t *testing.T) {
	h, s := realHarness(t)
	f, fx := kitFixture(h, s)
	contracttest.UnsupportedExtensionsHaveNoNativeEffects(t, f, fx)
}

// Every capability is decided, and the declaration, the interfaces the
// adapter implements and contracts.go agree (over the pinned agent).
func TestDeclarationIsComplete(t *testing.T) {
	s := claudetest.NewServer(t)
	opts := realOptions(t, s)
	contracttest.Declaration(t, Declaration(opts), contracttest.DeclarationOptions{
		Config: testConfig(opts.Profile.Kind()), Hold: func() { s.HoldSession("") }, Timeout: 60 * time.Second})
}
