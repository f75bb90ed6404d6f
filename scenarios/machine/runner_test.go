package machine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/scenarios"
	"github.com/turnstile-sim/turnstile/scenarios/machine/coremachine"
	"github.com/turnstile-sim/turnstile/scenarios/machine/daemonmachine"
)

func readInclude(name string) ([]byte, error) {
	return os.ReadFile(filepath.Join(dir, "include", name+".txt"))
}

// failures plays text on one side's runner and returns every failure.
func failures(t *testing.T, s scenarios.Side, text string) []string {
	t.Helper()
	sc, err := scenarios.Parse("s.txt", text, readInclude)
	if err != nil {
		t.Fatal(err)
	}
	var d scenarios.Driver
	if s == scenarios.Runtime {
		if _, d, err = daemonmachine.New(sc, daemon.Limits{}, t.TempDir()); err != nil {
			t.Fatal(err)
		}
	} else {
		_, d = coremachine.New(sc, core.Config{Policy: enginetest.OpenPolicy("contract")})
	}
	var out []string
	for _, e := range scenarios.Play(sc, d).Failures {
		out = append(out, e.Error())
	}
	return out
}

const prefix = "include connected\n----\n\ninclude started\n----\n\n"

// TestRunnersCatchBrokenScenarios: each runner fails a scenario whose
// frames or owned behaviour differ from what its machine does.
func TestRunnersCatchBrokenScenarios(t *testing.T) {
	cases := []struct {
		name string
		side scenarios.Side
		text string
		want string
	}{
		{"core frame differs", scenarios.Core, prefix + "api cancel\n----\n\ncore prompt_cancel id=$run\n{\"delivery_id\":\"other\"}\n----\n",
			`payload.delivery_id: sent "cancel:t-1", want "other"`},
		{"core frame unlisted", scenarios.Core, prefix + "api cancel\n----\n",
			"s.txt:7: core: Core sent a frame the scenario does not list at the end of the scenario: prompt_cancel"},
		{"core frame missing", scenarios.Core, prefix + "core prompt_cancel id=$run\n{\"delivery_id\":\"$cancel\"}\n----\n",
			"Core sent nothing, want prompt_cancel"},
		{"core state differs", scenarios.Core, prefix + "core-state turn=1 state=completed\n----\n",
			`Turn t-1: state="running", want "completed"`},
		{"core silence broken", scenarios.Core, "include connected\n----\n\napi submit-turn text=hello\n----\n\nsilence core 50ms\n----\n",
			"before silence: execution_prepare"},
		{"core workspace answer differs", scenarios.Core, "include connected\n----\n\napi read-directory environment=env path=notes\n----\n\ncore-workspace outcome=pending\n----\n",
			`workspace answer: outcome="unavailable", want "pending"`},
		{"core workspace without a call", scenarios.Core, "core-workspace outcome=completed\n----\n",
			"no workspace call was made"},
		{"runtime frame differs", scenarios.Runtime, prefix + "api cancel\n----\n\ncore prompt_cancel id=$run\n{\"delivery_id\":\"$cancel\"}\n----\n\nsettle\n----\n\nruntime done id=$run\n{\"content\":\"x\"}\n----\n",
			`payload.content: sent "", want "x"`},
		{"runtime silence broken", scenarios.Runtime, prefix + "core prompt_cancel id=$run\n{\"delivery_id\":\"$cancel\"}\n----\n\nsettle\n----\n\nsilence runtime 50ms\n----\n",
			"before silence: done"},
		{"runtime owned differs", scenarios.Runtime, prefix + "runtime-owned executors=0\n----\n",
			"executors=1, want 0"},
		{"core: a Turn submitted, no Run", scenarios.Core, "api submit-turn text=hello\n----\n",
			"s.txt:1: core: admitted no work: the scenario submitted 1 Turn(s) but no Run started"},
		{"runtime: a Turn submitted, no Run", scenarios.Runtime, "api submit-turn text=hello\n----\n",
			"s.txt:1: runtime: admitted no work: the scenario submitted 1 Turn(s) but no Run started"},
		{"placeholder rebound", scenarios.Runtime, prefix + "core prompt_cancel id=$run\n{\"delivery_id\":\"$cancel\"}\n----\n\nsettle\n----\n\nruntime done id=$executor\n{\"content\":\"\"}\n----\n",
			`id: sent "run", want "ex-1"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := failures(t, c.side, c.text)
			if len(got) == 0 || !strings.Contains(strings.Join(got, "\n"), c.want) {
				t.Fatalf("failures:\n%s\nwant one containing %q", strings.Join(got, "\n"), c.want)
			}
		})
	}
}

// TestRunnersPassTheirSideOnly: a frame of a misbehaving peer is not
// asserted on its own side, and a one-sided scenario is skipped by the
// other side.
func TestRunnersPassTheirSideOnly(t *testing.T) {
	rogue := prefix + "core execution_start id=$prepare rogue\n{\"executor_id\":\"$executor\",\"handle\":\"$handle\",\"run_id\":\"again\",\"input\":[]}\n----\n"
	if got := failures(t, scenarios.Core, rogue); len(got) != 0 {
		t.Fatalf("core: %v", got)
	}
	if got := failures(t, scenarios.Runtime, rogue); len(got) == 0 {
		t.Fatal("runtime: the rogue start's rejection is unlisted, yet nothing failed")
	}
	only := "only runtime\nwhy\n----\n\n" + prefix + "core-state turn=1 state=completed\n----\n"
	if got := failures(t, scenarios.Core, only); len(got) != 0 {
		t.Fatalf("core played a runtime-only scenario: %v", got)
	}
}
