package campaign

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/sim"
)

// shardOutput runs one shard of the toy campaign and returns its JSON lines
// (header first) and the shard's summary.
func shardOutput(r Runner, p Plan) ([]byte, *Summary) {
	var b bytes.Buffer
	b.Write(MarshalLine(NewHeader(p, Config{}, "")))
	b.WriteByte('\n')
	s := RunPlan(r, p, SeedOptions{}, func(run SeedRun) {
		b.Write(MarshalLine(run.Report))
		b.WriteByte('\n')
	})
	return b.Bytes(), s
}

func mergeOf(t *testing.T, files ...[]byte) MergeResult {
	t.Helper()
	m := NewMerger()
	for i, f := range files {
		if err := m.Read(fmt.Sprintf("shard-%d.jsonl", i), bytes.NewReader(f)); err != nil {
			t.Fatal(err)
		}
	}
	return m.Result()
}

func TestMergeOfShardsEqualsWholeCampaign(t *testing.T) {
	r := toyRunner{bug: true}
	_, whole := shardOutput(r, Plan{First: 1, Count: 40, Shard: Whole})
	var files [][]byte
	for i := 2; i >= 0; i-- { // any file order
		out, _ := shardOutput(r, Plan{First: 1, Count: 40, Shard: Shard{i, 3}})
		files = append(files, out)
	}
	res := mergeOf(t, files...)
	if len(res.Missing) != 0 || len(res.Duplicates) != 0 || len(res.Conflicts) != 0 || len(res.Headers) != 3 {
		t.Fatalf("merge %+v", res)
	}
	if got, want := summaryText(res.Summary), summaryText(whole); got != want {
		t.Fatalf("merged summary differs:\n%s\nwhole:\n%s", got, want)
	}
	if (res.Err() == nil) != (whole.Err() == nil) || res.Err() == nil {
		t.Fatalf("verdicts differ: %v vs %v", res.Err(), whole.Err())
	}
}

func TestMergeReportsMissingAndDuplicateSeeds(t *testing.T) {
	r := toyRunner{}
	s0, _ := shardOutput(r, Plan{First: 10, Count: 12, Shard: Shard{0, 3}})
	s2, _ := shardOutput(r, Plan{First: 10, Count: 12, Shard: Shard{2, 3}})
	res := mergeOf(t, s0, s2, s2)
	if want := []uint64{11, 14, 17, 20}; !slices.Equal(res.Missing, want) {
		t.Fatalf("missing %v, want %v", res.Missing, want)
	}
	if want := []uint64{12, 15, 18, 21}; !slices.Equal(res.Duplicates, want) {
		t.Fatalf("duplicates %v, want %v", res.Duplicates, want)
	}
	if res.Summary.Seeds != 8 || res.Err() == nil || !strings.Contains(res.Err().Error(), "4 planned seeds missing") {
		t.Fatalf("seeds %d err %v", res.Summary.Seeds, res.Err())
	}
	var b bytes.Buffer
	res.Write(&b)
	for _, want := range []string{"merged 3 shard headers, 8 seeds", "4 seeds missing: shard 1/3 absent?",
		"duplicate seeds (identical, counted once): 4: 12 15 18 21", "FAIL: "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("merge output lacks %q:\n%s", want, b.String())
		}
	}
}

func TestMergeWithoutHeadersUsesSeenRange(t *testing.T) {
	var b bytes.Buffer
	for _, s := range []uint64{3, 4, 7} {
		b.Write(MarshalLine(SeedReport{Seed: s, Fingerprint: "f", Lin: LinReport{Result: LinOk}}))
		b.WriteString("\n\n")
	}
	res := mergeOf(t, b.Bytes())
	if !slices.Equal(res.Missing, []uint64{5, 6}) || res.Summary.Seeds != 3 {
		t.Fatalf("%+v", res)
	}
}

