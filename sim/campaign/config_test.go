package campaign

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/sim"
)

var testKinds = []sim.FaultKind{sim.FaultConnLoss, sim.FaultStall, "core_crash"}

func TestParseFaults(t *testing.T) {
	got, err := ParseFaults("swarm", testKinds)
	if err != nil || got != nil {
		t.Fatalf("swarm: %v %v", got, err)
	}
	for _, empty := range []string{"", " ", "stall,,core_crash"} {
		if got, err = ParseFaults(empty, testKinds); err == nil {
			t.Fatalf("empty %q: %v, want an error", empty, got)
		}
	}
	if _, err = ParseFaults("", testKinds); !errors.Is(err, ErrFaultsEmpty) {
		t.Fatalf("empty: %v, want ErrFaultsEmpty", err)
	}
	got, err = ParseFaults("none", testKinds)
	if err != nil || got == nil || len(got) != 0 {
		t.Fatalf("none: %#v %v", got, err)
	}
	got, err = ParseFaults("core_crash, stall,core_crash", testKinds)
	if err != nil || !slices.Equal(got, []sim.FaultKind{"core_crash", sim.FaultStall}) {
		t.Fatalf("list: %v %v", got, err)
	}
	a, errA := ParseFaults("stall,core_crash", testKinds)
	b, errB := ParseFaults("core_crash,stall", testKinds)
	if errA != nil || errB != nil || !slices.Equal(a, b) || FaultsString(a) != FaultsString(b) {
		t.Fatalf("order must not matter: %v %v (%v %v)", a, b, errA, errB)
	}
	_, err = ParseFaults("stall,meteor", testKinds)
	if !errors.Is(err, ErrFaultKind) {
		t.Fatalf("unknown kind: %v", err)
	}
	for _, want := range []string{`"meteor"`, "conn_loss, stall, core_crash", "swarm", "none"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q should mention %s", err, want)
		}
	}
}

func TestConfigJSONRoundTrip(t *testing.T) {
	for _, c := range []Config{
		{},
		{Devices: 3, Turns: 7, Faults: []sim.FaultKind{}},
		{Devices: 1, Faults: []sim.FaultKind{sim.FaultStall, "core_crash"}},
	} {
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var back Config
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if back.Devices != c.Devices || back.Turns != c.Turns || (back.Faults == nil) != (c.Faults == nil) ||
			!slices.Equal(back.Faults, c.Faults) {
			t.Fatalf("%s: got %#v want %#v", b, back, c)
		}
	}
	b, _ := json.Marshal(Config{Devices: 2})
	if string(b) != `{"devices":2,"turns":0,"faults":"swarm"}` {
		t.Fatalf("config JSON %s", b)
	}
}

func TestReplayCommand(t *testing.T) {
	if got := ReplayCommand(17, Config{}); got != "go run ./cmd/turnstile replay -seed 17" {
		t.Fatalf("default: %q", got)
	}
	got := ReplayCommand(5, Config{Devices: 2, Turns: 3, Faults: []sim.FaultKind{sim.FaultStall, "core_crash"}})
	if got != "go run ./cmd/turnstile replay -seed 5 -devices 2 -turns 3 -faults stall,core_crash" {
		t.Fatalf("flags: %q", got)
	}
	if got := ReplayCommand(5, Config{Faults: []sim.FaultKind{}}); !strings.HasSuffix(got, " -faults none") {
		t.Fatalf("none: %q", got)
	}
}

// A configuration recorded with planted bugs (cases written before the
// machines lost them) is refused by name, never replayed without them.
func TestConfigRefusesPlantedBugs(t *testing.T) {
	var c Config
	err := json.Unmarshal([]byte(`{"devices":1,"turns":0,"faults":"none","bugs":["daemon_accepts_before_apply"]}`), &c)
	if !errors.Is(err, ErrPlantedBugs) || !strings.Contains(err.Error(), "daemon_accepts_before_apply") {
		t.Fatalf("got %v, want %v naming the bug", err, ErrPlantedBugs)
	}
	if b, _ := json.Marshal(Config{Faults: []sim.FaultKind{}}); strings.Contains(string(b), "bugs") {
		t.Fatalf("no bugs member is written: %s", b)
	}
}
