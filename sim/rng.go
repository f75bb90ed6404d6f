package sim

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
)

// StreamSeed derives the two PCG seed words of the named random stream from
// the run seed. Each component (network, faults, swarm, workload, every node
// and service) draws from its own stream, so adding a component or drawing more
// in one component never shifts the draws of another.
func StreamSeed(seed uint64, name string) (uint64, uint64) {
	var prefix [8]byte
	binary.LittleEndian.PutUint64(prefix[:], seed)
	h := sha256.New()
	h.Write(prefix[:])
	h.Write([]byte(name))
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return binary.LittleEndian.Uint64(sum[0:8]), binary.LittleEndian.Uint64(sum[8:16])
}

// NewStream returns a fresh PCG-backed generator for the named stream.
func NewStream(seed uint64, name string) *rand.Rand {
	a, b := StreamSeed(seed, name)
	return rand.New(rand.NewPCG(a, b))
}

// Ratio is a probability as an integer fraction Num/Den. Decisions never use
// floating point, so a run replays identically on every platform.
type Ratio struct {
	Num uint64 `json:"num"`
	Den uint64 `json:"den"`
}

// Chance draws one decision: true with probability Num/Den. A zero Ratio
// (Den == 0) is treated as "never".
func (q Ratio) Chance(r *rand.Rand) bool {
	if q.Den == 0 || q.Num == 0 {
		return false
	}
	assert.That(q.Num <= q.Den, "ratio %d/%d above one", q.Num, q.Den)
	return r.Uint64N(q.Den) < q.Num
}

// String renders the ratio as "num/den".
func (q Ratio) String() string { return fmt.Sprintf("%d/%d", q.Num, q.Den) }

// durationIn draws a duration uniformly from [lo, hi].
func durationIn(r *rand.Rand, lo, hi int64) int64 {
	if lo > hi {
		assert.Failf("empty duration range [%d, %d]", lo, hi)
	}
	if lo == hi {
		return lo
	}
	return lo + r.Int64N(hi-lo+1)
}
