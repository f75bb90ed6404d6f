package campaign

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Flag errors. Each is wrapped with the offending value.
var (
	ErrShardSyntax = errors.New("shard must be i/n")
	ErrShardRange  = errors.New("shard index out of range")
	ErrSeedCount   = errors.New("seed count must be at least 1")
	ErrFaultKind   = errors.New("unknown fault kind")
)

// Shard selects one of N interleaved slices of a campaign.
type Shard struct {
	Index int
	Count int
}

// Whole is the trivial sharding: one shard holding every seed.
var Whole = Shard{Index: 0, Count: 1}

// ParseShard reads "i/n" with 0 <= i < n.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return Shard{}, fmt.Errorf("%w: %q", ErrShardSyntax, s)
	}
	i, errI := strconv.Atoi(a)
	n, errN := strconv.Atoi(b)
	if errI != nil || errN != nil {
		return Shard{}, fmt.Errorf("%w: %q", ErrShardSyntax, s)
	}
	sh := Shard{Index: i, Count: n}
	if err := sh.Validate(); err != nil {
		return Shard{}, err
	}
	return sh, nil
}

// Validate checks n >= 1 and 0 <= i < n.
func (s Shard) Validate() error {
	if s.Count < 1 || s.Index < 0 || s.Index >= s.Count {
		return fmt.Errorf("%w: %d/%d needs 0 <= i < n and n >= 1", ErrShardRange, s.Index, s.Count)
	}
	return nil
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Plan is the seed range of a campaign and the shard this process runs.
type Plan struct {
	First uint64 // first seed of the whole campaign
	Count int    // seeds in the whole campaign
	Shard Shard
}

// Validate checks the plan's count and shard.
func (p Plan) Validate() error {
	if p.Count < 1 {
		return fmt.Errorf("%w: %d", ErrSeedCount, p.Count)
	}
	return p.Shard.Validate()
}

// Last returns the last seed of the whole campaign.
func (p Plan) Last() uint64 { return p.First + uint64(p.Count) - 1 }

// Seeds lists the seeds of this shard in ascending order: campaign seed
// index k (seed First+k) belongs to shard k mod Shard.Count.
func (p Plan) Seeds() []uint64 {
	assert.That(p.Validate() == nil, "plan must be valid")
	var out []uint64
	for k := p.Shard.Index; k < p.Count; k += p.Shard.Count {
		out = append(out, p.First+uint64(k))
	}
	return out
}

// Len returns how many seeds this shard of the campaign has.
func (p Plan) Len() int {
	assert.That(p.Validate() == nil, "plan must be valid")
	if p.Shard.Index >= p.Count {
		return 0
	}
	return (p.Count-p.Shard.Index-1)/p.Shard.Count + 1
}

// Nth returns this shard's i-th seed (0 ≤ i < Len), without listing the
// ones before it: a time-budgeted campaign plans far more seeds than it
// runs.
func (p Plan) Nth(i int) uint64 {
	assert.That(i >= 0 && i < p.Len(), "seed index out of the shard")
	return p.First + uint64(p.Shard.Index) + uint64(i)*uint64(p.Shard.Count)
}

// Owns reports whether seed belongs to this shard of the campaign.
func (p Plan) Owns(seed uint64) bool {
	if seed < p.First || seed > p.Last() {
		return false
	}
	return int((seed-p.First)%uint64(p.Shard.Count)) == p.Shard.Index
}

// String renders the plan for the start of a campaign.
func (p Plan) String() string {
	return fmt.Sprintf("seeds %d..%d (%d), shard %s", p.First, p.Last(), p.Count, p.Shard)
}
