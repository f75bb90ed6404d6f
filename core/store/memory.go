package store

import (
	"cmp"
	"slices"

	"github.com/turnstile-sim/turnstile/core"
)

// Memory is an in-memory core.Store. It is not safe for concurrent use;
// the machine calls it from Step only.
type Memory struct {
	counters core.Counters
	sessions table[core.SessionRecord]
	turns    table[core.TurnRecord]
	inputs   map[string][]core.InputRecord
	events   map[string][]core.RunEvent
	writes   uint64

	suspensions  table[core.SuspensionRecord]             // memory_suspension.go
	preparations table[core.EnvironmentPreparationRecord] // memory_preparation.go
}

var _ core.Store = (*Memory)(nil)

// NewMemory returns an empty store.
func NewMemory() *Memory {
	return &Memory{
		sessions: newTable(func(r core.SessionRecord) (string, uint64) { return r.ID, r.Seq }),
		turns:    newTable(func(r core.TurnRecord) (string, uint64) { return r.ID, r.Seq }),
		inputs:   map[string][]core.InputRecord{},
		events:   map[string][]core.RunEvent{},
	}
}

// Writes counts write calls; tests use it to prove that rejected input
// changed no durable state.
func (s *Memory) Writes() uint64 { return s.writes }

func (s *Memory) Counters() core.Counters { return s.counters }

func (s *Memory) SaveCounters(c core.Counters) {
	s.writes++
	s.counters = c
}

func (s *Memory) PutSession(r core.SessionRecord) {
	s.writes++
	s.sessions.put(r)
}

func (s *Memory) Session(id string) (core.SessionRecord, bool) { return s.sessions.get(id) }

func (s *Memory) Sessions() []core.SessionRecord { return s.sessions.list() }

func (s *Memory) PutTurn(r core.TurnRecord) {
	s.writes++
	s.turns.put(r)
}

func (s *Memory) Turn(id string) (core.TurnRecord, bool) { return s.turns.get(id) }

func (s *Memory) Turns() []core.TurnRecord { return s.turns.list() }

func (s *Memory) PutInput(turn string, in core.InputRecord) {
	s.writes++
	list := s.inputs[turn]
	if in.Index >= 1 && in.Index <= len(list) {
		list[in.Index-1] = in
		return
	}
	if in.Index != len(list)+1 {
		panic("store: input index out of sequence")
	}
	s.inputs[turn] = append(list, in)
}

func (s *Memory) Inputs(turn string) []core.InputRecord { return slices.Clone(s.inputs[turn]) }

// Input is input index (1-based) of turn, without copying the others.
func (s *Memory) Input(turn string, index int) (core.InputRecord, bool) {
	list := s.inputs[turn]
	if index < 1 || index > len(list) {
		return core.InputRecord{}, false
	}
	return list[index-1], true
}

func (s *Memory) AppendEvent(turn string, ev core.RunEvent) {
	s.writes++
	list := s.events[turn]
	if ev.Seq != uint64(len(list))+1 {
		panic("store: event sequence gap")
	}
	s.events[turn] = append(list, ev)
}

func (s *Memory) Events(turn string) []core.RunEvent { return slices.Clone(s.events[turn]) }

// EventsAfter returns a copy of turn's events with a sequence above seq
// (all of them for 0): a reader that has the first seq events reads only
// the rest.
func (s *Memory) EventsAfter(turn string, seq uint64) []core.RunEvent {
	list := s.events[turn]
	if seq >= uint64(len(list)) {
		return nil
	}
	return slices.Clone(list[seq:])
}

// table holds records by ID and lists them in creation (Seq) order.
type table[R any] struct {
	key   func(R) (id string, seq uint64)
	byID  map[string]R
	order []string
}

func newTable[R any](key func(R) (string, uint64)) table[R] {
	return table[R]{key: key, byID: map[string]R{}}
}

func (t *table[R]) get(id string) (R, bool) {
	r, ok := t.byID[id]
	return r, ok
}

// put stores r; a new ID joins the listing at its Seq position (records
// usually arrive in Seq order, so the sort is rare).
func (t *table[R]) put(r R) {
	id, seq := t.key(r)
	_, known := t.byID[id]
	t.byID[id] = r
	if known {
		return
	}
	t.order = append(t.order, id)
	if n := len(t.order); n < 2 || t.seqOf(t.order[n-2]) <= seq {
		return
	}
	slices.SortStableFunc(t.order, func(a, b string) int { return cmp.Compare(t.seqOf(a), t.seqOf(b)) })
}

func (t *table[R]) seqOf(id string) uint64 {
	_, seq := t.key(t.byID[id])
	return seq
}

func (t *table[R]) list() []R {
	out := make([]R, len(t.order))
	for i, id := range t.order {
		out[i] = t.byID[id]
	}
	return out
}
