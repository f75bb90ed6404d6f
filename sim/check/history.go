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
	if session == "" {
		if t := l.core.turns[turn]; t != nil {
			session = t.session
		}
	}
	return family + " " + session + "/" + turn
}

func (l *Ledger) turnOps(horizon int64) []porcupine.Operation {
	byPart := map[string][]porcupine.Operation{}
	turnOf := map[string]string{}
	for _, r := range l.api.reads {
		key := l.partKey("turn", r.Session, r.Turn)
		turnOf[key] = r.Turn
		byPart[key] = append(byPart[key], porcupine.Operation{
			Input:  linInput{kind: opRead, part: key, turn: r.Turn},
			Call:   r.Call,
			Output: r.State,
			Return: r.Return,
		})
	}
	var ops []porcupine.Operation
	for _, key := range sortedKeys(byPart) {
		part := append(byPart[key], l.truthOps(key, turnOf[key], horizon)...)
		ops = append(ops, assignLanes(part)...)
	}
	return ops
}

func (l *Ledger) truthOps(key, turn string, horizon int64) []porcupine.Operation {
	var ops []porcupine.Operation
	native := false
	if t := l.core.turns[turn]; t != nil {
		for _, run := range t.runs {
			nt := l.harness.turns[run]
			if nt == nil {
				continue
			}
			native = true
			if nt.settled != "" {
				ops = append(ops, porcupine.Operation{
					Input: linInput{kind: opTruth, part: key, turn: turn, truth: nt.settled},
					Call:  nt.settledAt, Return: horizon,
				})
			}
		}
	}
	if !native {
		ops = append(ops, porcupine.Operation{
			Input: linInput{kind: opTruth, part: key, turn: turn, truth: "none"},
			Call:  0, Return: horizon,
		})
	}
	return ops
}

func (l *Ledger) inputOps(horizon int64) []porcupine.Operation {
	byPart := map[string][]Steer{}
	for _, s := range l.api.steers {
		key := l.partKey("inputs", s.Session, s.Turn)
		byPart[key] = append(byPart[key], s)
	}
	var ops []porcupine.Operation
	for _, key := range sortedKeys(byPart) {
		steers := byPart[key]
		turn := steers[0].Turn
		log := l.steeredLog(turn, steers)
		part := make([]porcupine.Operation, 0, len(steers)+1)
		for _, s := range steers {
			ret := s.Return
			if s.Outcome == InputUnknown {
				ret = horizon
			}
			part = append(part, porcupine.Operation{
				Input:  linInput{kind: opSteer, part: key, turn: turn, input: s.Input, log: log},
				Call:   s.Call,
				Output: s.Outcome,
				Return: ret,
			})
		}
		part = append(part, porcupine.Operation{
			Input: linInput{kind: opEnd, part: key, turn: turn, log: log},
			Call:  horizon, Return: horizon,
		})
		ops = append(ops, assignLanes(part)...)
	}
	return ops
}

// steeredLog is the turn's native apply order restricted to inputs some
// steer named (initial inputs travel with execution_start, not steers).
func (l *Ledger) steeredLog(turn string, steers []Steer) []string {
	named := map[string]bool{}
	for _, s := range steers {
		named[s.Input] = true
	}
	var log []string
	for _, a := range l.appliedForTurn(turn) {
		if named[a.input] {
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
		lane := -1
		for j, end := range laneEnd {
			if end < ops[i].Call {
				lane = j
				break
			}
		}
		if lane < 0 {
			lane = len(laneEnd)
			laneEnd = append(laneEnd, 0)
		}
		laneEnd[lane] = ops[i].Return
		ops[i].ClientId = lane
	}
	return ops
}
