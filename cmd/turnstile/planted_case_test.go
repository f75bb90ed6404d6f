package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The machines have no planted bugs: -bugs is no flag, and a case file
// recorded with planted bugs is refused by name (it cannot replay as it
// was found).
func TestPlantedBugsAreRefused(t *testing.T) {
	if code, _, errOut := (cli{t: t}).run("sim", "-bugs", "daemon_accepts_before_apply"); code != exitUsage ||
		!strings.Contains(errOut, "flag provided but not defined: -bugs") {
		t.Fatalf("-bugs: exit %d\n%s", code, errOut)
	}
	good, err := os.ReadFile("../../sim/testdata/regressions/pin-seed-706.json")
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "case.json")
	b := regexp.MustCompile(`"faults": "[^"]*"`).ReplaceAll(good, []byte(`"faults": "none", "bugs": ["daemon_accepts_before_apply"]`))
	if !strings.Contains(string(b), "daemon_accepts_before_apply") {
		t.Fatal("the pinned case changed shape")
	}
	if err := os.WriteFile(bad, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := (cli{t: t}).run("replay", "-schedule", bad); code != exitTool ||
		!strings.Contains(errOut, "configuration names planted bugs") || !strings.Contains(errOut, "daemon_accepts_before_apply") {
		t.Fatalf("a case file naming a planted bug: exit %d\n%s", code, errOut)
	}
}
