package campaign

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
)

// markless returns a summary of n seeds under cfg that hit no mark.
func markless(n int, cfg Config) *Summary {
	s := NewSummary()
	s.Config = cfg
	for i := 1; i <= n; i++ {
		s.Add(SeedReport{Seed: uint64(i), Lin: LinReport{Result: LinOk}})
	}
	return s
}

func TestMarkVerdictOnlyForTheSwarm(t *testing.T) {
	swarm := markless(check.CampaignSeedsMin, Config{})
	if swarm.Err() == nil || !strings.Contains(summaryText(swarm), "mark verdict  FAIL") {
		t.Fatalf("the swarm must judge marks: %v", swarm.Err())
	}
	for _, faults := range [][]sim.FaultKind{{}, {sim.FaultConnLoss}} {
		s := markless(check.CampaignSeedsMin, Config{Faults: faults})
		if err := s.Err(); err != nil {
			t.Fatalf("faults %v: %v", faults, err)
		}
		if text := summaryText(s); !strings.Contains(text, "mark verdict  not judged (faults restricted)\n") ||
			!strings.HasSuffix(text, "PASS\n") {
			t.Fatalf("faults %v:\n%s", faults, text)
		}
	}
}

func TestLinUnknownIsVisibleAndFailsUnderStrict(t *testing.T) {
	s := NewSummary()
	for i := uint64(1); i <= 4; i++ {
		res := LinOk
		if i%2 == 0 {
			res = LinUnknown
		}
		s.Add(SeedReport{Seed: i, Lin: LinReport{Result: res}})
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	text := summaryText(s)
	for _, want := range []string{"lin unknown   2 seeds: 2 4", "replay -seed 2",
		"PASS (2 seeds linearizability unknown — porcupine timed out; rerun them)\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
	s.Strict = true
	if err := s.Err(); !errors.Is(err, ErrLinUnknown) {
		t.Fatalf("strict: %v", err)
	}
	if text := summaryText(s); strings.Contains(text, "PASS") || !strings.Contains(text, "FAIL: ") {
		t.Fatalf("strict summary:\n%s", text)
	}
}

func TestFailingListIsAligned(t *testing.T) {
	s := NewSummary()
	for _, seed := range []uint64{7, 42, 1234} {
		s.Add(SeedReport{Seed: seed, Violations: []Violation{{Check: "liveness"}}})
	}
	var cols []int
	for _, line := range strings.Split(summaryText(s), "\n") {
		if strings.HasPrefix(line, "  FAIL SEED=") {
			cols = append(cols, strings.Index(line, "liveness"))
		}
	}
	if len(cols) != 3 || cols[0] != cols[1] || cols[1] != cols[2] {
		t.Fatalf("check column at %v:\n%s", cols, summaryText(s))
	}
}

func TestShrinkNoteInFailingList(t *testing.T) {
	s := NewSummary()
	s.Add(SeedReport{Seed: 3, Violations: []Violation{{Check: "x"}}, Shrink: "shrink skipped: flaky"})
	if text := summaryText(s); !strings.Contains(text, "(shrink skipped: flaky)\n") {
		t.Fatalf("summary:\n%s", text)
	}
}

func TestSkippedFaultsAreNotInjected(t *testing.T) {
	o := Outcome{Result: sim.Result{Seed: 2, Stats: sim.Stats{FaultsSkipped: 1,
		Faults: map[sim.FaultKind]int{"daemon_crash": 132, "stall": 4}}},
		Skipped: map[sim.FaultKind]int{"daemon_crash": 120}}
	rep := NewSeedReport(o)
	if rep.Faults.Applied["daemon_crash"] != 12 || rep.Faults.Applied["stall"] != 4 || rep.Faults.Skipped != 121 {
		t.Fatalf("faults %+v", rep.Faults)
	}
}

func header(first uint64, seeds int, shard string, cfg Config, commit string) []byte {
	sh, _ := ParseShard(shard)
	h := NewHeader(Plan{First: first, Count: seeds, Shard: sh}, cfg, commit)
	return append(MarshalLine(h), '\n')
}

func TestMergeRefusesShardsOfDifferentCampaigns(t *testing.T) {
	base := header(1, 10, "0/2", Config{}, "c1")
	for name, other := range map[string][]byte{ //tidy:sorted each case is independent
		"faults":  header(1, 10, "1/2", Config{Faults: []sim.FaultKind{}}, "c1"),
		"devices": header(1, 10, "1/2", Config{Devices: 2}, "c1"),
		"turns":   header(1, 10, "1/2", Config{Turns: 50}, "c1"),
		"first":   header(2, 10, "1/2", Config{}, "c1"),
		"seeds":   header(1, 11, "1/2", Config{}, "c1"),
	} {
		m := NewMerger()
		if err := m.Read("a.jsonl", bytes.NewReader(base)); err != nil {
			t.Fatal(err)
		}
		err := m.Read("b.jsonl", bytes.NewReader(other))
		if !errors.Is(err, ErrShardMismatch) || !strings.Contains(err.Error(), "b.jsonl") {
			t.Errorf("%s: %v", name, err)
		}
	}
	m := NewMerger()
	if err := m.Read("a.jsonl", bytes.NewReader(base)); err != nil {
		t.Fatal(err)
	}
	if err := m.Read("b.jsonl", bytes.NewReader(header(1, 10, "1/2", Config{}, "c2"))); err != nil {
		t.Fatalf("a different commit is a warning: %v", err)
	}
	res := m.Result()
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "b.jsonl ran on commit c2, the first shard on c1") {
		t.Fatalf("warnings %q", res.Warnings)
	}
	var b bytes.Buffer
	res.Write(&b)
	if !strings.Contains(b.String(), "warning: b.jsonl ran on commit c2") {
		t.Fatalf("merge output:\n%s", b.String())
	}
}

func TestMergeTruncatedLastLineCountsItsSeedMissing(t *testing.T) {
	var in bytes.Buffer
	in.Write(header(1, 3, "0/1", Config{}, ""))
	for _, s := range []uint64{1, 2, 3} {
		in.Write(MarshalLine(SeedReport{Seed: s, Fingerprint: "f", Lin: LinReport{Result: LinOk}}))
		in.WriteByte('\n')
	}
	cut := in.Bytes()[:in.Len()-20] // the last line loses its end
	m := NewMerger()
	if err := m.Read("s.jsonl", bytes.NewReader(cut)); err != nil {
		t.Fatalf("a truncated last line must not abort the merge: %v", err)
	}
	res := m.Result()
	if len(res.Missing) != 1 || res.Missing[0] != 3 || res.Err() == nil {
		t.Fatalf("missing %v err %v", res.Missing, res.Err())
	}
	var b bytes.Buffer
	res.Write(&b)
	for _, want := range []string{"s.jsonl:4: truncated last line ignored", "1 seeds missing: 3\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("merge output lacks %q:\n%s", want, b.String())
		}
	}
}

