package agent_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"testing"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// Test-local factories; they are never called.
type sessions struct{}

func (sessions) StartSession(context.Context, agent.ExecutorConfig, agent.TurnRequest) (agent.Session, error) {
	return nil, errors.New("unused")
}

type executors struct{}

func (executors) NewExecutor(context.Context, agent.ExecutorConfig) (agent.Executor, error) {
	return nil, errors.New("unused")
}

type preparations struct{}

func (preparations) Prepare(context.Context, agent.ExecutorConfig) (agent.Prepared, error) {
	return nil, errors.New("unused")
}

func caps() wire.AgentKindCapabilities { return wire.AllCapabilities(wire.CapabilitySupported) }

func descriptor(kind string) wire.SupportedAgentKind {
	return wire.SupportedAgentKind{Kind: kind, Available: true, Capabilities: caps()}
}

func modelConfig() agent.ModelConfiguration {
	return agent.ModelConfiguration{Protocols: []agent.ModelProtocol{agent.ProtocolOpenAIResponses}}
}

// state renders everything observable about a Registry.
func state(r *agent.Registry, kinds ...string) string {
	s := fmt.Sprintf("%+v", r.Kinds())
	for _, k := range kinds {
		_, e := r.Executors(k)
		_, ss := r.Sessions(k)
		_, wr, p := r.Preparations(k)
		c, ok := r.Configuration(k)
		s += fmt.Sprintf("|%s e=%v s=%v p=%v wr=%v c=%v/%v", k, e, ss, p, wr, c, ok)
	}
	return s
}

// populated has kind "a" fully registered.
func populated(t *testing.T) *agent.Registry {
	t.Helper()
	var r agent.Registry
	if err := r.RegisterKind(descriptor("a"), modelConfig(), sessions{}); err != nil {
		t.Fatal(err)
	}
	if err := r.RegisterExecutor("a", executors{}); err != nil {
		t.Fatal(err)
	}
	if err := r.RegisterPreparation("a", true, preparations{}); err != nil {
		t.Fatal(err)
	}
	return &r
}

func TestRegisterKindRejectionsLeaveRegistryUnchanged(t *testing.T) {
	missing := descriptor("b")
	missing.Capabilities.MessageImages = wire.CapabilityUnspecified
	cases := map[string]struct {
		kind wire.SupportedAgentKind
		cfg  agent.ModelConfiguration
		f    agent.Factory
		want error
	}{
		"blank kind":         {descriptor(""), modelConfig(), sessions{}, agent.ErrInvalidDeclaration},
		"padded kind":        {descriptor(" b"), modelConfig(), sessions{}, agent.ErrInvalidDeclaration},
		"unspecified field":  {missing, modelConfig(), sessions{}, wire.ErrMissingField},
		"protocols missing":  {descriptor("b"), agent.ModelConfiguration{}, sessions{}, agent.ErrInvalidDeclaration},
		"unknown protocol":   {descriptor("b"), agent.ModelConfiguration{Protocols: []agent.ModelProtocol{"grpc"}}, sessions{}, agent.ErrInvalidDeclaration},
		"duplicate protocol": {descriptor("b"), agent.ModelConfiguration{Protocols: []agent.ModelProtocol{agent.ProtocolAnthropicMessages, agent.ProtocolAnthropicMessages}}, sessions{}, agent.ErrInvalidDeclaration},
		"nil factory":        {descriptor("b"), modelConfig(), nil, agent.ErrNilFactory},
		"reset by bad kind":  {func() wire.SupportedAgentKind { d := missing; d.Kind = "a"; return d }(), modelConfig(), sessions{}, wire.ErrMissingField},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := populated(t)
			before := state(r, "a", "b")
			err := r.RegisterKind(tc.kind, tc.cfg, tc.f)
			if !errors.Is(err, tc.want) {
				t.Fatalf("RegisterKind = %v, want %v", err, tc.want)
			}
			if after := state(r, "a", "b"); after != before {
				t.Fatalf("registry changed:\n%s\n%s", before, after)
			}
		})
	}
}

