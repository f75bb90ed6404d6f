package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestPlantedBugFromTheCommandLineReplaysAsFound runs a planted bug from
// -bugs, and checks that its bundle records the bug so that the replay
// line and the shrunk case reproduce the failure.
func TestPlantedBugFromTheCommandLineReplaysAsFound(t *testing.T) {
	dir := t.TempDir()
	code, out, _ := cli{t: t}.run("sim", "-seeds", "3", "-first", "3", "-faults", "none",
		"-bugs", "daemon_accepts_before_apply", "-out", dir, "-until-fail", "-workers", "1")
	if code != exitFail || !strings.Contains(out, "FAIL SEED=3 accepted_without_ground_truth") ||
		!strings.Contains(out, "replay -seed 3 -faults none -bugs daemon_accepts_before_apply") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, f := range []string{"options.json", "shrunk.json"} {
		b, err := os.ReadFile(filepath.Join(dir, "seed-3", f))
		var c struct {
			Config struct{ Bugs []string } `json:"config"`
		}
		if err == nil {
			err = json.Unmarshal(b, &c)
		}
		if err != nil || !slices.Equal(c.Config.Bugs, []string{"daemon_accepts_before_apply"}) {
			t.Fatalf("%s must record the planted bug: %v\n%s", f, err, b)
		}
	}
	for _, f := range []string{"violation.txt", "trace.txt"} {
		b, err := os.ReadFile(filepath.Join(dir, "seed-3", f))
		if err != nil || !strings.Contains(string(b), "dump :: core turn t-1 session=s-1 state=running") ||
			!strings.Contains(string(b), "dump :: d1 truth turn t-1 run=t-1") {
			t.Fatalf("%s must end with the state dump at the failing step: %v\n%s", f, err, b)
		}
	}
	code, out, _ = cli{t: t}.run("replay", "-schedule", filepath.Join(dir, "seed-3", "shrunk.json"))
	if code != exitFail || !strings.Contains(out, ": accepted_without_ground_truth: ") || !strings.Contains(out, "recorded fingerprint reproduced") {
		t.Fatalf("the shrunk case must fail as found: exit %d\n%s", code, out)
	}
}

func TestBugsFlagRejections(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sim", "-bugs", "meteor"}, `unknown planted bug "meteor"; planted bugs: core_done_overrides_cancel`},
		{[]string{"replay", "-seed", "1", "-bugs", "daemon_accepts_before_apply,x"}, `unknown planted bug "x"`},
	} {
		code, _, errOut := cli{t: t}.run(tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d\n%s", tc.args, code, errOut)
		}
	}
	good, err := os.ReadFile("../../sim/testdata/regressions/pin-seed-706.json")
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "case.json")
	b := regexp.MustCompile(`"faults": "[^"]*"`).ReplaceAll(good, []byte(`"faults": "none", "bugs": ["meteor"]`))
	if !strings.Contains(string(b), "meteor") {
		t.Fatal("the pinned case changed shape")
	}
	if err := os.WriteFile(bad, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := (cli{t: t}).run("replay", "-schedule", bad); code != exitTool ||
		!strings.Contains(errOut, `unknown planted bug "meteor"`) {
		t.Fatalf("a case file naming an unknown bug: exit %d\n%s", code, errOut)
	}
}
