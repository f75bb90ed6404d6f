package sim

import (
	"encoding/binary"
	"maps"
	"math/rand/v2"
	"slices"
)

// Draws are byte strings that replace the first draws of named random
// streams. A coverage-guided fuzzer hands the world bytes this way: each
// draw of a stream listed here takes the next eight bytes (fewer, zero
// padded, at the end), and once they run out the stream continues from its
// usual seeded source. A run with draws is replayable like any other: the
// schedule records them (Schedule.Draws).
type Draws map[string][]byte

func (d Draws) clone() Draws {
	if d == nil {
		return nil
	}
	out := make(Draws, len(d))
	for _, k := range slices.Sorted(maps.Keys(d)) {
		out[k] = slices.Clone(d[k])
	}
	return out
}

// drawSource serves a stream's draws from bytes, then from its PCG source.
type drawSource struct {
	bytes []byte
	rest  *rand.PCG
}

func (s *drawSource) Uint64() uint64 {
	if len(s.bytes) == 0 {
		return s.rest.Uint64()
	}
	var b [8]byte
	n := copy(b[:], s.bytes)
	s.bytes = s.bytes[n:]
	return binary.LittleEndian.Uint64(b[:])
}

// newDrawStream is NewStream whose first draws come from bytes.
func newDrawStream(seed uint64, name string, bytes []byte) *rand.Rand {
	a, b := StreamSeed(seed, name)
	return rand.New(&drawSource{bytes: bytes, rest: rand.NewPCG(a, b)})
}
