package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/internal/testgate"
	"github.com/turnstile-sim/turnstile/sim/campaign"
	"github.com/turnstile-sim/turnstile/wire"
)

// tickingClock advances one second on every read; safe for the workers.
func tickingClock() func() time.Time {
	var n atomic.Int64
	return func() time.Time { return time.Unix(n.Add(1), 0) }
}

// countingRunner is a fakeRunner that counts the seeds it runs.
type countingRunner struct {
	fakeRunner
	mu   sync.Mutex
	runs []uint64
}

func (c *countingRunner) Run(seed uint64) campaign.Outcome {
	c.mu.Lock()
	c.runs = append(c.runs, seed)
	c.mu.Unlock()
	return c.fakeRunner.Run(seed)
}

func TestSimWithoutFirstStartsAtAFreshSeed(t *testing.T) {
	code, out, errOut := cli{t: t, fresh: 4242, newRunner: fakeRunner{}.runner}.run("sim", "-seeds", "3", "-json")
	hdr, reps := jsonLines(t, out)
	if code != exitOK || hdr.First != 4242 || !hdr.Fresh || len(reps) != 3 || reps[2].Seed != 4244 {
		t.Fatalf("exit %d, header %+v, %d reports\n%s", code, hdr, len(reps), errOut)
	}
	if !strings.Contains(errOut, "SEEDS=4242..4244\n") {
		t.Fatalf("the banner must give the exact replay range:\n%s", errOut)
	}
	_, out, _ = cli{t: t, fresh: 4242, newRunner: fakeRunner{}.runner}.run("sim", "-seeds", "3", "-first", "7", "-json")
	if hdr, _ := jsonLines(t, out); hdr.First != 7 || hdr.Fresh {
		t.Fatalf("-first keeps a fixed range: %+v", hdr)
	}
}

func TestFreshSeedsDiffer(t *testing.T) {
	seen := map[uint64]bool{}
	for range 64 {
		s := freshSeed()
		if s < 1 || s > freshSeedMax {
			t.Fatalf("fresh seed %d outside 1..2^62", s)
		}
		seen[s] = true
	}
	if len(seen) < 60 {
		t.Fatalf("64 fresh draws gave only %d distinct seeds", len(seen))
	}
}

