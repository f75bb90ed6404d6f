package fuzz

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/campaign"
	"github.com/turnstile-sim/turnstile/sim/world"
)

// worldInput is what FuzzWorld's bytes choose: the seed (its fault
// timeline, network and everything else not chosen here), the fault kinds
// the swarm may enable, the number of devices and turns, and the first
// draws of the streams that decide the devices' capabilities ("params")
// and the workload ("workload"). Every FuzzWorld world runs under the
// step budget worldStepsMax.
type worldInput struct {
	seed uint64
	cfg  world.Config
}

// worldStepsMax is FuzzWorld's budget of kernel steps per input. Go's
// fuzzing worker gives one call of the fuzz function 10 s of wall time
// (a limit no flag changes): past it the worker panics, and the fuzzer
// fails with "fuzzing process hung or terminated unexpectedly" and saves
// the input under testdata/fuzz/FuzzWorld, although the input passes when
// run again. A world's cost has a long tail: most inputs end within 5,000
// steps (a few ms of CPU), a few run past 200,000 steps and take seconds
// of CPU, more under the fuzzer's coverage instrumentation and again more
// on a loaded machine. The budget bounds every input at about half a
// second of CPU instrumented, and it is counted in steps, not time, so an
// input has one verdict whatever the load. A run that reaches the budget
// stops there with sim.CheckStepsMax; every safety check has held up to
// that step (the first violation stops a run), but the checks of a run's
// end (liveness, the final audits) are left to campaigns, whose runs have
// no such budget: FuzzWorld reports no failure for it (overBudget).
const worldStepsMax = 20_000

// worldParamsBytes is how many input bytes go to the "params" stream.
const worldParamsBytes = 32

func decodeWorldInput(data []byte) worldInput {
	var head [14]byte
	n := copy(head[:], data)
	rest := data[n:]
	in := worldInput{seed: binary.LittleEndian.Uint64(head[0:8])}
	mask := binary.LittleEndian.Uint32(head[8:12])
	if mask != 1<<32-1 { // all bits: the full swarm
		in.cfg.Faults = []sim.FaultKind{}
		for i, k := range world.FaultKinds() {
			if mask&(1<<(i%32)) != 0 {
				in.cfg.Faults = append(in.cfg.Faults, k)
			}
		}
	}
	in.cfg.Devices = int(head[12] % 5)
	in.cfg.Turns = int(head[13] % 41)
	params := rest[:min(len(rest), worldParamsBytes)]
	in.cfg.Draws = sim.Draws{"params": params, "workload": rest[len(params):]}
	in.cfg.StepsMax = worldStepsMax
	return in
}

func encodeWorldInput(seed uint64, mask uint32, devices, turns byte, draws []byte) []byte {
	b := binary.LittleEndian.AppendUint64(nil, seed)
	b = binary.LittleEndian.AppendUint32(b, mask)
	return append(append(b, devices, turns), draws...)
}

// FuzzWorld runs the full-stack world with inputs chosen by Go's
// coverage-guided fuzzer: it mutates bytes toward inputs that reach new
// code in the machines, so it finds protocol states random seeds reach
// rarely. Each input runs under the step budget worldStepsMax. A failing
// input is written as a regression case that `turnstile replay -schedule`
// reproduces (under $TURNSTILE_FUZZ_OUT, or the temporary directory),
// besides Go's own corpus entry.
func FuzzWorld(f *testing.F) {
	f.Add(encodeWorldInput(1, 1<<32-1, 0, 0, nil))
	f.Add(encodeWorldInput(2, 0, 1, 3, []byte("steer steer steer cancel")))
	f.Add(encodeWorldInput(3, 0x00ff00ff, 4, 25, make([]byte, 96)))
	f.Fuzz(func(t *testing.T, data []byte) {
		in := decodeWorldInput(data)
		o := world.Run(in.seed, in.cfg)
		appendStates(os.Getenv("TURNSTILE_FUZZ_STATES"), stateAtoms(o), data) // exploration_test.go
		if msg := worldFailure(in, o); msg != "" {
			t.Fatal(msg)
		}
	})
}