func TestMergeSummarisesManyMissingSeeds(t *testing.T) {
	var in bytes.Buffer
	in.Write(header(1, 100, "0/1", Config{}, ""))
	for s := uint64(1); s <= 100; s += 3 {
		in.Write(MarshalLine(SeedReport{Seed: s, Fingerprint: "f", Lin: LinReport{Result: LinOk}}))
		in.WriteByte('\n')
	}
	res := mergeOf(t, in.Bytes())
	var b bytes.Buffer
	res.Write(&b)
	want := fmt.Sprintf("%d seeds missing: 2..3 5..6 8..9 11..12 14..15 ... (first 10 of %d)\n", len(res.Missing), len(res.Missing))
	if !strings.Contains(b.String(), want) {
		t.Fatalf("merge output lacks %q:\n%s", want, b.String())
	}
}

// keeperRunner is an oddRunner that keeps the campaign run's trace.
type keeperRunner struct{ oddRunner }

func (k keeperRunner) RunKeepTrace(seed uint64) Outcome {
	opts := k.options()
	setup := opts.Setup
	opts.Setup = func(w *sim.World) { w.Note("odd"); setup(w) }
	opts.KeepTrace = true
	return Outcome{Result: sim.Run(seed, opts)}
}

func TestAuditNamesTheLineWhenTheCampaignRunIsOdd(t *testing.T) {
	run := RunSeed(keeperRunner{}, 100, SeedOptions{})
	a := run.Report.Audit
	if a == nil || !a.Diverged || a.Line < 1 || !strings.Contains(a.LineA, "odd") ||
		!strings.Contains(a.Detail, "campaign run differs from two agreeing traced reruns") {
		t.Fatalf("audit %+v", a)
	}
	if run.Outcome.Result.Trace != nil {
		t.Fatal("the campaign run's trace must not be held after the audit")
	}
}

