package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/campaign"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/sim/linearize"
	"github.com/turnstile-sim/turnstile/sim/world"
)

func TestSimJSONLinesInSeedOrder(t *testing.T) {
	code, out, errOut := cli{t: t}.run("sim", "-seeds", "6", "-first", "3", "-json", "-workers", "3")
	hdr, reps := jsonLines(t, out)
	if hdr.First != 3 || hdr.Seeds != 6 || hdr.Shard != "0/1" || hdr.Commit != "test-commit" {
		t.Fatalf("header %+v", hdr)
	}
	failing := 0
	for i, r := range reps {
		if r.Seed != uint64(3+i) || len(r.Fingerprint) != 64 || r.Events == 0 || r.VirtualMS == 0 {
			t.Fatalf("report %d: %+v", i, r)
		}
		if !slices.Contains([]string{campaign.LinOk, campaign.LinIllegal, campaign.LinUnknown}, r.Lin.Result) {
			t.Fatalf("seed %d lin %q", r.Seed, r.Lin.Result)
		}
		if r.Failed() {
			failing++
		}
	}
	if len(reps) != 6 || (code == exitOK) != (failing == 0) {
		t.Fatalf("%d reports, %d failing, exit %d", len(reps), failing, code)
	}
	for _, want := range []string{"turnstile sim: seeds 3..8 (6), shard 0/1; faults swarm", "SEEDS=3..8",
		"summary\n", "  seeds         6 (3..8)", "events/s", "virtual time", "faults", "linearizable",
		"mark verdict"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
}

func TestSimResultsDoNotDependOnWorkers(t *testing.T) {
	_, one, _ := cli{t: t}.run("sim", "-seeds", "5", "-json", "-workers", "1")
	_, four, _ := cli{t: t}.run("sim", "-seeds", "5", "-json", "-workers", "4")
	if one != four {
		t.Fatalf("outputs differ:\n%s\n%s", one, four)
	}
}

func TestSimPlainOutput(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run([]string{"sim", "-seeds", "3", "-first", "1", "-faults", "none", "-devices", "2"}, &out, &errOut)
	if code != exitOK {
		t.Fatalf("3 seeds without faults: exit %d\n%s", code, out.String())
	}
	for _, want := range []string{"faults none, devices 2", "SEEDS=1..3\n",
		"replay a seed: go run ./cmd/turnstile replay -seed S -devices 2 -faults none\n", "summary\n",
		"  seeds         3 (1..3), 0 failing", "PASS\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out.String())
		}
	}
	if !strings.Contains(errOut.String(), "progress: 3/3 seeds, 0 failing") || strings.Contains(errOut.String(), "\r") {
		t.Fatalf("progress on a non-terminal must be plain lines:\n%q", errOut.String())
	}
}

func TestSimSingleSeed(t *testing.T) {
	_, out, _ := cli{t: t}.run("sim", "-seed", "5", "-turns", "3")
	if !strings.Contains(out, "SEED=5\nreplay: go run ./cmd/turnstile replay -seed 5 -turns 3\n") ||
		!strings.Contains(out, "  seeds         1 (5..5)") {
		t.Fatalf("stdout:\n%s", out)
	}
}

func TestReplayReproducesSimFingerprint(t *testing.T) {
	for _, flags := range [][]string{nil, {"-devices", "2", "-turns", "3", "-faults", "none"}} {
		_, out, _ := cli{t: t}.run(append([]string{"sim", "-seed", "7", "-json"}, flags...)...)
		_, reps := jsonLines(t, out)
		want := reps[0].Fingerprint
		trace := filepath.Join(t.TempDir(), "trace.txt")
		code, out, _ := cli{t: t}.run(append([]string{"replay", "-seed", "7", "-tail", "4", "-trace", trace}, flags...)...)
		if !strings.Contains(out, "fingerprint: "+want+"\n") || !strings.Contains(out, "SEED=7\n") ||
			!strings.Contains(out, "trace tail (last 4 of ") {
			t.Fatalf("replay %v does not reproduce %s:\n%s", flags, want, out)
		}
		if (code == exitOK) == reps[0].Failed() {
			t.Fatalf("replay exit %d for a seed with failed=%v", code, reps[0].Failed())
		}
		b, err := os.ReadFile(trace)
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != want {
			t.Fatal("the -trace file must hash to the fingerprint")
		}
	}
}

func TestReplaySaveWritesAPin(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pin.json")
	code, out, _ := cli{t: t}.run("replay", "-seed", "4", "-faults", "stall,conn_loss", "-save", file, "-tail", "0")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	c, err := campaign.ParseCase(b)
	if err != nil || c.Seed != 4 || c.Commit != "test-commit" || campaign.FaultsString(c.Config.Faults) != "conn_loss,stall" ||
		!strings.Contains(out, "fingerprint: "+c.Fingerprint) {
		t.Fatalf("pin %v %+v\n%s", err, c, out)
	}
	again, out2, _ := cli{t: t}.run("replay", "-schedule", file, "-tail", "0")
	if again != code || !strings.Contains(out2, "recorded fingerprint reproduced") ||
		!strings.Contains(out2, "faults conn_loss,stall") {
		t.Fatalf("replay of the pin: exit %d (was %d)\n%s", again, code, out2)
	}
}

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
	o := campaign.Outcome{Result: f.result(seed), Lin: linearize.Result{Result: porcupine.Ok}}
	if seed == f.failSeed {
		o.Result.Violations = []sim.Violation{{Check: "liveness", Message: "not converged"}}
	}
	if seed == f.unknownSeed {
		o.Lin.Result = porcupine.Unknown
	}
	return o
}

