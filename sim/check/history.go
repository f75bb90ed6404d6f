package check

import (
	"cmp"
	"slices"

	"github.com/anishathalye/porcupine"
)

// History builds the porcupine operations from the ledger:
//
//   - one partition "turn <session>/<turn>" per read turn: its reads, plus a
//     truth operation per native settlement of the turn's runs, open from
//     the settlement to the horizon (or, if no run became a native turn, a
//     "none" truth open over the whole history);
//   - one partition "inputs <session>/<turn>" per steered turn: its steers
//     (unknown outcomes open until the horizon) and an end operation at the
//     horizon that requires every applied, steered input to be claimed.
//
// The horizon is one nanosecond after the latest recorded instant.
// Partitions are emitted sorted by key; within a partition operations keep
// record order. ClientId is a visualization lane: the lowest lane free at
// the operation's call.
func (l *Ledger) History() []porcupine.Operation {
	horizon := l.horizon()
	return slices.Concat(l.turnOps(horizon), l.inputOps(horizon), l.fileOps(horizon))
}

func (l *Ledger) horizon() int64 {
	var h int64
	for _, r := range l.api.reads {
		h = max(h, r.Call, r.Return)
	}
	for _, s := range l.api.steers {
		h = max(h, s.Call, s.Return)
	}
	for _, run := range sortedKeys(l.harness.turns) {
		h = max(h, l.harness.turns[run].settledAt)
	}
	return h + 1
}

// partKey names a partition; the session defaults to the one the turn was
// submitted in.
func (l *Ledger) partKey(family, session, turn string) string {
	if t := l.core.turns[turn]; session == "" && t != nil {
		session = t.session
	}
	return family + " " + session + "/" + turn
}

// partitions collects a family's operations by partition key.
type partitions map[string][]porcupine.Operation

// add appends the operation of in, called at call, returning out at ret,
// to its partition.
func (p partitions) add(in linInput, call, ret int64, out any) {
	p[in.part] = append(p[in.part], porcupine.Operation{Input: in, Call: call, Output: out, Return: ret})
}

// ops lists the partitions sorted by key, each with its lanes assigned.
func (p partitions) ops() []porcupine.Operation {
	var ops []porcupine.Operation
	for _, key := range sortedKeys(p) {
		ops = append(ops, assignLanes(p[key])...)
	}
	return ops
}

func (l *Ledger) turnOps(horizon int64) []porcupine.Operation {
	parts := partitions{}
	turnOf := map[string]string{}
	for _, r := range l.api.reads {
		key := l.partKey("turn", r.Session, r.Turn)
		turnOf[key] = r.Turn
		parts.add(linInput{kind: opRead, part: key, turn: r.Turn}, r.Call, r.Return, r.State)
	}
	for _, key := range sortedKeys(turnOf) {
		l.truthOps(parts, key, turnOf[key], horizon)
	}
	return parts.ops()
}

// truthOps adds to the partition key of turn its native settlements.
func (l *Ledger) truthOps(parts partitions, key, turn string, horizon int64) {
	native := false
	if t := l.core.turns[turn]; t != nil {
		for _, run := range t.runs {
			nt := l.harness.turns[run]
			if nt == nil {
				continue
			}
			native = true
			if nt.settled != "" {
				parts.add(linInput{kind: opTruth, part: key, turn: turn, truth: nt.settled}, nt.settledAt, horizon, nil)
			}
		}
	}
	if !native {
		parts.add(linInput{kind: opTruth, part: key, turn: turn, truth: "none"}, 0, horizon, nil)
	}
}

func (l *Ledger) inputOps(horizon int64) []porcupine.Operation {
	byPart := map[string][]Steer{}
	for _, s := range l.api.steers {
		key := l.partKey("inputs", s.Session, s.Turn)
		byPart[key] = append(byPart[key], s)
	}
	parts := partitions{}
	for key, steers := range byPart { //tidy:sorted each partition on its own, emitted sorted by parts.ops
		turn := steers[0].Turn
		log := l.steeredLog(turn, steers)
		for _, s := range steers {
			ret := s.Return
			if s.Outcome == InputUnknown {
				ret = horizon
			}
			parts.add(linInput{kind: opSteer, part: key, turn: turn, input: s.Input, log: log}, s.Call, ret, s.Outcome)
		}
		parts.add(linInput{kind: opEnd, part: key, turn: turn, log: log}, horizon, horizon, nil)
	}
	return parts.ops()
}

// steeredLog is the turn's native apply order restricted to inputs some
// steer named (initial inputs travel with execution_start, not steers).
func (l *Ledger) steeredLog(turn string, steers []Steer) []string {
	var log []string
	for _, a := range l.appliedForTurn(turn) {
		if slices.ContainsFunc(steers, func(s Steer) bool { return s.Input == a.input }) {
			log = append(log, a.input)
		}
	}
	return log
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
