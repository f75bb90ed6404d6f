package linearize

import (
	"cmp"
	"maps"
	"slices"

	"github.com/anishathalye/porcupine"
)

// Partitions collects a history's operations of Model by partition key.
type Partitions map[string][]porcupine.Operation

// Add appends the operation of in, called at call, returning out at ret,
// to its partition in.Part.
func (p Partitions) Add(in Input, call, ret int64, out any) {
	p[in.Part] = append(p[in.Part], porcupine.Operation{Input: in, Call: call, Output: out, Return: ret})
}

// Ops lists the operations partition by partition, sorted by key, each
// partition's in the order added. ClientId is a visualization lane: the
// lowest lane free at the operation's call within its partition.
func (p Partitions) Ops() []porcupine.Operation {
	var ops []porcupine.Operation
	for _, key := range slices.Sorted(maps.Keys(p)) {
		ops = append(ops, assignLanes(p[key])...)
	}
	return ops
}

// assignLanes gives each operation the lowest visualization lane whose
// previous operation returned before this one was called.
func assignLanes(ops []porcupine.Operation) []porcupine.Operation {
	order := make([]int, len(ops))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ops[a].Call, ops[b].Call) })
	var laneEnd []int64
	for _, i := range order {
		lane := slices.IndexFunc(laneEnd, func(end int64) bool { return end < ops[i].Call })
		if lane < 0 {
			lane = len(laneEnd)
			laneEnd = append(laneEnd, 0)
		}
		laneEnd[lane] = ops[i].Return
		ops[i].ClientId = lane
	}
	return ops
}