// firstRerunOdd's first traced rerun differs from every other run.
type firstRerunOdd struct {
	toyRunner
	traces *int
}

func (f firstRerunOdd) RunKeepTrace(seed uint64) Outcome {
	o := f.options()
	o.KeepTrace = true
	return Outcome{Result: sim.Run(seed, o)}
}

func (f firstRerunOdd) Trace(seed uint64, s *sim.Schedule) sim.Result {
	*f.traces++
	o := f.options()
	o.KeepTrace = true
	if *f.traces == 1 {
		setup := o.Setup
		o.Setup = func(w *sim.World) { w.Note("odd rerun"); setup(w) }
	}
	return sim.Run(seed, o)
}

func TestAuditNamesTheLineWhenTheFirstRerunIsOdd(t *testing.T) {
	n := 0
	a := RunSeed(firstRerunOdd{traces: &n}, 50, SeedOptions{}).Report.Audit
	if a == nil || !a.Diverged || a.Line < 1 || !strings.Contains(a.LineB, "odd rerun") ||
		!strings.Contains(a.Detail, "first traced rerun differs") {
		t.Fatalf("audit %+v", a)
	}
}

// flakyRunner fails a check on its campaign run that its replays do not.
type flakyRunner struct {
	toyRunner
	panicShrink bool
}

func (f flakyRunner) Run(seed uint64) Outcome {
	o := f.toyRunner.Run(seed)
	o.Result.Violations = append(o.Result.Violations, sim.Violation{Check: "flaky", Message: "once"})
	o.Derived = map[string]int{"devices": 2}
	return o
}

func (f flakyRunner) Replay(s sim.Schedule) Outcome {
	o := f.toyRunner.Replay(s)
	if f.panicShrink {
		o.Result.Violations = append(o.Result.Violations, sim.Violation{Check: "flaky", Message: "again"})
	}
	return o
}

func (f flakyRunner) Shrink(o Outcome) sim.ShrinkResult {
	if f.panicShrink {
		panic("shrunk schedule no longer fails")
	}
	return f.toyRunner.Shrink(o)
}

func TestBundleSkipsAShrinkThatDoesNotReproduce(t *testing.T) {
	for _, tc := range []struct {
		r    flakyRunner
		want string
	}{
		{flakyRunner{}, "shrink skipped: the replay of the failing schedule failed no check, not flaky"},
		{flakyRunner{panicShrink: true}, "shrink skipped: the shrinker panicked: shrunk schedule no longer fails"},
	} {
		run := RunSeed(tc.r, 4, SeedOptions{AuditEvery: -1})
		files := Bundle(tc.r, run, BundleOptions{Dir: "out/seed-4"})
		got := bundleFiles(files)
		if _, ok := got["shrunk.json"]; ok || !strings.HasPrefix(got["shrink.txt"], tc.want) {
			t.Errorf("shrink.txt %q, want %q", got["shrink.txt"], tc.want)
		}
		if BundleShrinkNote(files) != strings.TrimSpace(got["shrink.txt"]) || strings.Contains(got["replay.txt"], "shrunk.json") {
			t.Errorf("note %q replay %q", BundleShrinkNote(files), got["replay.txt"])
		}
		if !strings.Contains(got["options.json"], "\"derived\": {\n    \"devices\": 2") {
			t.Errorf("options.json lacks the derived section:\n%s", got["options.json"])
		}
		if _, err := ParseCase([]byte(got["options.json"])); err != nil {
			t.Errorf("options.json must stay a readable case: %v", err)
		}
	}
}
