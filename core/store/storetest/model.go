package storetest

import (
	"cmp"
	"maps"
	"slices"

	"github.com/turnstile-sim/turnstile/core"
)

// model is the suite's own statement of what a store holds after a
// sequence of writes, written from core.Store's contract: records by ID,
// listed by Seq (ties in first-write order), inputs by 1-based index,
// events by sequence.
type model struct {
	counters core.Counters
	sessions map[string]entry[core.SessionRecord]
	turns    map[string]entry[core.TurnRecord]
	inputs   map[string][]core.InputRecord
	events   map[string][]core.RunEvent
	born     int // first-write counter for listing ties
	// Suspension and preparation records (environment_records.go).
	suspensions  map[string]entry[core.SuspensionRecord]
	preparations map[string]entry[core.EnvironmentPreparationRecord]
}

type entry[R any] struct {
	rec  R
	seq  uint64
	born int
}

func newModel() *model {
	return &model{
		sessions:     map[string]entry[core.SessionRecord]{},
		turns:        map[string]entry[core.TurnRecord]{},
		inputs:       map[string][]core.InputRecord{},
		events:       map[string][]core.RunEvent{},
		suspensions:  map[string]entry[core.SuspensionRecord]{},
		preparations: map[string]entry[core.EnvironmentPreparationRecord]{},
	}
}

func (m *model) clone() *model {
	c := &model{
		counters:     m.counters,
		sessions:     maps.Clone(m.sessions),
		turns:        maps.Clone(m.turns),
		inputs:       map[string][]core.InputRecord{},
		events:       map[string][]core.RunEvent{},
		born:         m.born,
		suspensions:  maps.Clone(m.suspensions),
		preparations: clonePreparations(m.preparations),
	}
	for _, k := range slices.Sorted(maps.Keys(m.inputs)) {
		c.inputs[k] = slices.Clone(m.inputs[k])
	}
	for _, k := range slices.Sorted(maps.Keys(m.events)) {
		c.events[k] = slices.Clone(m.events[k])
	}
	return c
}

func put[R any](tbl map[string]entry[R], m *model, id string, seq uint64, r R) {
	e, ok := tbl[id]
	if !ok {
		m.born++
		e = entry[R]{seq: seq, born: m.born}
	}
	e.rec = r
	tbl[id] = e
}

func (m *model) putSession(r core.SessionRecord) { put(m.sessions, m, r.ID, r.Seq, r) }
func (m *model) putTurn(r core.TurnRecord)       { put(m.turns, m, r.ID, r.Seq, r) }

// inputFits reports whether index i may be written to turn: an existing
// index is replaced, the next one appended, anything else refused.
func (m *model) inputFits(turn string, i int) bool { return i >= 1 && i <= len(m.inputs[turn])+1 }

func (m *model) putInput(turn string, in core.InputRecord) {
	list := m.inputs[turn]
	if in.Index <= len(list) {
		list[in.Index-1] = in
		return
	}
	m.inputs[turn] = append(list, in)
}

func (m *model) nextEvent(turn string) uint64 { return uint64(len(m.events[turn])) + 1 }

func (m *model) appendEvent(turn string, ev core.RunEvent) {
	m.events[turn] = append(m.events[turn], ev)
}

func listed[R any](tbl map[string]entry[R]) []R {
	es := slices.SortedFunc(maps.Values(tbl), func(a, b entry[R]) int {
		return cmp.Or(cmp.Compare(a.seq, b.seq), cmp.Compare(a.born, b.born))
	})
	out := make([]R, len(es))
	for i, e := range es {
		out[i] = e.rec
	}
	return out
}

// keys lists every turn key the model has inputs or events for, plus its
// Turn IDs, sorted.
func (m *model) keys() []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m.inputs)) {
		out = append(out, k)
	}
	for _, k := range slices.Sorted(maps.Keys(m.events)) {
		out = append(out, k)
	}
	for _, k := range slices.Sorted(maps.Keys(m.turns)) {
		out = append(out, k)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// snapshot is everything a store shows through core.Store's reads.
type snapshot struct {
	Counters core.Counters
	Sessions []core.SessionRecord
	Turns    []core.TurnRecord
	Inputs   map[string][]core.InputRecord // only turns with inputs
	Events   map[string][]core.RunEvent    // only turns with events
}

func (m *model) snapshot() snapshot {
	s := snapshot{Counters: m.counters, Sessions: listed(m.sessions), Turns: listed(m.turns),
		Inputs: map[string][]core.InputRecord{}, Events: map[string][]core.RunEvent{}}
	for _, k := range m.keys() {
		if l := m.inputs[k]; len(l) > 0 {
			s.Inputs[k] = l
		}
		if l := m.events[k]; len(l) > 0 {
			s.Events[k] = l
		}
	}
	return s
}

// read takes a snapshot of st over the given turn keys.
func read(st core.Store, keys []string) snapshot {
	s := snapshot{Counters: st.Counters(), Sessions: st.Sessions(), Turns: st.Turns(),
		Inputs: map[string][]core.InputRecord{}, Events: map[string][]core.RunEvent{}}
	for _, r := range s.Turns {
		keys = append(keys, r.ID)
	}
	slices.Sort(keys)
	for _, k := range slices.Compact(keys) {
		if l := st.Inputs(k); len(l) > 0 {
			s.Inputs[k] = l
		}
		if l := st.Events(k); len(l) > 0 {
			s.Events[k] = l
		}
	}
	return s
}
