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
	"github.com/turnstile-sim/turnstile/core"
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

// mcodeNotApplicable are the text lifecycle clauses the mcode profile
// cannot exercise, with why. MiniMax Code's steer answers steered or
// duplicate (native acceptance) and nothing reports that the model
// consumed the input, so no receipt is ever applied: CheckReceipts, which
// requires a written input on a held Turn to be applied, cannot run;
// TestScriptedMCodeSteerOutcomes checks the written stage, the retry
// identity and the unknown outcome instead.
var mcodeNotApplicable = map[contracttest.Clause]string{
	contracttest.ClauseWriteVsApplied: "mcode has no proof of application (mcode/session/steer answers acceptance only): " +
		"every accepted steer ends unknown; TestScriptedMCodeSteerOutcomes checks written, retry identity and unknown",
	contracttest.ClauseUnknownKept: "exercised only by CheckReceipts, which needs an applied receipt mcode never proves; " +
		"TestScriptedMCodeSteerOutcomes checks that an accepted steer stays open while the Turn runs and ends unknown",
	contracttest.ClauseLateEvents: "not scripted: the scripted agent sends no update after a prompt answer " +
		"(a coverage gap of this fixture)",
	contracttest.ClauseCleanupFailure: "not scripted: this fixture cannot make stopping the agent's process group fail " +
		"(a coverage gap of this fixture)",
}

// The shared text lifecycle of the mcode profile over the scripted agent
// (MiniMax Code itself is not available here): every check but the
// durable receipts, and every clause of the text lifecycle exercised
// unless mcodeNotApplicable marks it, whose reasons the test prints.
func TestScriptedMCodeSharedTextLifecycle(t *testing.T) {
	k, fx := newScriptedKit(t)
	exercised := map[contracttest.Clause]int{}
	found := map[contracttest.Clause]string{} // not applicable, as a check found it
	checks := []contracttest.Check{contracttest.CheckLifecycle, contracttest.CheckStartRule,
		contracttest.CheckCancel, contracttest.CheckRetire, contracttest.CheckClose, contracttest.CheckUnsupported,
		contracttest.CheckPrepared}
	if len(checks) != len(contracttest.TextLifecycleChecks())-1 {
		t.Fatal("the text lifecycle has another check: run it here too")
	}
	for _, check := range checks {
		rep := check(k, fx)
		contracttest.Assert(t, "TextLifecycle", rep)
		for _, r := range rep.Results() {
			exercised[r.Clause] += r.Exercised
			if r.NotApplicable != "" {
				found[r.Clause] = r.NotApplicable
			}
		}
	}
	for _, c := range contracttest.TextLifecycleClauses() {
		reason, na := mcodeNotApplicable[c]
		if !na {
			reason, na = found[c], found[c] != ""
		}
		switch {
		case exercised[c] > 0 && na:
			t.Errorf("%s: exercised %d times but marked not applicable", c, exercised[c])
		case exercised[c] > 0:
			t.Logf("ok   %s: exercised %d times", c, exercised[c])
		case na:
			t.Logf("n/a  %s: not applicable: %s", c, reason)
		default:
			t.Errorf("%s: not exercised", c)
		}
	}
}

// The mcode declaration is complete and agrees with what the adapter
// implements, over the scripted agent. Core refuses every Turn of the
// kind: the profile proves no execution controls or subagent control,
// which Core requires of every Turn (execution_controls always,
// subagent_control without multi-agent), so ClauseCoreAdmits is marked not
// applicable and the refusal is asserted here, naming exactly those two.
func TestScriptedMCodeDeclarationIsComplete(t *testing.T) {
	k, _ := newScriptedKit(t)
	contracttest.Declaration(t, Declaration(k.s.h.opts), contracttest.DeclarationOptions{
		Config: mcodeConfig(), Timeout: 20 * time.Second,
		NotApplicable: map[contracttest.Clause]string{
			contracttest.ClauseCoreAdmits: "Core refuses acp:mcode: the profile proves no execution controls or subagent " +
				"control (MiniMax Code's tools are not removable through ACP here), which Core requires of every Turn",
			contracttest.ClauseCoreAdmitsLocal: "Core refuses every Turn of acp:mcode, in a local Environment too " +
				"(no execution controls, subagent control, workspace_read_preparation or workspace_output_export)",
		},
	})
	caps := Capabilities(MCode())
	var missing []string
	s := core.SessionRecord{Agent: core.AgentConfig{Kind: MCode().Kind(), Environment: core.EnvNone}}
	for _, name := range core.Requirements(s, core.EngineProfile{}, false) {
		if v, ok := caps.Lookup(name); !ok || !v.IsSupported() {
			missing = append(missing, name)
		}
	}
	if strings.Join(missing, ",") != "execution_controls,subagent_control" {
		t.Fatalf("what Core requires and acp:mcode does not declare: %v", missing)
	}
}
