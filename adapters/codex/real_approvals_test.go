package codex

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/turnstile-sim/turnstile/adapters/codex/codextest"
	"github.com/turnstile-sim/turnstile/internal/clirunner"
	"github.com/turnstile-sim/turnstile/wire"
)

// recordSpawns makes h record each app-server it starts.
func recordSpawns(h *Harness) func() []clirunner.Spec {
	var mu sync.Mutex
	var specs []clirunner.Spec
	h.opts.spawn = func(s clirunner.Spec) (appServer, error) {
		mu.Lock()
		specs = append(specs, s)
		mu.Unlock()
		return clirunner.StartChild(s)
	}
	return func() []clirunner.Spec {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(specs)
	}
}

// sandboxWords are what a native sandbox setting would mention.
var sandboxWords = []string{"sandbox", "bwrap", "bubblewrap", "landlock", "seatbelt", "permission", "full-auto", "workspace-write", "read-only"}

// assertNoSandbox checks an Executor's spawned command and thread config:
// app-server itself (no wrapper), run with `app-server` alone, no config
// key or environment variable naming a sandbox or permission profile, and
// the thread running with the full access app-server reports.
func assertNoSandbox(t *testing.T, bin string, ex *Executor, specs []clirunner.Spec) {
	t.Helper()
	if len(specs) != 1 || specs[0].Path != bin || !slices.Equal(specs[0].Args, []string{"app-server"}) {
		t.Fatalf("spawned %+v, want %s app-server", specs, bin)
	}
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(ex.Pid()) + "/cmdline")
	if err != nil || string(cmdline) != bin+"\x00app-server\x00" {
		t.Fatalf("app-server command line %q (%v)", cmdline, err)
	}
	for _, kv := range specs[0].Env[len(specs[0].Env)-len(ex.h.opts.Env)-1:] { // what the adapter adds
		key, _, _ := strings.Cut(kv, "=")
		for _, w := range sandboxWords {
			if strings.Contains(strings.ToLower(key), w) {
				t.Fatalf("environment variable %q names %q", key, w)
			}
		}
	}
	for k := range ex.nc.config {
		for _, w := range sandboxWords {
			if strings.Contains(strings.ToLower(k), w) {
				t.Fatalf("thread config key %q names %q", k, w)
			}
		}
	}
	if ex.applied != appliedFull {
		t.Fatalf("app-server applied sandbox %q, want %q", ex.applied, appliedFull)
	}
}

// Both approval modes run app-server without a native sandbox: the
// spawned command is app-server alone, the thread config names no
// sandbox or permission profile, and app-server reports full access
// (NewExecutor checks its thread/start answer). In the on-request mode
// app-server still asks before a file change (native policy untrusted):
// the approval is a permission_request; approved, the patch lands even
// outside the working directory (nothing confines it), and the
// observation completes; declined, nothing is written and the
// observation fails.
func TestRealApprovalsWithoutSandbox(t *testing.T) {
	bin := realBinary(t)
	for _, mode := range []string{ApprovalsNever, ApprovalsOnRequest} {
		t.Run(mode, func(t *testing.T) {
			h, m := realHarness(t)
			h.opts.Approvals = mode
			spawns := recordSpawns(h)
			ex := newRealExecutor(t, h, realConfig())
			assertNoSandbox(t, bin, ex, spawns())
			outside := t.TempDir()
			patch := func(name string) string {
				return "*** Begin Patch\n*** Add File: " + filepath.Join(outside, name) + "\n+" + name + "\n*** End Patch\n"
			}
			if mode == ApprovalsNever {
				m.Queue(codextest.Reply{Patch: patch("unattended.txt")}, codextest.Reply{Deltas: []string{"done"}})
				r := startRun(t, ex, "run-never", "patch")
				r.settle(t)
				for _, ev := range r.got {
					if _, ok := ev.Payload.(wire.PermissionRequest); ok {
						t.Fatalf("the never mode asked: %v", r.got)
					}
				}
				if _, err := os.Stat(filepath.Join(outside, "unattended.txt")); err != nil {
					t.Fatalf("unattended patch: %v", err)
				}
				return
			}
			for _, c := range []struct {
				name     string
				approved bool
				status   string
			}{{"approved.txt", true, obsCompleted}, {"declined.txt", false, obsFailed}} {
				m.Queue(codextest.Reply{Patch: patch(c.name)}, codextest.Reply{Deltas: []string{"done"}})
				r := startRun(t, ex, "run-"+c.name, "patch")
				if r.err != nil {
					t.Fatal(r.err)
				}
				p := nextPermission(t, r)
				if p.Tool != "apply_patch" || p.RequestID == "" {
					t.Fatalf("permission request %+v", p)
				}
				if err := respond(r.turn, p.RequestID, c.approved); err != nil {
					t.Fatal(err)
				}
				r.settle(t)
				_, err := os.Stat(filepath.Join(outside, c.name))
				if c.approved != (err == nil) {
					t.Fatalf("%s: approved %v, file: %v", c.name, c.approved, err)
				}
				calls := toolCalls(r.got)
				if len(calls) != 2 || calls[1].Observation == nil || calls[1].Observation.Status != c.status {
					t.Fatalf("%s: tool calls %+v", c.name, calls)
				}
			}
		})
	}
}
