package sim

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"
)

// sweepForBug returns the first failing run of the planted-bug toy.
func sweepForBug(t *testing.T, opts Options) Result {
	t.Helper()
	for seed := uint64(1); seed <= 200; seed++ {
		if r := Run(seed, opts); r.Failed() {
			return r
		}
	}
	t.Fatal("seed sweep did not find the planted dedup bug in 200 seeds")
	return Result{}
}

func TestToyHealthyUnderAllFaults(t *testing.T) {
	opts := toyOptions(toyConfig{})
	opts.Swarm.All = true
	c := NewCampaign()
	for seed := uint64(1); seed <= 100; seed++ {
		r := Run(seed, opts)
		if r.Failed() || !r.Converged {
			t.Fatalf("seed %d: %v pending=%q\n%s", seed, r.Violations, r.Pending, strings.Join(r.Tail, "\n"))
		}
		c.Add(r)
	}
	for _, k := range []FaultKind{FaultConnLoss, FaultStall, FaultSlow, FaultDialRefuse} {
		if c.Faults[k] == 0 {
			t.Errorf("fault kind %s never injected: %v", k, c.Faults)
		}
	}
	if missing := c.Missing("toy_retransmit", "toy_reconnect_resend", "toy_duplicate_suppressed",
		"toy_dial_failed"); len(missing) > 0 {
		t.Errorf("marks never reached: %v (%s)", missing, c)
	}
}

func TestSwarmEnablesSubsets(t *testing.T) {
	seen := map[string]bool{}
	for seed := uint64(1); seed <= 40; seed++ {
		r := Run(seed, toyOptions(toyConfig{}))
		var kinds []string
		for _, k := range r.Schedule.Enabled {
			kinds = append(kinds, string(k.Kind))
		}
		seen[strings.Join(kinds, ",")] = true
		if r.Stats.TraceLines == 0 || len(r.Tail) == 0 {
			t.Fatal("empty trace")
		}
	}
	if len(seen) < 6 {
		t.Fatalf("swarm produced only %d distinct kind subsets: %v", len(seen), seen)
	}
}

func TestToyPlantedBugFoundReplayedShrunk(t *testing.T) {
	opts := toyOptions(toyConfig{noDedup: true})
	r := sweepForBug(t, opts)
	if r.FailedCheck() != "applied_once" {
		t.Fatalf("seed %d failed %q, want applied_once: %v", r.Seed, r.FailedCheck(), r.Violations)
	}
	v := r.Violations[0]
	if v.Step == 0 || v.At <= 0 || !strings.Contains(v.Message, "applied 2 times") {
		t.Fatalf("violation lacks step/time/message: %+v", v)
	}
	// Replay by seed and by the stored JSON schedule: identical fingerprint.
	if again := Run(r.Seed, opts); again.Fingerprint != r.Fingerprint {
		t.Fatalf("seed replay diverged: %s vs %s", again.Fingerprint, r.Fingerprint)
	}
	stored, err := ParseSchedule(r.Schedule.MarshalIndent())
	if err != nil {
		t.Fatal(err)
	}
	if again := Replay(stored, opts); again.Fingerprint != r.Fingerprint || again.FailedCheck() != "applied_once" {
		t.Fatalf("schedule replay diverged: %s vs %s", again.Fingerprint, r.Fingerprint)
	}
	// Shrink: fewer faults and a smaller workload, same check.
	sh := Shrink(r, opts)
	if sh.Result.FailedCheck() != "applied_once" {
		t.Fatalf("shrunk run fails %q", sh.Result.FailedCheck())
	}
	if sh.FaultsAfter >= sh.FaultsBefore && sh.WorkAfter >= sh.WorkBefore {
		t.Fatalf("nothing shrunk: %+v", sh)
	}
	if sh.WorkAfter >= sh.WorkBefore || sh.FaultsAfter > sh.FaultsBefore {
		t.Fatalf("shrink did not reduce: faults %d->%d workload %d->%d",
			sh.FaultsBefore, sh.FaultsAfter, sh.WorkBefore, sh.WorkAfter)
	}
	if sh.HealAfter >= sh.HealBefore {
		t.Fatalf("heal not shortened: %s -> %s", sh.HealBefore, sh.HealAfter)
	}
	if again := Replay(sh.Schedule, opts); again.Fingerprint != sh.Result.Fingerprint {
		t.Fatal("shrunk schedule does not replay identically")
	}
	for _, k := range sh.Schedule.Enabled {
		if !slices.ContainsFunc(sh.Schedule.Faults, func(f Fault) bool { return f.Kind == k.Kind }) {
			t.Fatalf("the shrunk schedule lists kind %s, which none of its faults uses: %s", k.Kind, sh.Schedule)
		}
	}

	t.Logf("seed %d: faults %d->%d, workload %d->%d, heal %s->%s in %d runs; %s",
		r.Seed, sh.FaultsBefore, sh.FaultsAfter, sh.WorkBefore, sh.WorkAfter, sh.HealBefore, sh.HealAfter,
		sh.Runs, sh.Result.Violations[0])
}