// overBudget reports a run that reached FuzzWorld's step budget before
// any check failed (worldStepsMax).
func overBudget(o world.Outcome) bool { return o.Result.FailedCheck() == sim.CheckStepsMax }

// worldFailure is what FuzzWorld fails an input with: "" when its run
// passed or reached the budget, else the first violation and the replay
// command of the regression case it writes.
func worldFailure(in worldInput, o world.Outcome) string {
	if !o.Result.Failed() || overBudget(o) {
		return ""
	}
	path, err := writeWorldCase(in, o)
	if err != nil {
		return fmt.Sprintf("world failed (%s) and its case could not be written: %v", o.Result.Violations[0], err)
	}
	return fmt.Sprintf("world failed: %s\nreplay: %s", o.Result.Violations[0], campaign.ReplayScheduleCommand(path))
}

// writeWorldCase stores a failing fuzz input as a regression case.
func writeWorldCase(in worldInput, o world.Outcome) (string, error) {
	dir := os.Getenv("TURNSTILE_FUZZ_OUT")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "turnstile-fuzzworld")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	c := campaign.Case{Seed: in.seed, Config: campaign.Config{Devices: in.cfg.Devices, Turns: in.cfg.Turns,
		Faults: in.cfg.Faults}, Check: o.Result.FailedCheck(), Fingerprint: o.Result.Fingerprint,
		Schedule: o.Result.Schedule, Note: "found by FuzzWorld"}
	path := filepath.Join(dir, fmt.Sprintf("fuzzworld-%s.json", o.Result.Fingerprint[:16]))
	return path, os.WriteFile(path, c.Marshal(), 0o644)
}

