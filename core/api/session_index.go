package api

import (
	"slices"
	"strconv"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/server"
)

// turnIndex lists each Session's Turns without scanning every Turn: the
// machine mints Turn IDs "t-<n>" from a durable counter, so each call
// looks at the Turns minted since the last one only. It is read and
// written on the loop goroutine only (inside Query).
type turnIndex struct {
	scanned  uint64
	sessions map[string]*sessionTurns
}

// sessionTurns are a Session's Turn IDs in submission order; open is the
// position of its first Turn that may be unfinished (a terminal Turn
// never changes, so open only moves forward).
type sessionTurns struct {
	ids  []string
	pos  map[string]int // each ID's place in ids
	open int
}

func (x *turnIndex) of(v server.View, sid string) *sessionTurns {
	if x.sessions == nil {
		x.sessions = map[string]*sessionTurns{}
	}
	back := v.Backend()
	for n := x.scanned + 1; n <= back.Counters().Turns; n++ {
		id := "t-" + strconv.FormatUint(n, 10)
		if rec, ok := back.Turn(id); ok {
			st := x.sessions[rec.Session]
			if st == nil {
				st = &sessionTurns{pos: map[string]int{}}
				x.sessions[rec.Session] = st
			}
			st.pos[id] = len(st.ids)
			st.ids = append(st.ids, id)
		}
	}
	x.scanned = back.Counters().Turns
	st := x.sessions[sid]
	if st == nil {
		return &sessionTurns{}
	}
	for st.open < len(st.ids) {
		if rec, ok := back.Turn(st.ids[st.open]); ok && !rec.State.Terminal() {
			break
		}
		st.open++
	}
	return st
}

// Which Turns readSession reads.
const (
	turnsOpen = iota // from the first unfinished one (the last one at least)
	turnsAll
)

// readSession reads a Session's Turns on the loop (which: turnsOpen or
// turnsAll); ok is false for an unknown Session.
func (a *API) readSession(v server.View, sid string, which int) (sessionState, bool) {
	st, _, ok := a.readSessionIndex(v, sid, which, sessionState{})
	return st, ok
}

// readSessionIndex is readSession that also returns the Session's Turn
// index it read; the state's lists reuse the storage of into's.
func (a *API) readSessionIndex(v server.View, sid string, which int, into sessionState) (sessionState, *sessionTurns, bool) {
	if _, ok := v.Backend().Session(sid); !ok {
		return sessionState{}, nil, false
	}
	idx := a.idx.of(v, sid)
	st := sessionState{count: len(idx.ids)}
	st.recovery, _ = v.Machine().SessionState(sid)
	from := 0
	if which == turnsOpen {
		from = min(idx.open, max(len(idx.ids)-1, 0))
	}
	if n := len(idx.ids) - from; n > 0 {
		st.turns, st.recs = slices.Grow(into.turns[:0], n), slices.Grow(into.recs[:0], n)
	}
	for _, id := range idx.ids[from:] {
		rec, ok := v.Backend().Turn(id)
		tv, ok2 := v.Machine().Turn(id)
		if ok && ok2 {
			st.turns, st.recs = append(st.turns, tv), append(st.recs, rec)
		}
	}
	return st, idx, true
}

// activeTurn is the Session's first unfinished Turn (busy), the one
// readSession(v, sid, turnsOpen).active() finds, read without copying
// the Session's Turns; ok is false for an unknown Session.
func (a *API) activeTurn(v server.View, sid string) (tid string, busy, ok bool) {
	if _, ok := v.Backend().Session(sid); !ok {
		return "", false, false
	}
	idx := a.idx.of(v, sid)
	for _, id := range idx.ids[min(idx.open, max(len(idx.ids)-1, 0)):] {
		if _, ok := v.Backend().Turn(id); !ok {
			continue
		}
		if tv, ok := v.Machine().Turn(id); ok && !tv.State.Terminal() {
			return tv.ID, true, true
		}
	}
	return "", false, true
}

// turnsFrom are the Session's Turns from Turn from on (all when from is
// empty or not the Session's).
func (a *API) turnsFrom(v server.View, sid, from string) []core.TurnRecord {
	idx := a.idx.of(v, sid)
	i := idx.pos[from] // 0 when absent
	var out []core.TurnRecord
	for _, id := range idx.ids[i:] {
		if rec, ok := v.Backend().Turn(id); ok {
			out = append(out, rec)
		}
	}
	return out
}