func TestToyBugNeedsFaults(t *testing.T) {
	opts := toyOptions(toyConfig{noDedup: true})
	opts.Swarm.Kinds = []FaultKind{} // nothing eligible: a fault-free run
	for seed := uint64(1); seed <= 20; seed++ {
		if r := Run(seed, opts); r.Failed() || len(r.Schedule.Faults) != 0 {
			t.Fatalf("seed %d without faults: %v, %d faults", seed, r.Violations, len(r.Schedule.Faults))
		}
	}
}

// stallAtHeal is a hand-written schedule: the only connection stalls in
// both directions just before heal, for an hour.
func stallAtHeal() Schedule {
	return Schedule{
		Seed: 3, Workload: 5, Heal: 2 * time.Second,
		Network: NetworkConfig{LatencyMin: int64(time.Millisecond), LatencyMax: int64(5 * time.Millisecond)},
		Enabled: []KindSetting{{Kind: FaultStall, Gap: time.Second}},
		Faults:  []Fault{{At: 500 * time.Millisecond, Kind: FaultStall, Pick: 2 << 32, For: time.Hour}},
	}
}

func TestLivenessPassesAfterHeal(t *testing.T) {
	r := Replay(stallAtHeal(), toyOptions(toyConfig{}))
	if r.Failed() || !r.Converged {
		t.Fatalf("healed run did not converge: %v %q", r.Violations, r.Pending)
	}
	if r.Stats.Faults[FaultStall] != 1 {
		t.Fatalf("stall not injected: %v", r.Stats.Faults)
	}
	if r.Stats.End < 2*time.Second {
		t.Fatalf("converged at %s, before heal released the stall", r.Stats.End)
	}
}

func TestLivenessFailsWhenNeverHealed(t *testing.T) {
	opts := toyOptions(toyConfig{})
	opts.NeverHeal = true
	opts.LivenessTimeout = 10 * time.Second
	r := Replay(stallAtHeal(), opts)
	if r.FailedCheck() != "liveness" || r.Converged {
		t.Fatalf("want liveness failure, got %v", r.Violations)
	}
	msg := r.Violations[0].Message
	if !strings.Contains(msg, "not converged 10s after heal") || !strings.Contains(msg, "requests unacked") {
		t.Fatalf("liveness failure lacks the pending reason: %q", msg)
	}
	if r.Violations[0].At != 12*time.Second {
		t.Fatalf("liveness deadline at %s, want 12s", r.Violations[0].At)
	}
}

func TestTraceToWriterMatchesFingerprint(t *testing.T) {
	var buf bytes.Buffer
	opts := toyOptions(toyConfig{})
	opts.TraceWriter = &buf
	opts.KeepTrace = true
	opts.TraceTail = 8
	r := Run(11, opts)
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != len(r.Trace) || uint64(len(lines)) != r.Stats.TraceLines {
		t.Fatalf("writer has %d lines, kept %d, stats %d", len(lines), len(r.Trace), r.Stats.TraceLines)
	}
	if len(r.Tail) != 8 || r.Tail[7] != lines[len(lines)-1] || r.Tail[0] != lines[len(lines)-8] {
		t.Fatalf("tail is not the last 8 lines: %q", r.Tail)
	}
	if !strings.HasPrefix(lines[0], "0.000000000 kernel !! swarm seed=11 ") {
		t.Fatalf("first line does not print the swarm: %q", lines[0])
	}
	if fp := fingerprintOf(lines); fp != r.Fingerprint {
		t.Fatalf("fingerprint %s, recomputed %s", r.Fingerprint, fp)
	}
}

func TestResultReport(t *testing.T) {
	r := sweepForBug(t, toyOptions(toyConfig{noDedup: true}))
	rep := r.Report()
	for _, want := range []string{"SEED=", "seed=", "VIOLATION step", "applied_once", "fingerprint=" + r.Fingerprint, "trace tail:", "kernel !! violation"} {
		if !strings.Contains(rep, want) {
			t.Fatalf("report lacks %q:\n%s", want, rep)
		}
	}
}
