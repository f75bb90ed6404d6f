package contracttest_test

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/contracttest"
	"github.com/turnstile-sim/turnstile/adapters/synthetic"
	"github.com/turnstile-sim/turnstile/wire"
)

// refusing is a factory whose Executors refuse every Turn before input.
type refusing struct{ h *synthetic.Harness }

func (f refusing) NewExecutor(ctx context.Context, cfg agent.ExecutorConfig) (agent.Executor, error) {
	ex, err := f.h.NewExecutor(ctx, cfg)
	if ex == nil {
		return nil, err
	}
	return refusingExecutor{ex.(*synthetic.Executor)}, err
}

type refusingExecutor struct{ *synthetic.Executor }

func (refusingExecutor) StartTurn(context.Context, agent.TurnRequest) (agent.Turn, error) {
	return nil, agent.ErrExecutorUnavailable
}

// wantUnexercised checks that c failed as exercised zero times for why.
func wantUnexercised(t *testing.T, rep *contracttest.Report, c contracttest.Clause, why string) {
	t.Helper()
	if !rep.Failed() || !slices.Contains(rep.Unexercised(), c) {
		t.Fatalf("%q is not reported unexercised (%v):\n%s", c, rep.Unexercised(), rep)
	}
	r := rep.Result(c)
	if r.Exercised != 0 || r.Passed() || len(r.Failures) != 1 || !strings.Contains(r.Failures[0], why) {
		t.Fatalf("%q: %+v; want one failure naming %q", c, r, why)
	}
	if !strings.Contains(rep.Failures(), "["+string(c)+"] not exercised: ") ||
		!strings.Contains(rep.String(), "FAIL "+string(c)+": not exercised: ") {
		t.Fatalf("the report does not name %q as not exercised:\n%s\n%s", c, rep.Failures(), rep)
	}
}

// An adapter that never starts a Turn exercises nothing: the lifecycle
// fails, each clause naming the start error.
func TestTextLifecycleWithoutTurnsFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		rep := contracttest.CheckTextLifecycle(refusing{h}, fixture(h))
		for _, c := range []contracttest.Clause{contracttest.ClauseOwnerContinuity, contracttest.ClauseStaleCancel,
			contracttest.ClauseLateEvents, contracttest.ClauseStreamShape} {
			wantUnexercised(t, rep, c, "no Turn started: ")
		}
		if !strings.Contains(rep.Result(contracttest.ClauseStreamShape).Failures[0], agent.ErrExecutorUnavailable.Error()) {
			t.Fatalf("the reason does not carry the start error: %v", rep.Result(contracttest.ClauseStreamShape).Failures)
		}
	})
}

// A clause whose hook is nil fails naming the hook, unless the author
// marks it not applicable, whose reason the report prints.
func TestMissingHookFailsUnlessNotApplicable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		fx := fixture(h)
		fx.LateEvent = nil
		rep := contracttest.CheckTextLifecycle(h, fx)
		wantUnexercised(t, rep, contracttest.ClauseLateEvents, "Fixture.LateEvent is nil")
		if got := rep.Unexercised(); len(got) != 1 {
			t.Fatalf("unexercised: %v", got)
		}

		const why = "the native engine delivers no callback after a Turn ends"
		fx.NotApplicable = map[contracttest.Clause]string{contracttest.ClauseLateEvents: why}
		rep = contracttest.CheckTextLifecycle(h, fx)
		if rep.Failed() {
			t.Fatalf("marked not applicable, the run failed:\n%s", rep.Failures())
		}
		if r := rep.Result(contracttest.ClauseLateEvents); !r.Passed() || r.NotApplicable != why {
			t.Fatalf("marked clause: %+v", r)
		}
		if !strings.Contains(rep.String(), "n/a  "+string(contracttest.ClauseLateEvents)+": not applicable: "+why) {
			t.Fatalf("the report does not print the reason:\n%s", rep)
		}
	})
}

