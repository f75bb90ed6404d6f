package codex

import (
	"os"
	"testing"
	"time"

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