// TestEveryCapabilityFieldNeedsADecision ranges over every member, so a new
// field without a decision fails here.
func TestEveryCapabilityFieldNeedsADecision(t *testing.T) {
	probe := caps()
	for _, f := range probe.Fields() {
		d := descriptor("b")
		for _, g := range d.Capabilities.Fields() {
			if g.Name == f.Name {
				*g.Value = wire.CapabilityUnspecified
			}
		}
		var r agent.Registry
		err := r.RegisterKind(d, modelConfig(), sessions{})
		if !errors.Is(err, agent.ErrInvalidDeclaration) || !errors.Is(err, wire.ErrMissingField) {
			t.Errorf("%s unspecified: RegisterKind = %v", f.Name, err)
		}
		if len(r.Kinds()) != 0 {
			t.Errorf("%s unspecified: registered anyway", f.Name)
		}
	}
}

func TestFactoryRegistrationRejections(t *testing.T) {
	noPrep := descriptor("n")
	noPrep.Capabilities.Preparation = wire.CapabilityUnsupported
	noPrep.Capabilities.WorkspaceReadPreparation = wire.CapabilityUnsupported
	cases := map[string]struct {
		call func(r *agent.Registry) error
		want error
	}{
		"executor before kind": {func(r *agent.Registry) error { return r.RegisterExecutor("x", executors{}) }, agent.ErrKindNotRegistered},
		"nil executor":         {func(r *agent.Registry) error { return r.RegisterExecutor("a", nil) }, agent.ErrNilFactory},
		"executor without preparation": {func(r *agent.Registry) error {
			if err := r.RegisterKind(noPrep, modelConfig(), sessions{}); err != nil {
				return err
			}
			return r.RegisterExecutor("n", executors{})
		}, agent.ErrCapabilityMismatch},
		"preparation before kind": {func(r *agent.Registry) error { return r.RegisterPreparation("x", false, preparations{}) }, agent.ErrKindNotRegistered},
		"nil preparation":         {func(r *agent.Registry) error { return r.RegisterPreparation("a", false, nil) }, agent.ErrNilFactory},
		"undeclared workspace read": {func(r *agent.Registry) error {
			if err := r.RegisterKind(noPrep, modelConfig(), sessions{}); err != nil {
				return err
			}
			return r.RegisterPreparation("n", true, preparations{})
		}, agent.ErrCapabilityMismatch},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := populated(t)
			err := tc.call(r)
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			// Only the kind registration a case needs may have happened.
			if got := state(r, "a", "x"); got != state(populatedWith(t, r), "a", "x") {
				t.Fatalf("registry changed: %s", got)
			}
		})
	}
}

// populatedWith rebuilds the expected registry: kind "a" complete plus any
// "n" kind registration the case made (without factories).
func populatedWith(t *testing.T, r *agent.Registry) *agent.Registry {
	want := populated(t)
	if _, ok := r.Sessions("n"); ok {
		d := descriptor("n")
		d.Capabilities.Preparation = wire.CapabilityUnsupported
		d.Capabilities.WorkspaceReadPreparation = wire.CapabilityUnsupported
		if err := want.RegisterKind(d, modelConfig(), sessions{}); err != nil {
			t.Fatal(err)
		}
	}
	return want
}

func TestRegisterKindResetsOtherRegistrations(t *testing.T) {
	r := populated(t)
	if err := r.RegisterKind(descriptor("a"), modelConfig(), sessions{}); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Executors("a"); ok {
		t.Fatal("executor factory survived RegisterKind")
	}
	if _, _, ok := r.Preparations("a"); ok {
		t.Fatal("preparation factory survived RegisterKind")
	}
	k := r.Kinds()[0].Capabilities
	if k.Preparation.IsSupported() || k.WorkspaceReadPreparation.IsSupported() {
		t.Fatalf("derived capabilities still claim preparation: %+v", k)
	}
}