// declaration returns the synthetic declaration with edit applied to the
// declared and the installed capabilities alike.
func declaration(h *synthetic.Harness, edit func(*wire.SupportedAgentKind)) agent.Declaration {
	d := synthetic.Declaration(h)
	k := wire.SupportedAgentKind{Available: true, Capabilities: d.Capabilities}
	edit(&k)
	d.Capabilities = k.Capabilities
	discover := d.Discover
	d.Discover = func(ctx context.Context, p map[string]string, w io.Writer) (*agent.Runtime, error) {
		rt, err := discover(ctx, p, w)
		if rt != nil {
			rt.Descriptor.Capabilities, rt.Descriptor.Available = k.Capabilities, k.Available
		}
		return rt, err
	}
	return d
}

func checkDeclaration(h *synthetic.Harness, d agent.Declaration) *contracttest.Report {
	fx := fixture(h)
	return contracttest.CheckDeclaration(d, contracttest.DeclarationOptions{Config: fx.Config, Dir: "../synthetic", Hold: fx.Hold})
}

// A declaration that disables capabilities Core always requires passes
// every completeness rule, but Core would refuse every Turn: the check
// fails naming the clause and the capability.
func TestDeclarationWithoutMandatoryCapabilityFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		rep := checkDeclaration(h, declaration(h, func(k *wire.SupportedAgentKind) {
			k.Capabilities.Steering = wire.CapabilityUnsupported
			k.Capabilities.ToolObservations = wire.CapabilityUnsupported
		}))
		wantUnexercised(t, rep, contracttest.ClauseCoreAdmits,
			"Core refuses every Turn: capability `steering` not declared (undeclared of what Core requires of every text Turn: `steering`, `tool_observations`)")
		if r := rep.Result(contracttest.ClauseDeclaration); !r.Passed() {
			t.Fatalf("the declaration itself is complete: %+v", r)
		}
	})
}

// A kind discovery installs unavailable is refused by Core.
func TestDeclarationInstalledUnavailableFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		rep := checkDeclaration(h, declaration(h, func(k *wire.SupportedAgentKind) { k.Available = false }))
		wantUnexercised(t, rep, contracttest.ClauseCoreAdmits, "discovery installed the kind unavailable")
	})
}

func TestDeclarationAdmittedByCore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		rep := checkDeclaration(h, synthetic.Declaration(h))
		if r := rep.Result(contracttest.ClauseCoreAdmits); !r.Passed() || r.Exercised == 0 {
			t.Fatalf("Core admits the synthetic kind: %+v\n%s", r, rep)
		}
	})
}

// A kind that declares local_environment but not what Core requires of a
// Turn in a local Environment is admitted without an environment, yet
// Core refuses every self_hosted Turn: the local clause fails, naming the
// capability.
func TestDeclarationLocalEnvironmentWithoutWorkspaceCapabilitiesFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		rep := checkDeclaration(h, declaration(h, func(k *wire.SupportedAgentKind) {
			k.Capabilities.WorkspaceOutputExport = wire.CapabilityUnsupported
		}))
		wantUnexercised(t, rep, contracttest.ClauseCoreAdmitsLocal,
			"Core refuses every Turn in a local Environment: capability `workspace_output_export` not declared")
		if r := rep.Result(contracttest.ClauseCoreAdmits); !r.Passed() || r.Exercised == 0 {
			t.Fatalf("a text Turn without an environment is still admitted: %+v", r)
		}
	})
}

// The local clause is exercised for a kind Core admits in a local
// Environment, and not applicable, with the reason printed, for one that
// does not declare local_environment.
func TestDeclarationLocalEnvironmentClause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		rep := checkDeclaration(h, synthetic.Declaration(h))
		if r := rep.Result(contracttest.ClauseCoreAdmitsLocal); !r.Passed() || r.Exercised == 0 {
			t.Fatalf("Core admits the synthetic kind in a local Environment: %+v\n%s", r, rep)
		}
		rep = checkDeclaration(h, declaration(h, func(k *wire.SupportedAgentKind) {
			k.Capabilities.LocalEnvironment = wire.CapabilityUnsupported
		}))
		r := rep.Result(contracttest.ClauseCoreAdmitsLocal)
		if r.Exercised != 0 || !r.Passed() || !strings.Contains(r.NotApplicable, "does not declare `local_environment`") {
			t.Fatalf("local clause of a kind without local_environment: %+v\n%s", r, rep)
		}
	})
}
