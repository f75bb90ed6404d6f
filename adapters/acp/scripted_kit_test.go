package acp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/acp/acptest"
	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/contracttest"
)

// scriptedKit is the mcode profile over the scripted agent with the
// controls contracttest needs: Hold adds a hold token (the next prompt
// runs until cancelled); NativeExit holds the next Turn and kills the
// agent's process group once it started.
type scriptedKit struct {
	s     scripted
	holds *atomic.Int64
	exit  *atomic.Bool
}

func newScriptedKit(t *testing.T) (scriptedKit, contracttest.Fixture) {
	dir := t.TempDir()
	k := scriptedKit{s: newScripted(t, func(o *Options) { o.Env = append(o.Env, acptest.EnvHold+"="+dir) }),
		holds: new(atomic.Int64), exit: new(atomic.Bool)}
	arm := func() {
		name := filepath.Join(dir, fmt.Sprintf("hold-%d", k.holds.Add(1)))
		if err := os.WriteFile(name, nil, 0o600); err != nil {
			t.Error(err)
		}
	}
	fx := contracttest.Fixture{
		Config:       mcodeConfig(),
		Capabilities: Capabilities(MCode()),
		Hold:         arm,
		NativeExit: func() {
			arm()
			k.exit.Store(true)
		},
		Effects:        func() string { return k.effects(t) },
		UnknownOutcome: ErrApplyUnknown,
		Window:         200 * time.Millisecond,
		Timeout:        20 * time.Second,
	}
	return k, fx
}

func (k scriptedKit) NewExecutor(ctx context.Context, cfg agent.ExecutorConfig) (agent.Executor, error) {
	ex, err := k.s.h.NewExecutor(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return kitExecutor{ex.(*Executor), k}, nil
}

type kitExecutor struct {
	*Executor
	k scriptedKit
}

func (e kitExecutor) StartTurn(ctx context.Context, req agent.TurnRequest) (agent.Turn, error) {
	turn, err := e.Executor.StartTurn(ctx, req)
	if turn != nil && err == nil && e.k.exit.CompareAndSwap(true, false) {
		_ = syscall.Kill(-e.Pid(), syscall.SIGKILL)
	}
	return turn, err
}

// effects fingerprints what reached the agent besides prompts: a line
// carrying the canary that is not a session/prompt is a native effect.
func (k scriptedKit) effects(t *testing.T) string {
	n := 0
	for _, l := range k.s.lines(t, canaryText) {
		if !strings.Contains(l, `"method":"session/prompt"`) {
			n++
		}
	}
	return fmt.Sprintf("%d lines", n)
}

// The shared text lifecycle, for the clauses the declaration claims, of
// the mcode profile over the scripted agent (MiniMax Code itself is not
// available here).
func TestScriptedMCodeSharedTextLifecycle(t *testing.T) {
	k, fx := newScriptedKit(t)
	for _, check := range claimedChecks() {
		contracttest.Assert(t, "TextLifecycle", check(k, fx))
	}
}

// The mcode declaration is complete and agrees with what the adapter
// implements, over the scripted agent.
func TestScriptedMCodeDeclarationIsComplete(t *testing.T) {
	k, _ := newScriptedKit(t)
	contracttest.Declaration(t, Declaration(k.s.h.opts), contracttest.DeclarationOptions{
		Config: mcodeConfig(), Timeout: 20 * time.Second})
}
