package fuzz

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/campaign"
	"github.com/turnstile-sim/turnstile/sim/world"
)

// worldInput is what FuzzWorld's bytes choose: the seed (its fault
// timeline, network and everything else not chosen here), the fault kinds
// the swarm may enable, the number of devices and turns, and the first
// draws of the streams that decide the devices' capabilities ("params")
// and the workload ("workload").
type worldInput struct {
	seed uint64
	cfg  world.Config
}

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
// rarely. A failing input is written as a regression case that
// `turnstile replay -schedule` reproduces (under $TURNSTILE_FUZZ_OUT, or
// the temporary directory), besides Go's own corpus entry.
func FuzzWorld(f *testing.F) {
	f.Add(encodeWorldInput(1, 1<<32-1, 0, 0, nil))
	f.Add(encodeWorldInput(2, 0, 1, 3, []byte("steer steer steer cancel")))
	f.Add(encodeWorldInput(3, 0x00ff00ff, 4, 25, make([]byte, 96)))
	f.Fuzz(func(t *testing.T, data []byte) {
		in := decodeWorldInput(data)
		o := world.Run(in.seed, in.cfg)
		appendStates(os.Getenv("TURNSTILE_FUZZ_STATES"), stateAtoms(o), data) // exploration_test.go
		if !o.Result.Failed() {
			return
		}
		path, err := writeWorldCase(in, o)
		if err != nil {
			t.Fatalf("world failed (%s) and its case could not be written: %v", o.Result.Violations[0], err)
		}
		t.Fatalf("world failed: %s\nreplay: %s", o.Result.Violations[0], campaign.ReplayScheduleCommand(path))
	})
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
