package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
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

// kitHarness is the pinned agent against a fresh fake Messages API with
// Bash removed as well: the fake's held native turn calls Bash on every
// model request, which, removed, answers an error without a permission
// request, so a held Turn keeps running and takes steered input (a
// pending permission request would make the agent queue a steer behind
// it).
func kitHarness(t *testing.T) (*Harness, *claudetest.Server) {
	s := claudetest.NewServer(t)
	o := realOptions(t, s)
	meta := o.Profile.SessionMeta
	o.Profile.SessionMeta = func(model string) map[string]any {
		m := meta(model)
		options := m["claudeCode"].(map[string]any)["options"].(map[string]any)
		options["disallowedTools"] = append(slices.Clone(claudeRemovedTools), "Bash")
		return m
	}
	return New(o), s
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
		NotApplicable: map[contracttest.Clause]string{
			contracttest.ClauseLateEvents: "not scripted: the pinned agent and the fake Messages API offer no update after a " +
				"Turn's prompt answer (a coverage gap of this fixture, not a property of claude-agent-acp)",
			contracttest.ClauseCleanupFailure: "not scripted: this fixture cannot make stopping the agent's process group fail " +
				"(a coverage gap of this fixture, not a property of claude-agent-acp)",
		},
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

// The shared text lifecycle against the pinned agent and the fake
// Messages API, every clause (durable input receipts included): Hold keeps
// the next Turn's native turn running on tool calls until it is cancelled,
// and a steer into it is applied on Claude Code's replay of it; NativeExit
// holds it and kills the agent's process group once the Turn started.
func TestSharedTextLifecycle(t *testing.T) {
	h, s := kitHarness(t)
	f, fx := kitFixture(h, s)
	contracttest.TextLifecycle(t, f, fx)
}

// Every extension the declaration leaves unsupported answers Unsupported
// without a native effect.
func TestUnsupportedExtensionsHaveNoNativeEffects(t *testing.T) {
	h, s := kitHarness(t)
	f, fx := kitFixture(h, s)
	contracttest.UnsupportedExtensionsHaveNoNativeEffects(t, f, fx)
}

// Every capability is decided, and the declaration, the interfaces the
// adapter implements and contracts.go agree (over the pinned agent).
func TestDeclarationIsComplete(t *testing.T) {
	s := claudetest.NewServer(t)
	opts := realOptions(t, s)
	contracttest.Declaration(t, Declaration(opts), contracttest.DeclarationOptions{
		Config: testConfig(opts.Profile.Kind()), Hold: func() { s.HoldSession("") }, Timeout: 60 * time.Second,
		NotApplicable: map[contracttest.Clause]string{
			contracttest.ClauseCoreAdmitsLocal: "ACP kinds declare local_environment but neither workspace_read_preparation " +
				"nor workspace_output_export: Core refuses every ACP Turn in a local Environment",
		}})
}
