package campaign

import (
	"errors"
	"slices"
	"testing"
)

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Shard
		err  error
	}{
		{"0/1", Shard{0, 1}, nil},
		{"3/8", Shard{3, 8}, nil},
		{" 7/8 ", Shard{7, 8}, nil},
		{"8/8", Shard{}, ErrShardRange},
		{"0/0", Shard{}, ErrShardRange},
		{"-1/4", Shard{}, ErrShardRange},
		{"3", Shard{}, ErrShardSyntax},
		{"a/4", Shard{}, ErrShardSyntax},
		{"1/b", Shard{}, ErrShardSyntax},
		{"", Shard{}, ErrShardSyntax},
	} {
		got, err := ParseShard(tc.in)
		if !errors.Is(err, tc.err) || got != tc.want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v, %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestPlanShardsPartitionTheSeeds(t *testing.T) {
	const n = 7
	whole := Plan{First: 100, Count: 53, Shard: Whole}
	var union []uint64
	for i := 0; i < n; i++ {
		p := Plan{First: whole.First, Count: whole.Count, Shard: Shard{i, n}}
		seeds := p.Seeds()
		if !slices.IsSorted(seeds) {
			t.Fatalf("shard %d seeds not ascending: %v", i, seeds)
		}
		for _, s := range seeds {
			if int(s-whole.First)%n != i || !p.Owns(s) {
				t.Fatalf("seed %d (index %d) in shard %d/%d", s, s-whole.First, i, n)
			}
		}
		union = append(union, seeds...)
	}
	slices.Sort(union)
	if !slices.Equal(union, whole.Seeds()) {
		t.Fatalf("shards do not partition the campaign: %v", union)
	}
	if got := whole.Seeds(); len(got) != 53 || got[0] != 100 || got[52] != 152 || whole.Last() != 152 {
		t.Fatalf("whole plan seeds %v", got)
	}
}

func TestPlanMoreShardsThanSeeds(t *testing.T) {
	p := Plan{First: 1, Count: 2, Shard: Shard{5, 8}}
	if got := p.Seeds(); len(got) != 0 {
		t.Fatalf("shard 5/8 of 2 seeds should be empty, got %v", got)
	}
	if (Plan{First: 1, Count: 2, Shard: Shard{1, 8}}).Seeds()[0] != 2 {
		t.Fatal("shard 1/8 of 2 seeds should hold seed 2")
	}
}

func TestPlanValidate(t *testing.T) {
	if err := (Plan{First: 1, Count: 0, Shard: Whole}).Validate(); !errors.Is(err, ErrSeedCount) {
		t.Fatalf("zero seeds: %v", err)
	}
	if err := (Plan{First: 1, Count: 5, Shard: Shard{2, 2}}).Validate(); !errors.Is(err, ErrShardRange) {
		t.Fatalf("bad shard: %v", err)
	}
	if s := (Plan{First: 1, Count: 1000, Shard: Shard{2, 4}}).String(); s != "seeds 1..1000 (1000), shard 2/4" {
		t.Fatalf("plan string %q", s)
	}
}

func TestPlanNthAgreesWithSeeds(t *testing.T) {
	for _, p := range []Plan{
		{First: 100, Count: 53, Shard: Whole},
		{First: 100, Count: 53, Shard: Shard{3, 7}},
		{First: 1, Count: 2, Shard: Shard{5, 8}},
		{First: 9, Count: 8, Shard: Shard{7, 8}},
	} {
		seeds := p.Seeds()
		if p.Len() != len(seeds) {
			t.Fatalf("%v: Len %d, Seeds has %d", p, p.Len(), len(seeds))
		}
		for i, s := range seeds {
			if got := p.Nth(i); got != s {
				t.Fatalf("%v: Nth(%d) = %d, Seeds says %d", p, i, got, s)
			}
		}
	}
	huge := Plan{First: 1 << 62, Count: 1 << 40, Shard: Shard{2, 4}}
	if huge.Len() != 1<<38 || huge.Nth(1) != 1<<62+6 {
		t.Fatalf("a budgeted plan's seeds are computed, not listed: Len %d Nth(1) %d", huge.Len(), huge.Nth(1))
	}
}
