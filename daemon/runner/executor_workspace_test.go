package runner_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/localworkspace"
	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/daemon/runner"
	"github.com/turnstile-sim/turnstile/wire"
)

// recordingFactory records the configuration of every executable
// preparation and answers with a fresh recordingExecutor.
type recordingFactory struct {
	mu      sync.Mutex
	configs []agent.ExecutorConfig
	made    []*recordingExecutor
	// prepared makes each Executor an executable preparation (Prepared
	// and PreparedCancellation); failWith makes NewExecutor return its
	// Executor together with this error; failRelease arms each
	// Executor's first Release to fail, refuseStart its StartTurn to
	// refuse with a nil Turn.
	prepared, failRelease, refuseStart bool
	failWith                           error
}

func (f *recordingFactory) Executors(string) (agent.ExecutorFactory, bool) { return f, true }

func (f *recordingFactory) NewExecutor(_ context.Context, cfg agent.ExecutorConfig) (agent.Executor, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.configs = append(f.configs, cfg)
	ex := &recordingExecutor{failRelease: f.failRelease, refuseStart: f.refuseStart}
	f.made = append(f.made, ex)
	if f.prepared {
		return &preparedExecutor{recordingExecutor: ex}, f.failWith
	}
	return ex, f.failWith
}

func (f *recordingFactory) calls() []agent.ExecutorConfig {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]agent.ExecutorConfig(nil), f.configs...)
}

func newExecutorRig(t *testing.T, f *recordingFactory, base string) *nativeRig {
	r := &nativeRig{t: t, out: make(chan daemon.Event, 4)}
	r.n = runner.NewNative(context.Background(), f, slog.New(slog.DiscardHandler), func(ev daemon.Event) { r.out <- ev })
	if base != "" {
		r.n.SetWorkspaces(localworkspace.Binding{Base: base})
	}
	t.Cleanup(r.n.Wait)
	return r
}

func localPrepare(executor, env, dir string) daemon.Prepare {
	return daemon.Prepare{Executor: executor, Kind: "k", Session: "s-" + executor,
		Configuration: wire.ExecutionConfiguration{LocalEnvironment: &wire.LocalEnvironment{ID: env, WorkspaceDirectory: dir}}}
}

// TestExecutablePreparationRunsInTheBoundWorkspace: an executable
// preparation of a local Environment gets the Runtime's binding of that
// Environment as its WorkspaceRoot, created when missing; a
// workspace_directory equal to the binding is accepted. Environment none
// binds no directory.
func TestExecutablePreparationRunsInTheBoundWorkspace(t *testing.T) {
	base := t.TempDir()
	f := &recordingFactory{}
	r := newExecutorRig(t, f, base)
	root := filepath.Join(base, "env-1")
	if res := r.call(localPrepare("ex-1", "env-1", "")); res != (daemon.PrepareResult{}) {
		t.Fatalf("prepare: %+v", res)
	}
	if res := r.call(localPrepare("ex-2", "env-1", root+"/")); res != (daemon.PrepareResult{}) {
		t.Fatalf("prepare naming the binding: %+v", res)
	}
	none := daemon.Prepare{Executor: "ex-3", Kind: "k", Session: "s-3",
		Configuration: wire.ExecutionConfiguration{DisableExecutionEnvironment: true}}
	if res := r.call(none); res != (daemon.PrepareResult{}) {
		t.Fatalf("prepare without environment: %+v", res)
	}
	got := f.calls()
	if len(got) != 3 || got[0].WorkspaceRoot != root || got[1].WorkspaceRoot != root || got[2].WorkspaceRoot != "" {
		t.Fatalf("roots %+v", got)
	}
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		t.Fatalf("bound workspace not created: %v", err)
	}
}

// TestExecutablePreparationRefusesAWorkspaceItCannotServe: a
// workspace_directory other than the binding, an Environment the
// Runtime does not bind (no binding installed, or an identity that is
// no directory name) and a binding that cannot be created each fail the
// preparation with a fixed reason before any factory runs.
func TestExecutablePreparationRefusesAWorkspaceItCannotServe(t *testing.T) {
	base := t.TempDir()
	blocked := filepath.Join(base, "file")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, base, env, dir, want string
	}{
		{"another directory", base, "env-1", "/workspace", "workspace_directory is not this environment's binding"},
		{"no binding", "", "env-1", "", "environment has no local workspace"},
		{"escaping identity", base, "../env-1", "", "environment has no local workspace"},
		{"uncreatable", blocked, "env-1", "", "environment workspace directory cannot be created"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := &recordingFactory{}
			r := newExecutorRig(t, f, c.base)
			if res := r.call(localPrepare("ex-1", c.env, c.dir)); res != (daemon.PrepareResult{Err: c.want}) {
				t.Fatalf("prepare: %+v, want %q", res, c.want)
			}
			if n := len(f.calls()); n != 0 {
				t.Fatalf("%d factory calls", n)
			}
		})
	}
}
