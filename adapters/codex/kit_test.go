package codex

import (
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/adaptertest"
	"github.com/turnstile-sim/turnstile/adapters/contracttest"
)

// fakeOptions are the Harness options of newFakeHarness, for a
// Declaration whose Discover builds its own Harness over the fake.
func fakeOptions(t *testing.T, f *fakeHarness) Options {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Options{Binary: self, Args: []string{"-test.run=^$"}, Env: []string{fakeEnv + "=" + f.dir},
		WorkDir: t.TempDir(), Grace: time.Second, RetryBudget: 200 * time.Millisecond}
}

// Every capability is decided, and the declaration, the interfaces the
// adapter implements and contracts.go agree (over the fake app-server,
// which answers --version with the pinned version).
func TestDeclarationIsComplete(t *testing.T) {
	f := newFakeHarness(t)
	contracttest.Declaration(t, Declaration(fakeOptions(t, f)), contracttest.DeclarationOptions{
		Config: fakeConfig(), Hold: func() { f.arm(t, fakeHold) }, Timeout: 30 * time.Second})
}

// TestAgainstSimulatedCore runs the adapter in the real daemon shell
// against the simulated Core, with a seeded workload and faults, over the
// fake app-server run in process (inside the kit's testing/synctest
// bubble a child process would keep the clock from moving). Each Turn
// draws a native behaviour: an echo, a held Turn (ended by a cancel or
// the run's end), a slow apply of steered input, a slow cancel, a late
// callback after completion, a crash in the middle of the Turn.
func TestAgainstSimulatedCore(t *testing.T) {
	f := newFakeHarness(t)
	opts := fakeOptions(t, f)
	opts.spawn = spawnInProcessFake(f.dir)
	modes := []string{fakeEcho, fakeEcho, fakeHold, fakeSlowApply, fakeSlowCancel, fakeLateDone + "late-callback", fakeCrash}
	adaptertest.RunAgainstSimulatedCore(t, Declaration(opts), adaptertest.Options{
		Seed:       7,
		Steps:      60,
		BeforeTurn: func(r *rand.Rand) { f.arm(t, modes[r.IntN(len(modes))]) },
	})
}
