package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/campaign"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/sim/world"
)

// fakeRunner answers without simulating: each seed passes with a
// fingerprint of its own, except panicSeed (its run panics), failSeed (a
// violation its replays do not reproduce) and unknownSeed (linearizability
// unknown).
type fakeRunner struct{ panicSeed, failSeed, unknownSeed uint64 }

func (f fakeRunner) result(seed uint64) sim.Result {
	return sim.Result{Seed: seed, Fingerprint: fmt.Sprintf("fp-%d", seed), Converged: true,
		Schedule: sim.Schedule{Seed: seed, Workload: 1, Heal: 1}}
}

func (f fakeRunner) Run(seed uint64) campaign.Outcome {
	if seed == f.panicSeed {
		panic(fmt.Sprintf("core: assertion failed in seed %d", seed))
	}
	o := campaign.Outcome{Result: f.result(seed), Lin: check.LinearizeResult{Result: porcupine.Ok}}
	if seed == f.failSeed {
		o.Result.Violations = []sim.Violation{{Check: "liveness", Message: "not converged"}}
	}
	if seed == f.unknownSeed {
		o.Lin.Result = porcupine.Unknown
	}
	return o
}

func (f fakeRunner) Replay(s sim.Schedule) campaign.Outcome {
	return campaign.Outcome{Result: f.result(s.Seed), Lin: check.LinearizeResult{Result: porcupine.Ok}}
}

func (f fakeRunner) Trace(seed uint64, _ *sim.Schedule) sim.Result { return f.result(seed) }

func (f fakeRunner) Shrink(campaign.Outcome) sim.ShrinkResult {
	panic("a flaky failure must not be shrunk")
}

func fakeCLI(t *testing.T, f fakeRunner) cli {
	return cli{t: t, newRunner: func(campaign.Config) campaign.Runner { return f }}
}