func (f fakeRunner) Replay(s sim.Schedule) campaign.Outcome {
	return campaign.Outcome{Result: f.result(s.Seed), Lin: linearize.Result{Result: porcupine.Ok}}
}

func (f fakeRunner) Trace(seed uint64, _ *sim.Schedule) sim.Result { return f.result(seed) }

func (f fakeRunner) Shrink(campaign.Outcome) sim.ShrinkResult {
	panic("a flaky failure must not be shrunk")
}

func fakeCLI(t *testing.T, f fakeRunner) cli {
	return cli{t: t, newRunner: func(campaign.Config) campaign.Runner { return f }}
}

// A panicking seed is that seed's failure, with its replay command.
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

// A failure its replay does not reproduce is not shrunk: the output and
// shrink.txt say why, and no shrunk.json is written.
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

// Linearizability unknown passes visibly, and fails under -strict.
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

// A restricted -faults campaign judges only the expected marks its kinds
// lead to (world.MarkNeeds); the others are listed not judged.
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

// A shard with no seeds says so, and prints no seed or replay line.
func TestSimEmptyShard(t *testing.T) {
	code, out, _ := fakeCLI(t, fakeRunner{}).run("sim", "-seeds", "1", "-first", "1", "-shard", "1/2")
	if code != exitOK || !strings.Contains(out, "shard 1/2 has no seeds") || strings.Contains(out, "replay") ||
		strings.Contains(out, "SEED") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

// The banner names the seed range (SEEDS=) or the seed (SEED=) and how to
// replay it.
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

// Report folders of earlier campaigns are never deleted nor overwritten: a
// campaign that fails a seed whose folder an earlier one left writes
// seed-S.2 (then .3) beside it, and says so in its report line.
func TestSimKeepsEarlierReportFolders(t *testing.T) {
	dir := t.TempDir()
	earlier := filepath.Join(dir, "seed-9")
	if err := os.MkdirAll(earlier, 0o755); err != nil {
		t.Fatal(err)
	}
	evidence := []byte("the earlier campaign's violation\n")
	if err := os.WriteFile(filepath.Join(earlier, "violation.txt"), evidence, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(earlier, "replay.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for n, want := range []string{"seed-2", "seed-2.2", "seed-2.3"} {
		code, out, _ := fakeCLI(t, fakeRunner{failSeed: 2}).run("sim", "-seeds", "3", "-first", "1", "-out", dir)
		if code != exitFail || !strings.Contains(out, "  report: "+filepath.Join(dir, want)+"/\n") {
			t.Fatalf("campaign %d: exit %d, want its report in %s:\n%s", n+1, code, want, out)
		}
		if _, err := os.Stat(filepath.Join(dir, want, "replay.txt")); err != nil {
			t.Fatalf("campaign %d: %v", n+1, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(earlier, "violation.txt")); err != nil || string(b) != string(evidence) {
		t.Fatalf("an earlier campaign's report was lost or changed: %v %q", err, b)
	}
	for _, d := range []string{"seed-2", "seed-2.2"} {
		b, err := os.ReadFile(filepath.Join(dir, d, "violation.txt"))
		if err != nil || !strings.Contains(string(b), "SEED=2") {
			t.Fatalf("%s was not kept: %v %q", d, err, b)
		}
	}
}

// Without -out, and when the failure could not be shrunk, the next steps
// still give the exact replay and shrink commands, and keep the case with
// shrink -o into the corpus or replay -save; a passing campaign prints none.
func TestSimNextStepsWithoutAReportFolder(t *testing.T) {
	code, out, _ := fakeCLI(t, fakeRunner{failSeed: 2}).run("sim", "-seeds", "3", "-first", "1", "-faults", "none", "-out", "")
	for _, want := range []string{
		"\nnext steps for the first failing seed, 2:\n",
		"  1. replay it (same fingerprint, the trace's tail; -trace FILE writes it all):\n       go run ./cmd/turnstile replay -seed 2 -faults none\n  2.",
		"       go run ./cmd/turnstile shrink -seed 2 -faults none -o sim/testdata/regressions/seed-2.json\n",
		"       (step 2 writes it there; if the seed does not shrink: go run ./cmd/turnstile replay -seed 2 -faults none -save sim/testdata/regressions/seed-2.json -note \"why\")\n",
		"go test ./sim/campaign -run TestRegressionCorpus -update-regressions\n",
	} {
		if code != exitFail || !strings.Contains(out, want) {
			t.Errorf("exit %d, output lacks %q:\n%s", code, want, out)
		}
	}
	// with a report folder whose shrink was skipped, the case is kept with replay -save
	dir := t.TempDir()
	_, out, _ = fakeCLI(t, fakeRunner{failSeed: 2}).run("sim", "-seeds", "3", "-first", "1", "-out", dir)
	want := "     (the campaign's shrink was skipped for this seed; the reason is above)\n" +
		"  3. keep it in the regression corpus (sim/testdata/regressions/README.md):\n" +
		"       go run ./cmd/turnstile replay -seed 2 -save sim/testdata/regressions/seed-2.json -note \"why\"\n"
	if !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	if _, out, _ := fakeCLI(t, fakeRunner{}).run("sim", "-seeds", "3", "-first", "1"); strings.Contains(out, "next steps") {
		t.Fatalf("a passing campaign has no next steps:\n%s", out)
	}
}
