package campaign

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/turnstile-sim/turnstile/sim/world"
)

var updateRegressions = flag.Bool("update-regressions", false,
	"rewrite the fingerprints of the regression corpus to the current behaviour")

const regressionsDir = "../testdata/regressions"

// TestRegressionCorpus replays every entry of sim/testdata/regressions with
// the full world. No entry may fail any check: each failing seed kept there
// was a bug, and a fixed bug must stay fixed. An entry that records a
// fingerprint must reproduce it; when behaviour changes on purpose, refresh
// with `go test ./sim/campaign -run TestRegressionCorpus -update-regressions`
// and review the diff.
func TestRegressionCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(regressionsDir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no regression entries in %s: %v", regressionsDir, err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) { replayEntry(t, file) })
	}
}

func replayEntry(t *testing.T, file string) {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	c, err := ParseCase(b)
	if err != nil || c.Bare {
		t.Fatalf("%s: not a regression entry (%v)", file, err)
	}
	cfg := world.Config{Devices: c.Config.Devices, Turns: c.Config.Turns, Faults: c.Config.Faults}
	o := world.Replay(c.Schedule, cfg)
	for _, v := range o.Result.Violations {
		t.Errorf("seed %d (recorded on %s) fails: %s\nreplay: %s", c.Seed, c.Commit, v,
			ReplayScheduleCommand(filepath.ToSlash(filepath.Join("sim/testdata/regressions", filepath.Base(file)))))
	}
	if o.LinUnknown() {
		t.Logf("seed %d: linearizability check timed out (Unknown)", c.Seed)
	}
	got := o.Result.Fingerprint
	if c.Fingerprint == "" || got == c.Fingerprint {
		return
	}
	if *updateRegressions {
		c.Fingerprint = got
		if err := os.WriteFile(file, c.Marshal(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: fingerprint updated to %s", file, got)
		return
	}
	t.Errorf("seed %d: behaviour changed: fingerprint %s, pinned %s.\n"+
		"If the change is intended, run: go test ./sim/campaign -run TestRegressionCorpus -update-regressions",
		c.Seed, got, c.Fingerprint)
}