func TestMergeConflictingFingerprints(t *testing.T) {
	a := MarshalLine(SeedReport{Seed: 1, Fingerprint: "aa", Lin: LinReport{Result: LinOk}})
	b := MarshalLine(SeedReport{Seed: 1, Fingerprint: "bb", Lin: LinReport{Result: LinOk}})
	res := mergeOf(t, a, b)
	if !slices.Equal(res.Conflicts, []uint64{1}) || !errors.Is(res.Err(), ErrMergeConflict) {
		t.Fatalf("%+v %v", res, res.Err())
	}
}

func TestMergeBadLine(t *testing.T) {
	m := NewMerger()
	in := string(MarshalLine(SeedReport{Seed: 1})) + "\nnot json\n" + string(MarshalLine(SeedReport{Seed: 2})) + "\n"
	err := m.Read("x.jsonl", strings.NewReader(in))
	if err == nil || !strings.HasPrefix(err.Error(), "x.jsonl:2: ") {
		t.Fatalf("error %v", err)
	}
}

func TestRanges(t *testing.T) {
	if got := Ranges([]uint64{1, 2, 3, 5, 7, 8}); got != "1..3 5 7..8" {
		t.Fatalf("%q", got)
	}
	if got := Ranges(nil); got != "" {
		t.Fatalf("%q", got)
	}
}

func TestOrdererReturnsResultsInIndexOrder(t *testing.T) {
	o := NewOrderer[int]()
	var got []int
	for _, i := range []int{3, 1, 0, 2, 6, 4, 5} {
		got = append(got, o.Put(i, i*10)...)
		if i == 3 && len(got) != 0 {
			t.Fatal("index 3 must wait for 0..2")
		}
	}
	if !slices.Equal(got, []int{0, 10, 20, 30, 40, 50, 60}) || o.Waiting() != 0 {
		t.Fatalf("got %v waiting %d", got, o.Waiting())
	}
}

// budgetedShard is a time-budgeted shard that ran only its first n seeds
// of a huge planned range.
func budgetedShard(r Runner, shard Shard, budget string, n int) []byte {
	p := Plan{First: 1000, Count: 1 << 40, Shard: shard}
	var b bytes.Buffer
	h := NewHeader(p, Config{}, "")
	h.Budget = budget
	b.Write(MarshalLine(h))
	b.WriteByte('\n')
	for i := range n {
		b.Write(MarshalLine(RunSeed(r, p.Nth(i), SeedOptions{}).Report))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func TestMergeOfTimeBudgetedShardsCountsNoSeedMissing(t *testing.T) {
	r := toyRunner{}
	res := mergeOf(t, budgetedShard(r, Shard{0, 2}, "10m0s", 3), budgetedShard(r, Shard{1, 2}, "10m0s", 5))
	if len(res.Missing) != 0 || res.Summary.Seeds != 8 || res.Err() != nil {
		t.Fatalf("budgeted shards run as many seeds as their budget allows: missing %d, seeds %d, err %v",
			len(res.Missing), res.Summary.Seeds, res.Err())
	}
}

func TestMergeRefusesShardsWithDifferentBudgets(t *testing.T) {
	m := NewMerger()
	if err := m.Read("a.jsonl", bytes.NewReader(budgetedShard(toyRunner{}, Shard{0, 2}, "10m0s", 1))); err != nil {
		t.Fatal(err)
	}
	err := m.Read("b.jsonl", bytes.NewReader(budgetedShard(toyRunner{}, Shard{1, 2}, "5m0s", 1)))
	if !errors.Is(err, ErrShardMismatch) || !strings.Contains(err.Error(), `time budget "5m0s"`) {
		t.Fatalf("shards of different budgets are different campaigns: %v", err)
	}
}

func header(first uint64, seeds int, shard string, cfg Config, commit string) []byte {
	sh, _ := ParseShard(shard)
	h := NewHeader(Plan{First: first, Count: seeds, Shard: sh}, cfg, commit)
	return append(MarshalLine(h), '\n')
}

// Regression: shards of different campaigns (faults, devices, turns, seed
// range) were merged as one; they are refused, and a different commit is
// only a warning.
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

// Regression: a truncated last line (a shard cut off mid-write) aborted the
// merge; it is ignored and its seed counts as missing.
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

// Many missing seeds are summarised as their first ten ranges.
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
