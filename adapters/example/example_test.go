package example_test

import (
	"math/rand/v2"
	"testing"
	"testing/synctest"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/adaptertest"
	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/contracttest"
	"github.com/turnstile-sim/turnstile/adapters/example"
	"github.com/turnstile-sim/turnstile/wire"
)

// registered installs the kind in a Registry of this test only, as the
// daemon program installs its built-in kinds, and returns its factory.
func registered(t *testing.T, e *example.Engine) agent.ExecutorFactory {
	t.Helper()
	d := example.Declaration(e)
	rt, err := d.Discover(t.Context(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var reg agent.Registry
	if err := reg.Register(d, rt); err != nil {
		t.Fatal(err)
	}
	f, ok := reg.Executors(example.Kind)
	if !ok {
		t.Fatal("no Executor factory installed")
	}
	return f
}

// fixture tells the kits how to drive the engine and read its truth.
func fixture(e *example.Engine) contracttest.Fixture {
	next := func(b example.Behaviour) func() { return func() { e.Next(b) } }
	return contracttest.Fixture{
		Config: agent.ExecutorConfig{SessionID: "session-1",
			Configuration: wire.ExecutionConfiguration{AgentKind: example.Kind}},
		Capabilities:         example.Capabilities(),
		Hold:                 next(example.Behaviour{Hold: true}),
		HoldSlowApply:        next(example.Behaviour{Hold: true, ApplyDelay: time.Second}),
		SlowCancel:           next(example.Behaviour{Hold: true, CancelDelay: time.Second}),
		Retire:               next(example.Behaviour{Retire: true}),
		NativeExit:           next(example.Behaviour{Exit: true}),
		LateEvent:            func(marker string) { e.Next(example.Behaviour{Late: marker}) },
		FailStartBeforeInput: next(example.Behaviour{RefuseStart: true}),
		FailStartAfterInput:  next(example.Behaviour{LoseStart: true}),
		FailClose:            e.FailNextClose,
		Applied:              e.Applied,
		Effects:              e.Truth,
	}
}

func TestSharedTextLifecycle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := example.NewEngine()
		contracttest.TextLifecycle(t, registered(t, e), fixture(e))
	})
}

func TestUnsupportedExtensionsHaveNoNativeEffects(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := example.NewEngine()
		contracttest.UnsupportedExtensionsHaveNoNativeEffects(t, registered(t, e), fixture(e))
	})
}

func TestDeclarationIsComplete(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := example.NewEngine()
		fx := fixture(e)
		contracttest.Declaration(t, example.Declaration(e), contracttest.DeclarationOptions{Config: fx.Config, Hold: fx.Hold})
	})
}

func TestAgainstSimulatedCore(t *testing.T) {
	e := example.NewEngine()
	adaptertest.RunAgainstSimulatedCore(t, example.Declaration(e), adaptertest.Options{
		Seed: 1,
		BeforeTurn: func(r *rand.Rand) {
			e.Next(example.Behaviour{Interval: time.Duration(r.IntN(3)) * time.Second, ApplyDelay: time.Second})
		},
	})
}
