package store

import (
	"slices"

	"github.com/turnstile-sim/turnstile/core"
)

// Memory is an in-memory core.Store. It is not safe for concurrent use;
// the machine calls it from Step only.
type Memory struct {
	counters core.Counters
	sessions map[string]core.SessionRecord
	turns    map[string]core.TurnRecord
	inputs   map[string][]core.InputRecord
	events   map[string][]core.RunEvent
	// order of creation (Seq order) for listings.
	sessionIDs []string
	turnIDs    []string
	writes     uint64
}

var _ core.Store = (*Memory)(nil)

// NewMemory returns an empty store.
func NewMemory() *Memory {
	return &Memory{
		sessions: map[string]core.SessionRecord{},
		turns:    map[string]core.TurnRecord{},
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
	if _, ok := s.sessions[r.ID]; !ok {
		s.sessionIDs = append(s.sessionIDs, r.ID)
		sortBy(s.sessionIDs, func(id string) uint64 { return s.sessions[id].Seq }, r.ID, r.Seq)
	}
	s.sessions[r.ID] = r
}

func (s *Memory) Session(id string) (core.SessionRecord, bool) {
	r, ok := s.sessions[id]
	return r, ok
}

func (s *Memory) Sessions() []core.SessionRecord {
	out := make([]core.SessionRecord, len(s.sessionIDs))
	for i, id := range s.sessionIDs {
		out[i] = s.sessions[id]
	}
	return out
}

func (s *Memory) PutTurn(r core.TurnRecord) {
	s.writes++
	if _, ok := s.turns[r.ID]; !ok {
		s.turnIDs = append(s.turnIDs, r.ID)
		sortBy(s.turnIDs, func(id string) uint64 { return s.turns[id].Seq }, r.ID, r.Seq)
	}
	s.turns[r.ID] = r
}

func (s *Memory) Turn(id string) (core.TurnRecord, bool) {
	r, ok := s.turns[id]
	return r, ok
}

func (s *Memory) Turns() []core.TurnRecord {
	out := make([]core.TurnRecord, len(s.turnIDs))
	for i, id := range s.turnIDs {
		out[i] = s.turns[id]
	}
	return out
}

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

func (s *Memory) AppendEvent(turn string, ev core.RunEvent) {
	s.writes++
	list := s.events[turn]
	if ev.Seq != uint64(len(list))+1 {
		panic("store: event sequence gap")
	}
	s.events[turn] = append(list, ev)
}

func (s *Memory) Events(turn string) []core.RunEvent { return slices.Clone(s.events[turn]) }

// sortBy keeps ids ordered by sequence after appending newID (whose record
// is not yet in the map, hence newSeq).
func sortBy(ids []string, seq func(string) uint64, newID string, newSeq uint64) {
	if n := len(ids); n < 2 || seq(ids[n-2]) <= newSeq {
		return
	}
	key := func(id string) uint64 {
		if id == newID {
			return newSeq
		}
		return seq(id)
	}
	slices.SortStableFunc(ids, func(a, b string) int {
		ka, kb := key(a), key(b)
		switch {
		case ka < kb:
			return -1
		case ka > kb:
			return 1
		}
		return 0
	})
}
