package core

import "fmt"

// Bounds of a ListTurns page.
const (
	ListTurnsDefault = 50  // page size when Limit is 0
	ListTurnsMax     = 200 // largest Limit accepted
)

// ListTurns lists a Session's Turns in submission order, each with the
// projection ReadTurn gives. The page holds at most Limit Turns
// (ListTurnsDefault when 0), starting after the Turn named After (from the
// first when empty). Result: TurnPage.
type ListTurns struct {
	Call    CallID
	Session string
	After   string
	Limit   int
}

func (ListTurns) isEvent() {}

func (e ListTurns) Describe() string {
	return fmt.Sprintf("api list-turns call=%s session=%s after=%s limit=%d", e.Call, e.Session, e.After, e.Limit)
}

func (m *Machine) onListTurns(e ListTurns) {
	limit := e.Limit
	switch {
	case m.sessions[e.Session] == nil:
		m.result(APIResult{Call: e.Call, Err: ErrUnknownSession})
		return
	case limit < 0 || limit > ListTurnsMax:
		m.result(APIResult{Call: e.Call, Err: fmt.Errorf("%w: %d not in 1..%d", ErrBadLimit, limit, ListTurnsMax)})
		return
	case limit == 0:
		limit = ListTurnsDefault
	}
	if e.After != "" {
		if rec, ok := m.st.Turn(e.After); !ok || rec.Session != e.Session {
			m.result(APIResult{Call: e.Call, Err: fmt.Errorf("%w: %q", ErrBadCursor, e.After)})
			return
		}
	}
	page := []TurnView{}
	next := ""
	skipping := e.After != ""
	for _, rec := range m.st.Turns() {
		if rec.Session != e.Session {
			continue
		}
		if skipping {
			skipping = rec.ID != e.After
			continue
		}
		if len(page) == limit {
			next = page[len(page)-1].ID
			break
		}
		v, ok := m.Turn(rec.ID)
		assert.That(ok, "listed turn %s has no projection", rec.ID)
		page = append(page, v)
	}
	st := m.sessionState(m.sessions[e.Session])
	m.result(APIResult{Call: e.Call, Value: TurnPage{Turns: page, NextAfter: next, Session: st}})
}
