package sim

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestAuditSameSeedSameFingerprint(t *testing.T) {
	opts := toyOptions(toyConfig{})
	opts.Swarm.All = true
	for seed := uint64(1); seed <= 10; seed++ {
		rep := Audit(seed, opts, 1, 4, 1)
		if rep.Diverged || len(rep.Fingerprints) != 3 {
			t.Fatalf("%s", rep)
		}
	}
}

// leakyCounter is package state that survives between runs: reading it
// from a node is exactly the kind of nondeterminism the auditor must catch.
var leakyCounter int

func TestAuditDetectsInjectedNondeterminism(t *testing.T) {
	opts := toyOptions(toyConfig{})
	base := opts.Setup
	opts.Setup = func(w *Kernel) {
		base(w)
		w.AddNode("leaky", func() Node {
			return NodeFunc(func(now time.Time, ev Event) []Effect {
				if _, ok := ev.(Start); !ok {
					return nil
				}
				leakyCounter++
				return []Effect{SetTimer{Timer: "leak", At: now.Add(time.Duration(leakyCounter) * time.Millisecond)}}
			})
		})
	}
	rep := Audit(5, opts)
	if !rep.Diverged || rep.Run != 1 {
		t.Fatalf("auditor missed the leak: %s", rep)
	}
	if !strings.Contains(rep.LineA, "leaky -> set-timer leak") || !strings.Contains(rep.LineB, "leaky -> set-timer leak") ||
		rep.LineA == rep.LineB {
		t.Fatalf("first divergence not at the leak:\n%s", rep)
	}
	if !strings.Contains(rep.String(), "NONDETERMINISTIC") {
		t.Fatal(rep.String())
	}
}

func TestFirstDivergence(t *testing.T) {
	a := []string{"x", "y", "z"}
	if _, _, _, ok := FirstDivergence(a, a); ok {
		t.Fatal("equal traces diverge")
	}
	if i, la, lb, ok := FirstDivergence(a, []string{"x", "Y"}); !ok || i != 1 || la != "y" || lb != "Y" {
		t.Fatalf("got %d %q %q", i, la, lb)
	}
	if i, la, lb, ok := FirstDivergence(a, a[:2]); !ok || i != 2 || la != "z" || lb != "" {
		t.Fatalf("got %d %q %q", i, la, lb)
	}
}

func TestCallerFaultKind(t *testing.T) {
	opts := toyOptions(toyConfig{})
	base := opts.Setup
	healed := 0
	opts.Setup = func(w *Kernel) {
		base(w)
		w.RegisterFault(FaultSpec{Kind: "server_crash", Targets: []NodeID{toyServer},
			ForMin: 100 * time.Millisecond, ForMax: time.Second}, CrashRestart)
		w.OnHeal(func() {
			healed++
			if !w.Up(toyServer) {
				w.Restart(toyServer)
			}
		})
	}
	opts.Swarm.Kinds = []FaultKind{"server_crash", FaultConnLoss}
	opts.Swarm.All = true
	c := NewCampaign()
	for seed := uint64(1); seed <= 30; seed++ {
		r := Run(seed, opts)
		if r.Failed() || !r.Converged {
			t.Fatalf("seed %d: %v %q", seed, r.Violations, r.Pending)
		}
		if got := r.Schedule.String(); !strings.Contains(got, "server_crash(gap=") {
			t.Fatalf("swarm line lacks the caller kind: %s", got)
		}
		c.Add(r)
	}
	if c.Faults["server_crash"] == 0 || c.Faults[FaultConnLoss] == 0 || c.Faults[FaultStall] != 0 {
		t.Fatalf("fault counts %v", c.Faults)
	}
	if healed != 30 {
		t.Fatalf("heal hooks ran %d times", healed)
	}
}

func TestScheduleJSONRoundTrip(t *testing.T) {
	r := Run(9, toyOptions(toyConfig{}))
	s, err := ParseSchedule(r.Schedule.MarshalIndent())
	if err != nil {
		t.Fatal(err)
	}
	if s.String() != r.Schedule.String() || len(s.Faults) != len(r.Schedule.Faults) {
		t.Fatalf("round trip changed the schedule:\n%s\n%s", s, r.Schedule)
	}
	for i := range s.Faults {
		if s.Faults[i] != r.Schedule.Faults[i] {
			t.Fatalf("fault %d: %v vs %v", i, s.Faults[i], r.Schedule.Faults[i])
		}
	}
	if _, err := ParseSchedule([]byte("{")); err == nil {
		t.Fatal("bad JSON accepted")
	}
}

func TestAddingAComponentDoesNotShiftOthers(t *testing.T) {
	plain := Run(4, toyOptions(toyConfig{}))
	opts := toyOptions(toyConfig{})
	base := opts.Setup
	opts.Setup = func(w *Kernel) {
		base(w)
		w.Rand("workload").Uint64() // a new component drawing from its own stream
	}
	if other := Run(4, opts); other.Fingerprint != plain.Fingerprint {
		t.Fatal("drawing from another stream changed the run")
	}
	// A new fault kind adds its own faults and leaves the others' schedule
	// as it was, with and without every kind forced on.
	for _, all := range []bool{false, true} {
		for seed := uint64(1); seed <= 50; seed++ {
			opts := toyOptions(toyConfig{})
			opts.Swarm.All = all
			before := Run(seed, opts)
			base := opts.Setup
			opts.Setup = func(w *Kernel) {
				base(w)
				w.RegisterFault(FaultSpec{Kind: "b_extra", Targets: []NodeID{"server"}}, nopFault)
			}
			after := Run(seed, opts)
			en, fs := without(after.Schedule, "b_extra")
			if !slices.Equal(en, before.Schedule.Enabled) || !slices.Equal(fs, before.Schedule.Faults) {
				t.Fatalf("seed %d all=%v: a new fault kind shifted the others:\n%s\n%s",
					seed, all, before.Schedule, after.Schedule)
			}
		}
	}
}