// TestFuzzWorldCaseReplays checks the regression path of FuzzWorld: the
// case written for an input replays to the same fingerprint through the
// schedule alone, draws included.
func TestFuzzWorldCaseReplays(t *testing.T) {
	t.Setenv("TURNSTILE_FUZZ_OUT", t.TempDir())
	in := decodeWorldInput(encodeWorldInput(3, 0x00ff00ff, 4, 25, []byte("0123456789abcdef0123456789abcdef-workload-bytes")))
	if string(in.cfg.Draws["workload"]) != "-workload-bytes" || len(in.cfg.Draws["params"]) != worldParamsBytes {
		t.Fatalf("input split: %q", in.cfg.Draws)
	}
	o := world.Run(in.seed, in.cfg)
	path, err := writeWorldCase(in, o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := campaign.ParseCase(b)
	if err != nil {
		t.Fatal(err)
	}
	again := world.Replay(c.Schedule, world.Config{Devices: c.Config.Devices, Turns: c.Config.Turns, Faults: c.Config.Faults})
	if again.Result.Fingerprint != o.Result.Fingerprint || c.Fingerprint != o.Result.Fingerprint {
		t.Fatalf("case replays to %s, the fuzzed run was %s", again.Result.Fingerprint, o.Result.Fingerprint)
	}
	plain := world.Run(in.seed, world.Config{Devices: in.cfg.Devices, Turns: in.cfg.Turns, Faults: in.cfg.Faults})
	if plain.Result.Fingerprint == o.Result.Fingerprint {
		t.Fatal("the draws must steer the run: without them the seed runs differently")
	}
}

// TestFuzzWorldReportsFailure checks what a failing input leaves: a
// violation (here added to a real run of seed 2) gives a verdict naming
// the check and the replay command, and the case written holds the run's
// configuration, check and schedule, which replays to the same
// fingerprint; the same input run as it is passes and writes nothing.
func TestFuzzWorldReportsFailure(t *testing.T) {
	out := t.TempDir()
	t.Setenv("TURNSTILE_FUZZ_OUT", out)
	data := encodeWorldInput(2, 1<<32-1, 0, 0, nil)
	in := decodeWorldInput(data)
	o := world.Run(in.seed, in.cfg)
	if o.Result.Failed() {
		t.Fatalf("seed 2 must pass as it is: %v", o.Result.Violations)
	}
	if msg := worldFailure(in, o); msg != "" {
		t.Fatalf("a passing run was reported: %q", msg)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Fatalf("a passing input wrote %d files", len(entries))
	}
	o.Result.Violations = []sim.Violation{{Step: 40, Check: "accepted_without_ground_truth", Message: "x"}}
	msg := worldFailure(in, o)
	if !strings.HasPrefix(msg, "world failed: ") || !strings.Contains(msg, "accepted_without_ground_truth") ||
		!strings.Contains(msg, "replay -schedule "+out) {
		t.Fatalf("verdict %q", msg)
	}
	files, err := filepath.Glob(filepath.Join(out, "fuzzworld-*.json"))
	if err != nil || len(files) != 1 {
		t.Fatalf("cases written: %v %v", files, err)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	c, err := campaign.ParseCase(b)
	if err != nil {
		t.Fatal(err)
	}
	if c.Check != "accepted_without_ground_truth" || c.Seed != in.seed || c.Config.Devices != in.cfg.Devices ||
		c.Config.Turns != in.cfg.Turns || !slices.Equal(c.Config.Faults, in.cfg.Faults) || c.Fingerprint != o.Result.Fingerprint {
		t.Fatalf("case seed %d config %+v check %q fingerprint %s", c.Seed, c.Config, c.Check, c.Fingerprint)
	}
	again := world.Replay(c.Schedule, world.Config{Devices: c.Config.Devices, Turns: c.Config.Turns, Faults: c.Config.Faults})
	if again.Result.Fingerprint != o.Result.Fingerprint {
		t.Fatalf("case replays to %s, the fuzzed run was %s", again.Result.Fingerprint, o.Result.Fingerprint)
	}
}

// TestFuzzWorldBudget checks the step budget on an input whose world runs
// far past it (about 6 s of CPU unbounded; under the fuzzer, past the
// worker's 10 s limit): the run stops at worldStepsMax with the steps_max
// check, and FuzzWorld reports no failure and writes no case for it.
func TestFuzzWorldBudget(t *testing.T) {
	out := t.TempDir()
	t.Setenv("TURNSTILE_FUZZ_OUT", out)
	in := decodeWorldInput([]byte("r steer cancel"))
	if in.cfg.StepsMax != worldStepsMax {
		t.Fatalf("decoded budget %d, want %d", in.cfg.StepsMax, worldStepsMax)
	}
	o := world.Run(in.seed, in.cfg)
	if !overBudget(o) || o.Result.Stats.Steps != worldStepsMax || len(o.Result.Violations) == 0 {
		t.Fatalf("run of %d steps, violations %v; want it stopped at %d by %s", o.Result.Stats.Steps, o.Result.Violations, worldStepsMax, sim.CheckStepsMax)
	}
	if msg := worldFailure(in, o); msg != "" {
		t.Fatalf("a run stopped by the budget was reported: %q", msg)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Fatalf("a run stopped by the budget wrote %d files", len(entries))
	}
	// A violation other than the budget's is reported, whatever its step.
	o.Result.Violations = append([]sim.Violation{{Step: 7, Check: "input_delivered_twice", Message: "x"}}, o.Result.Violations...)
	if msg := worldFailure(in, o); !strings.Contains(msg, "input_delivered_twice") {
		t.Fatalf("verdict %q", msg)
	}
}

// TestDocStatesWorldBudget keeps doc.go's number for the budget true.
func TestDocStatesWorldBudget(t *testing.T) {
	b, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	n := fmt.Sprintf("%d,%03d", worldStepsMax/1000, worldStepsMax%1000)
	if doc := strings.Join(strings.Fields(strings.ReplaceAll(string(b), "//", "")), " "); !strings.Contains(doc, "a budget of "+n+" kernel steps") {
		t.Fatalf("doc.go does not state the budget of %s kernel steps", n)
	}
}
