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

// play plays sc on a fresh runner inside a synctest bubble and returns
// its failures.
func play(t *testing.T, sc *scenarios.Scenario) (failures []error) {
	synctest.Test(t, func(t *testing.T) {
		r, err := New(core.Config{Policy: enginetest.OpenPolicy("contract")})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		failures = scenarios.Play(sc, r).Failures
	})
	return failures
}

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
			for _, e := range play(t, sc) {
				t.Error(e)
			}
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
		{"interaction", prefix + "harness emit permission_request\n{\"request_id\":\"p1\",\"tool\":\"t\",\"title\":\"x\"}\n----\n\nruntime permission_request id=$run\n{\"request_id\":\"p1\",\"tool\":\"t\",\"title\":\"x\"}\n----\n\ncore-interaction id=p1 status=applied\n----\n", `interaction p1: status="pending", want "applied"`},
		{"interaction unknown", prefix + "core-interaction id=p9 status=pending\n----\n", "interaction p9: Core has no record of it"},
		{"refusal expected", "include connected_interactions\n----\n\ninclude started\n----\n\n" + "harness emit permission_request\n{\"request_id\":\"p1\",\"tool\":\"t\",\"title\":\"x\"}\n----\n\nruntime permission_request id=$run\n{\"request_id\":\"p1\",\"tool\":\"t\",\"title\":\"x\"}\n----\n\napi answer-permission interaction=p1 refused=interaction_closed\n{\"approved\":true}\n----\n", "accepted, want it refused interaction_closed"},
		{"refusal unexpected", prefix + "api answer-permission interaction=p9\n{\"approved\":true}\n----\n", "API call refused"},
		{"refusal code", prefix + "api answer-permission interaction=p9 refused=interaction_closed\n{\"approved\":true}\n----\n", `refused "unknown_interaction"`},
		{"suspension", "include connected\n----\n\napi quiesce environment=env\n----\n\ncore environment_quiesce id=$s.q1\n{\"environment_id\":\"env\",\"suspend_id\":\"$s\"}\n----\n\ncore-suspension state=quiesced\n----\n", `state="quiescing", want "quiesced"`},
		{"lost", prefix + "runtime done id=$run lost\n{\"content\":\"hi\"}\n----\n\ncore-state turn=1 state=completed\n----\n", `state="running", want "completed"`},
		{"preparation", "core-preparation state=completed\n----\n", "Core has no Environment preparation"},
		{"workspace", "include connected\n----\n\napi read-file environment=env path=a\n----\n\ncore-workspace outcome=completed data=x\n----\n", `workspace answer: outcome="unavailable", want "completed"`},
		{"workspace without a call", "core-workspace outcome=completed\n----\n", "no workspace call was made"},
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
			for _, e := range play(t, sc) {
				got = append(got, e.Error())
			}
			if !strings.Contains(strings.Join(got, "\n"), c.want) {
				t.Fatalf("failures %q, want one containing %q", got, c.want)
			}
		})
	}
}
