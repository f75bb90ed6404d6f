package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/sim/campaign"
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
