package runtimeside

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/turnstile-sim/turnstile/scenarios"
)

// play plays sc on a fresh runner inside a synctest bubble and returns
// its failures.
func play(t *testing.T, sc *scenarios.Scenario) (failures []error) {
	synctest.Test(t, func(t *testing.T) {
		r, err := New(sc)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		failures = scenarios.Play(sc, r).Failures
	})
	return failures
}

// TestScenarios plays every scenario against the real daemon shell.
func TestScenarios(t *testing.T) {
	files, err := scenarios.Files("../testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		sc, err := scenarios.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			for _, e := range play(t, sc) {
				t.Error(e)
			}
		})
	}
}

// TestBrokenScenariosFail: the runner fails a scenario whose Runtime
// frames or Runtime-owned resources differ from what the real daemon does.
func TestBrokenScenariosFail(t *testing.T) {
	prefix := "include connected\n----\n\ninclude started\n----\n\n"
	cancel := "core prompt_cancel id=$run\n{\"delivery_id\":\"$cancel\"}\n----\n\nsettle\n----\n\n"
	cases := []struct{ name, text, want string }{
		{"frame", prefix + cancel + "runtime done id=$run\n{\"content\":\"x\"}\n----\n", `payload.content: sent "", want "x"`},
		{"unlisted", prefix + cancel, `does not list at the end of the scenario: {"type":"done"`},
		{"silence", prefix + cancel + "silence runtime 50ms\n----\n", `before silence: {"type":"done"`},
		{"owned", prefix + "runtime-owned executors=0\n----\n", "executors=1, want 0"},
		{"rebound", prefix + cancel + "runtime done id=$executor\n{\"content\":\"\"}\n----\n", `id: sent "run", want "ex-1"`},
		{"version", "version-refused version=$version\n----\n", "is this Runtime's own"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sc, err := scenarios.Parse("s.txt", c.text, func(n string) ([]byte, error) { return os.ReadFile("../testdata/include/" + n + ".txt") })
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range play(t, sc) {
				got = append(got, e.Error())
			}
			if !strings.Contains(strings.Join(got, "\n"), c.want) {
				t.Fatalf("failures %q, want one containing %q", got, c.want)
			}
		})
	}
}