func TestSimShardNeedsFirst(t *testing.T) {
	code, _, errOut := cli{t: t}.run("sim", "-seeds", "6", "-shard", "0/2")
	if code != exitUsage || !strings.Contains(errOut, ErrShardNeedsFirst.Error()) {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
}

func TestSimDurationRunsSeedsUntilTheBudgetIsSpent(t *testing.T) {
	r := &countingRunner{}
	c := cli{t: t, now: tickingClock(), newRunner: func(campaign.Config) campaign.Runner { return r }}
	code, out, errOut := c.run("sim", "-duration", "20s", "-first", "1", "-workers", "1", "-json")
	hdr, reps := jsonLines(t, out)
	if code != exitOK || hdr.Budget != "20s" || len(reps) == 0 || len(reps) > 20 {
		t.Fatalf("exit %d, header %+v, %d seeds\n%s", code, hdr, len(reps), errOut)
	}
	for i, rep := range reps {
		if rep.Seed != uint64(i+1) {
			t.Fatalf("a budgeted campaign runs a prefix of its range: report %d is seed %d", i, rep.Seed)
		}
	}
	if len(r.runs) != len(reps) {
		t.Fatalf("ran %d seeds, reported %d", len(r.runs), len(reps))
	}
	if !strings.Contains(errOut, "(-duration 20s spent): ran 1..") {
		t.Fatalf("the stop must say why and which seeds ran:\n%s", errOut)
	}
}

func TestSimDurationWorksWithShards(t *testing.T) {
	r := &countingRunner{}
	c := cli{t: t, now: tickingClock(), newRunner: func(campaign.Config) campaign.Runner { return r }}
	code, out, _ := c.run("sim", "-duration", "10s", "-first", "100", "-shard", "1/3", "-workers", "2", "-json")
	_, reps := jsonLines(t, out)
	if code != exitOK || len(reps) == 0 {
		t.Fatalf("exit %d, %d seeds", code, len(reps))
	}
	for i, rep := range reps {
		if rep.Seed != 101+uint64(3*i) {
			t.Fatalf("shard 1/3 from 100 runs 101, 104, …: report %d is seed %d", i, rep.Seed)
		}
	}
}

func TestSimUntilFailStopsAtTheFirstFailingSeed(t *testing.T) {
	dir := t.TempDir()
	r := &countingRunner{fakeRunner: fakeRunner{failSeed: 5}}
	c := cli{t: t, newRunner: func(campaign.Config) campaign.Runner { return r }}
	code, out, _ := c.run("sim", "-seeds", "1000", "-first", "1", "-until-fail", "-workers", "1", "-out", dir)
	if code != exitFail || len(r.runs) != 5 {
		t.Fatalf("exit %d after %d seeds\n%s", code, len(r.runs), out)
	}
	for _, want := range []string{"FAIL SEED=5", "report: " + filepath.Join(dir, "seed-5") + "/",
		"stopped after 5 seeds (-until-fail: a seed failed): ran 1..5"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestSimUntilFailDefaultsTheReportFolder(t *testing.T) {
	t.Chdir(t.TempDir())
	c := cli{t: t, newRunner: fakeRunner{failSeed: 2}.runner}
	code, out, _ := c.run("sim", "-seeds", "10", "-first", "1", "-until-fail", "-workers", "1")
	if code != exitFail || !strings.Contains(out, "report: out/sim/seed-2/") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if _, err := os.Stat("out/sim/seed-2/replay.txt"); err != nil {
		t.Fatal(err)
	}
}

func TestUnwritableOutputFailsBeforeAnySeedRuns(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := &countingRunner{}
	c := cli{t: t, newRunner: func(campaign.Config) campaign.Runner { return r }}
	for _, args := range [][]string{
		{"sim", "-seeds", "3", "-first", "1", "-out", filepath.Join(file, "out")},
		{"replay", "-seed", "1", "-trace", "/nonexistent/x"},
		{"replay", "-seed", "1", "-save", filepath.Join(file, "case.json")},
		{"shrink", "-seed", "1", "-o", "/nonexistent/x.json"},
	} {
		code, _, errOut := c.run(args...)
		if code != exitTool || !strings.Contains(errOut, "turnstile "+args[0]+": ") {
			t.Errorf("%v: exit %d, want %d\n%s", args, code, exitTool, errOut)
		}
	}
	if len(r.runs) != 0 {
		t.Fatalf("a run that cannot save its output must not start: ran %v", r.runs)
	}
}

func TestBadCaseFileIsAToolError(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"replay", "-schedule", bad}, {"replay", "-schedule", bad + ".missing"},
		{"shrink", "-schedule", bad}} {
		if code, _, errOut := (cli{t: t}).run(args...); code != exitTool {
			t.Errorf("%v: exit %d, want %d\n%s", args, code, exitTool, errOut)
		}
	}
}

func TestVersionCommand(t *testing.T) {
	code, out, _ := cli{t: t}.run("version")
	if code != exitOK || !strings.Contains(out, "commit   test-commit\n") ||
		!strings.Contains(out, "wire     "+wire.Version+"\n") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if code, _, _ := (cli{t: t}).run("version", "extra"); code != exitUsage {
		t.Fatalf("version takes no arguments: exit %d", code)
	}
}

// TestBuiltBinaryReportsItsCommit builds the real binary and checks that
// the commit it reports is the one it was built from, wherever it runs.
func TestBuiltBinaryReportsItsCommit(t *testing.T) {
	testgate.Long(t) // builds the binary
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatalf("the test needs the git checkout it builds from: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "turnstile")
	if out, err := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "version")
	cmd.Dir = t.TempDir() // not a checkout: the commit must come from the binary
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "commit   "+strings.TrimSpace(string(head))) {
		t.Fatalf("version of a binary built at %s:\n%s", head, out)
	}
}

// runner returns f as the runner of any configuration.
func (f fakeRunner) runner(campaign.Config) campaign.Runner { return f }
