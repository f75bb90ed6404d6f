package world

import (
	"testing"

	"github.com/turnstile-sim/turnstile/internal/testgate"
	"github.com/turnstile-sim/turnstile/sim"
)

func TestSameSeedSameFingerprint(t *testing.T) {
	for _, seed := range []uint64{1, 7, 42, 1234} {
		a, b := Run(seed, Config{}), Run(seed, Config{})
		if a.Result.Fingerprint != b.Result.Fingerprint {
			t.Errorf("seed %d: fingerprints differ: %s vs %s", seed, a.Result.Fingerprint, b.Result.Fingerprint)
		}
		if a.Lin.Result != b.Lin.Result {
			t.Errorf("seed %d: linearizability %s vs %s", seed, a.Lin.Result, b.Lin.Result)
		}
		if len(a.Timeline) != len(b.Timeline) {
			t.Errorf("seed %d: timelines differ in length", seed)
		}
	}
}

func TestAuditAcrossGOMAXPROCS(t *testing.T) {
	for _, seed := range []uint64{3, 11, 99} {
		rep := sim.Audit(seed, Options(Config{}), 1, 4)
		if rep.Diverged {
			t.Errorf("seed %d diverged: %s", seed, rep)
		}
	}
}

func TestReplayReproducesRun(t *testing.T) {
	for _, seed := range []uint64{5, 17, 300} {
		o := Run(seed, Config{})
		r := Replay(o.Result.Schedule, Config{})
		if r.Result.Fingerprint != o.Result.Fingerprint {
			t.Errorf("seed %d: replay fingerprint %s, run %s", seed, r.Result.Fingerprint, o.Result.Fingerprint)
		}
		s, err := sim.ParseSchedule(o.Result.Schedule.MarshalIndent())
		if err != nil {
			t.Fatal(err)
		}
		if j := Replay(s, Config{}); j.Result.Fingerprint != o.Result.Fingerprint {
			t.Errorf("seed %d: replay from JSON differs", seed)
		}
	}
}

// A device count and a turn count fixed by the config are honoured, and a
// restricted fault list injects nothing else.
func TestConfigKnobs(t *testing.T) {
	cfg := Config{Devices: 3, Turns: 4, Faults: []sim.FaultKind{"core_crash", sim.FaultConnLoss}}
	o := Run(21, cfg)
	if o.Result.Failed() {
		t.Fatalf("violations: %v", o.Result.Violations)
	}
	if o.Result.Schedule.Workload != 4 || o.Turns > 4 {
		t.Errorf("workload %d, turns %d; want 4", o.Result.Schedule.Workload, o.Turns)
	}
	for _, f := range o.Result.Schedule.Faults {
		if f.Kind != "core_crash" && f.Kind != sim.FaultConnLoss {
			t.Errorf("fault %s outside the configured kinds", f)
		}
	}
	devices := 0
	opts := Options(cfg)
	opts.Setup = func(w *sim.Kernel) {
		u := setup(w, cfg, false)
		devices = len(u.devices)
	}
	sim.Run(21, opts)
	if devices != 3 {
		t.Errorf("devices %d, want 3", devices)
	}
}

func TestFaultKindsSortedAndComplete(t *testing.T) {
	kinds := FaultKinds()
	for i := 1; i < len(kinds); i++ {
		if kinds[i-1] >= kinds[i] {
			t.Fatalf("kinds not sorted: %v", kinds)
		}
	}
	if len(kinds) != 4+len(worldKinds()) {
		t.Errorf("%d kinds, want %d", len(kinds), 4+len(worldKinds()))
	}
}

// Seeds run concurrently give the fingerprints they give alone: no state
// leaks between runs.
func TestConcurrentSweepMatchesSequential(t *testing.T) {
	testgate.Long(t) // 120 seeds; `make race` runs it too
	par := sweep(t, 400, 60, Config{})
	for i, o := range par {
		seq := Run(400+uint64(i), Config{})
		if seq.Result.Fingerprint != o.Result.Fingerprint {
			t.Errorf("seed %d: concurrent %s, alone %s", 400+i, o.Result.Fingerprint, seq.Result.Fingerprint)
		}
	}
}