func TestSimPanicIsTheSeedsFailure(t *testing.T) {
	code, out, _ := fakeCLI(t, fakeRunner{panicSeed: 2}).run("sim", "-seeds", "3", "-workers", "2")
	for _, want := range []string{"FAIL SEED=2 panic: core: assertion failed in seed 2",
		"replay: go run ./cmd/turnstile replay -seed 2\n", "seeds         3 (1..3), 1 failing",
		"FAIL SEED=2 panic", "FAIL: 1 of 3 seeds failed"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if code != exitFail {
		t.Fatalf("exit %d", code)
	}
}

func TestSimSkipsAShrinkThatDoesNotReproduce(t *testing.T) {
	dir := t.TempDir()
	code, out, _ := fakeCLI(t, fakeRunner{failSeed: 2}).run("sim", "-seeds", "3", "-out", dir)
	note := "shrink skipped: the replay of the failing schedule failed no check, not liveness"
	if code != exitFail || strings.Count(out, note) != 2 { // the failure's lines and the summary's list
		t.Fatalf("exit %d:\n%s", code, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "seed-2", "shrink.txt"))
	if err != nil || !strings.HasPrefix(string(b), note) {
		t.Fatalf("shrink.txt %v: %s", err, b)
	}
	if _, err := os.Stat(filepath.Join(dir, "seed-2", "shrunk.json")); err == nil {
		t.Fatal("no shrunk.json for a failure that did not reproduce")
	}
}

func TestSimLinUnknownPassesVisiblyAndFailsStrict(t *testing.T) {
	f := fakeRunner{unknownSeed: 3}
	code, out, _ := fakeCLI(t, f).run("sim", "-seeds", "4")
	if code != exitOK || !strings.Contains(out, "PASS (1 seeds linearizability unknown — porcupine timed out; rerun them)") ||
		!strings.Contains(out, "lin unknown   1 seeds: 3") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	code, out, _ = fakeCLI(t, f).run("sim", "-seeds", "4", "-strict")
	if code != exitFail || !strings.Contains(out, "FAIL: linearizability unknown") {
		t.Fatalf("strict: exit %d:\n%s", code, out)
	}
}

func TestSimRestrictedFaultsJudgeTheMarksTheirKindsReach(t *testing.T) {
	code, out, _ := fakeCLI(t, fakeRunner{}).run("sim", "-seeds", "1000", "-faults", "none")
	judged := 0
	for _, m := range check.ExpectedMarks() {
		if k, ok := world.MarkNeeds(m); ok && len(k) == 0 {
			judged++
		}
	}
	want := fmt.Sprintf("mark verdict  FAIL: %d of %d expected marks never hit; %d not judged", judged, judged,
		len(check.ExpectedMarks())-judged)
	if code != exitFail || !strings.Contains(out, want) ||
		!strings.Contains(out, "core_restart_mid_turn              seeds=0 hits=0 (not judged") {
		t.Fatalf("-faults none judges the marks the workload reaches alone: exit %d:\n%s", code, summaryBlock(t, out))
	}
	c := fakeCLI(t, fakeRunner{})
	c.markNeeds = func(check.Mark) ([]sim.FaultKind, bool) { return nil, false }
	code, out, _ = c.run("sim", "-seeds", "1000", "-faults", "stall")
	if code != exitOK || !strings.Contains(out, "mark verdict  not judged (faults restricted)") {
		t.Fatalf("no mark known to its kinds: exit %d:\n%s", code, summaryBlock(t, out))
	}
	code, out, _ = fakeCLI(t, fakeRunner{}).run("sim", "-seeds", "1000")
	if code != exitFail || !strings.Contains(out, "mark verdict  FAIL") {
		t.Fatalf("swarm: exit %d:\n%s", code, summaryBlock(t, out))
	}
}

func TestSimEmptyShard(t *testing.T) {
	code, out, _ := fakeCLI(t, fakeRunner{}).run("sim", "-seeds", "1", "-first", "1", "-shard", "1/2")
	if code != exitOK || !strings.Contains(out, "shard 1/2 has no seeds") || strings.Contains(out, "replay") ||
		strings.Contains(out, "SEED") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

func TestSimBannerNamesTheSeedRange(t *testing.T) {
	_, out, _ := fakeCLI(t, fakeRunner{}).run("sim", "-seeds", "300")
	if !strings.Contains(out, "SEEDS=1..300\nreplay a seed: go run ./cmd/turnstile replay -seed S\n") {
		t.Fatalf("banner:\n%s", out)
	}
	_, out, _ = fakeCLI(t, fakeRunner{}).run("sim", "-seed", "5")
	if !strings.Contains(out, "SEED=5\nreplay: go run ./cmd/turnstile replay -seed 5\n") {
		t.Fatalf("banner:\n%s", out)
	}
}

// writeShard runs one fake shard with extra flags and writes its JSON lines.
func writeShard(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	_, out, _ := fakeCLI(t, fakeRunner{}).run(append([]string{"sim", "-json"}, args...)...)
	f := filepath.Join(dir, name)
	if err := os.WriteFile(f, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestMergeRefusesShardsOfDifferentCampaigns(t *testing.T) {
	dir := t.TempDir()
	a := writeShard(t, dir, "a.jsonl", "-seeds", "6", "-first", "1", "-shard", "0/2", "-faults", "none")
	b := writeShard(t, dir, "b.jsonl", "-seeds", "6", "-first", "1", "-shard", "1/2")
	code, out, errOut := fakeCLI(t, fakeRunner{}).run("campaign", "merge", a, b)
	if code != exitUsage || out != "" || !strings.Contains(errOut, "shards are not one campaign: ") ||
		!strings.Contains(errOut, "b.jsonl") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
}

func TestMergeToleratesATruncatedLastLine(t *testing.T) {
	dir := t.TempDir()
	a := writeShard(t, dir, "a.jsonl", "-seeds", "6", "-first", "1", "-shard", "0/2")
	b := writeShard(t, dir, "b.jsonl", "-seeds", "6", "-first", "1", "-shard", "1/2")
	data, _ := os.ReadFile(b)
	if err := os.WriteFile(b, data[:len(data)-15], 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := fakeCLI(t, fakeRunner{}).run("campaign", "merge", a, b)
	if code != exitFail || !strings.Contains(out, "b.jsonl:4: truncated last line ignored (its seed counts as missing)") ||
		!strings.Contains(out, "1 seeds missing: 6\n") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	code, out, _ = fakeCLI(t, fakeRunner{}).run("campaign", "merge", a)
	if code != exitFail || !strings.Contains(out, "3 seeds missing: shard 1/2 absent?\n") {
		t.Fatalf("exit %d\n%s", code, out)
	}
}
