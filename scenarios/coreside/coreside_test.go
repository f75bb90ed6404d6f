package coreside

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
	"github.com/turnstile-sim/turnstile/scenarios"
)

// TestScenarios plays every scenario against the real gateway.
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
			synctest.Test(t, func(t *testing.T) {
				r, err := New(sc, core.Config{Policy: enginetest.OpenPolicy("contract")})
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				for _, st := range sc.Flat() {
					for _, e := range r.Step(st) {
						t.Error(e)
					}
				}
				for _, e := range r.Finish() {
					t.Error(e)
				}
			})
		})
	}
}

// TestBrokenScenariosFail: the runner fails a scenario whose Core frames
// or Core-owned state differ from what the real Core does.
func TestBrokenScenariosFail(t *testing.T) {
	prefix := "include connected\n----\n\ninclude started\n----\n\n"
	cases := []struct{ name, text, want string }{
		{"frame", prefix + "api cancel\n----\n\ncore prompt_cancel id=$run\n{\"delivery_id\":\"other\"}\n----\n", `sent "cancel:t-1", want "other"`},
		{"unlisted", prefix + "api cancel\n----\n", "does not list at the end of the scenario"},
		{"state", prefix + "core-state turn=1 state=completed\n----\n", `state="running", want "completed"`},
		{"close", "include connected\n----\n\ndisconnect by=core\n----\n", "Core did not close the connection"},
		{"version", "version-refused version=$version status=426\n----\n", "status 101, want 426"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sc, err := scenarios.Parse("s.txt", c.text, func(n string) ([]byte, error) { return os.ReadFile("../testdata/include/" + n + ".txt") })
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			synctest.Test(t, func(t *testing.T) {
				r, err := New(sc, core.Config{Policy: enginetest.OpenPolicy("contract")})
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				for _, st := range sc.Flat() {
					for _, e := range r.Step(st) {
						got = append(got, e.Error())
					}
				}
				for _, e := range r.Finish() {
					got = append(got, e.Error())
				}
			})
			if !strings.Contains(strings.Join(got, "\n"), c.want) {
				t.Fatalf("failures %q, want one containing %q", got, c.want)
			}
		})
	}
}
