package machine

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/scenarios"
	"github.com/turnstile-sim/turnstile/scenarios/machine/coremachine"
	"github.com/turnstile-sim/turnstile/scenarios/machine/daemonmachine"
)

const dir = "../testdata"

// TestScenarios plays every scenario on both machines; the suite keeps
// at least the 30 scenarios it promises.
func TestScenarios(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil || len(files) < 30 {
		t.Fatalf("%d scenarios in %s, want at least 30 (%v)", len(files), dir, err)
	}
	for _, path := range files {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) { play(t, path) })
	}
}

func play(t *testing.T, path string) {
	sc, err := scenarios.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rt, _, err := daemonmachine.New(sc, daemon.Limits{}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cp, _ := coremachine.New(sc, core.Config{Policy: scenarios.ContractPolicy()})
	sides := []struct {
		name string
		r    *scenarios.Player
	}{{"core", cp}, {"runtime", rt}}
	byPos := map[string]scenarios.Step{}
	for _, st := range sc.Steps {
		byPos[st.Pos] = st
	}
	datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
		st, ok := byPos[d.Pos]
		if !ok {
			t.Fatalf("%s: directive not parsed", d.Pos)
		}
		steps := []scenarios.Step{st}
		if st.Kind == scenarios.KindInclude {
			steps = st.Steps
		}
		var b strings.Builder
		for _, s := range steps {
			if st.Kind == scenarios.KindInclude {
				b.WriteString("# " + s.Pos + "\n")
			}
			for _, sd := range sides {
				lines, errs := sd.r.Step(s)
				for _, l := range lines {
					b.WriteString(sd.name + ": " + l + "\n")
				}
				for _, e := range errs {
					t.Error(e)
				}
			}
		}
		return b.String()
	})
	for _, sd := range sides {
		for _, e := range sd.r.Finish() {
			t.Errorf("%s: %v", sc.Path, e)
		}
	}
}
