package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/sim/campaign"
)

func TestShrinkMinimisesAPlantedFailure(t *testing.T) {
	seed := plantedFailingSeed(t)
	planted := cli{t: t, newRunner: newPlantedRunner}
	file := filepath.Join(t.TempDir(), "shrunk.json")
	code, out, _ := planted.run("shrink", "-seed", fmt.Sprint(seed), "-faults", "core_crash", "-o", file)
	if code != exitOK {
		t.Fatalf("shrink exit %d:\n%s", code, out)
	}
	for _, want := range []string{fmt.Sprintf("SEED=%d", seed), "failing check: " + plantedCheck,
		"  workload: ", "  turns: ", "still fails: ", "wrote " + file,
		"replay: go run ./cmd/turnstile replay -schedule " + file} {
		if !strings.Contains(out, want) {
			t.Errorf("shrink output lacks %q:\n%s", want, out)
		}
	}
	var before, after int
	if _, err := fmt.Sscanf(out[strings.Index(out, "  faults:"):], "  faults: %d -> %d", &before, &after); err != nil ||
		after != 1 || before < after {
		t.Fatalf("faults %d -> %d (%v): one Core crash is the minimum\n%s", before, after, err, out)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	c, err := campaign.ParseCase(b)
	if err != nil || c.Check != plantedCheck || len(c.Schedule.Faults) != 1 || c.Commit != "test-commit" {
		t.Fatalf("shrunk case %v %+v", err, c)
	}
	code, out, _ = planted.run("replay", "-schedule", file)
	if code != exitFail || !strings.Contains(out, "FAIL step ") || !strings.Contains(out, "recorded fingerprint reproduced") {
		t.Fatalf("replay of the shrunk schedule: exit %d\n%s", code, out)
	}
}

func TestShrinkOfAPassingSeed(t *testing.T) {
	file := filepath.Join(t.TempDir(), "x.json")
	code, out, _ := cli{t: t, newRunner: newPlantedRunner}.run("shrink", "-seed", "1", "-faults", "none", "-o", file)
	if code != exitOK || !strings.Contains(out, "the seed passes: no check fails, nothing to shrink") {
		t.Fatalf("a passing seed is not an error: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("nothing shrunk, nothing written: %v", err)
	}
}

func TestSimWritesAFailureBundle(t *testing.T) {
	seed := plantedFailingSeed(t)
	dir := filepath.Join(t.TempDir(), "out")
	stale, keep := filepath.Join(dir, "seed-99999"), filepath.Join(dir, "seed-notes")
	for _, d := range []string{stale, keep} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "replay.txt"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	planted := cli{t: t, newRunner: newPlantedRunner}
	code, out, _ := planted.run("sim", "-seeds", fmt.Sprint(seed), "-faults", "core_crash", "-out", dir)
	bundle := campaign.BundleDir(dir, seed)
	for _, want := range []string{fmt.Sprintf("FAIL SEED=%d %s: core restarted", seed, plantedCheck),
		fmt.Sprintf("  replay: go run ./cmd/turnstile replay -seed %d -faults core_crash\n", seed),
		"  report: " + bundle + "/\n", "FAIL: "} {
		if !strings.Contains(out, want) {
			t.Errorf("sim output lacks %q:\n%s", want, out)
		}
	}
	if code != exitFail {
		t.Fatalf("a violation must exit 1, got %d", code)
	}
	// after the summary, what to do next: replay, shrink, keep
	shrunk := filepath.Join(bundle, "shrunk.json")
	next := fmt.Sprintf(`
next steps for the first failing seed, %[1]d (report: %[2]s/):
  1. replay it (same fingerprint, the trace's tail; -trace FILE writes it all):
       go run ./cmd/turnstile replay -seed %[1]d -faults core_crash
       go run ./cmd/turnstile replay -schedule %[3]s
  2. shrink it (fewer faults, a smaller workload, the same check failing):
       go run ./cmd/turnstile shrink -seed %[1]d -faults core_crash -o sim/testdata/regressions/seed-%[1]d.json
     (the campaign did it already: %[3]s is the shrunk case)
  3. keep it in the regression corpus (sim/testdata/regressions/README.md):
       cp %[3]s sim/testdata/regressions/seed-%[1]d.json
     fix the bug until go test ./sim/campaign -run TestRegressionCorpus passes on it, then pin
     the fixed run's fingerprint: go test ./sim/campaign -run TestRegressionCorpus -update-regressions
`, seed, bundle, shrunk)
	if !strings.Contains(out, next) || strings.Index(out, next) < strings.Index(out, "summary\n") {
		t.Fatalf("sim output lacks the next steps after its summary:\n%s\nwant:\n%s", out, next)
	}
	for _, d := range []string{stale, keep} {
		if _, err := os.Stat(filepath.Join(d, "replay.txt")); err != nil {
			t.Fatalf("a report folder of an earlier campaign must be kept: %v", err)
		}
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(bundle, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	fp := strings.TrimSpace(read("fingerprint"))
	if sum := sha256.Sum256([]byte(read("trace.txt"))); hex.EncodeToString(sum[:]) != fp {
		t.Fatal("trace.txt does not hash to the fingerprint")
	}
	if !strings.Contains(read("violation.txt"), "first violated check: "+plantedCheck) ||
		!strings.Contains(read("faults.txt"), "core_crash") {
		t.Fatal("violation.txt or faults.txt incomplete")
	}
	wantReplay := fmt.Sprintf("go run ./cmd/turnstile replay -seed %d -faults core_crash\n"+
		"go run ./cmd/turnstile replay -schedule %s\n", seed, filepath.Join(bundle, "shrunk.json"))
	if read("replay.txt") != wantReplay {
		t.Fatalf("replay.txt:\n%s\nwant:\n%s", read("replay.txt"), wantReplay)
	}
	code, out, _ = planted.run("replay", "-schedule", filepath.Join(bundle, "options.json"), "-tail", "0")
	if code != exitFail || !strings.Contains(out, "fingerprint: "+fp) {
		t.Fatalf("options.json replays: exit %d\n%s", code, out)
	}
	code, out, _ = planted.run("replay", "-seed", fmt.Sprint(seed), "-faults", "core_crash", "-tail", "0")
	if code != exitFail || !strings.Contains(out, "fingerprint: "+fp) {
		t.Fatalf("replay line reproduces: exit %d\n%s", code, out)
	}
}