func TestKindsDeriveAndSort(t *testing.T) {
	r := populated(t)
	if err := r.RegisterKind(descriptor("0"), modelConfig(), sessions{}); err != nil {
		t.Fatal(err)
	}
	if err := r.RegisterPreparation("0", false, preparations{}); err != nil {
		t.Fatal(err)
	}
	kinds := r.Kinds()
	if len(kinds) != 2 || kinds[0].Kind != "0" || kinds[1].Kind != "a" {
		t.Fatalf("kinds %+v", kinds)
	}
	if c := kinds[0].Capabilities; c.Preparation.IsSupported() || c.WorkspaceReadPreparation.IsSupported() {
		t.Fatalf("kind without executor or qualified read claims preparation: %+v", c)
	}
	if c := kinds[1].Capabilities; !reflect.DeepEqual(c, caps()) {
		t.Fatalf("fully installed kind %+v", c)
	}
	for _, k := range kinds {
		if err := k.Capabilities.Validate(); err != nil {
			t.Fatal(err)
		}
	}
}

func declaration(kind string) agent.Declaration {
	return agent.Declaration{Kind: kind, Capabilities: caps(), Configuration: modelConfig(),
		Discover: func(context.Context, map[string]string, io.Writer) (*agent.Runtime, error) { return nil, nil }}
}

func runtimeFor(kind string) *agent.Runtime {
	return &agent.Runtime{Descriptor: descriptor(kind), Sessions: sessions{}, Executors: executors{},
		Preparations: preparations{}, WorkspaceRead: true}
}

func TestRegisterRejectionsLeaveRegistryUnchanged(t *testing.T) {
	noDiscover := declaration("a")
	noDiscover.Discover = nil
	badCaps := declaration("a")
	badCaps.Capabilities.Usage = wire.CapabilityUnspecified
	noPrep := runtimeFor("a")
	noPrep.Descriptor.Capabilities.Preparation = wire.CapabilityUnsupported
	noRead := runtimeFor("a")
	noRead.Descriptor.Capabilities.WorkspaceReadPreparation = wire.CapabilityUnsupported
	readWithoutFactory := runtimeFor("a")
	readWithoutFactory.Preparations = nil
	noSessions := runtimeFor("a")
	noSessions.Sessions = nil
	cases := map[string]struct {
		d    agent.Declaration
		rt   *agent.Runtime
		want error
	}{
		"no discover":          {noDiscover, runtimeFor("a"), agent.ErrInvalidDeclaration},
		"unspecified field":    {badCaps, runtimeFor("a"), wire.ErrMissingField},
		"kind changed":         {declaration("a"), runtimeFor("b"), agent.ErrKindMismatch},
		"no session factory":   {declaration("a"), noSessions, agent.ErrNilFactory},
		"executor undeclared":  {declaration("a"), noPrep, agent.ErrCapabilityMismatch},
		"read undeclared":      {declaration("a"), noRead, agent.ErrCapabilityMismatch},
		"read without factory": {declaration("a"), readWithoutFactory, agent.ErrNilFactory},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := populated(t)
			before := state(r, "a", "b")
			if err := r.Register(tc.d, tc.rt); !errors.Is(err, tc.want) {
				t.Fatalf("Register = %v, want %v", err, tc.want)
			}
			if after := state(r, "a", "b"); after != before {
				t.Fatalf("registry changed:\n%s\n%s", before, after)
			}
		})
	}
}

func TestRegisterInstallsInOrderAndNilRuntimeIsNoop(t *testing.T) {
	var r agent.Registry
	if err := r.Register(declaration("a"), nil); err != nil || len(r.Kinds()) != 0 {
		t.Fatalf("unconfigured adapter: %v, %+v", err, r.Kinds())
	}
	if err := r.Register(declaration("a"), runtimeFor("a")); err != nil {
		t.Fatal(err)
	}
	if got, want := state(&r, "a"), state(populated(t), "a"); got != want {
		t.Fatalf("Register installed\n%s\nwant\n%s", got, want)
	}
}
