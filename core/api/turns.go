package api

import (
	"net/http"
	"slices"

	"github.com/turnstile-sim/turnstile/core/server"
)

func turnRoutes() []Route {
	return []Route{
		{"GET", "/v1/agents/sessions/{session}/turns", (*API).listTurnsV1},
		{"GET", "/v1/agents/sessions/{session}/turns/{turn}", (*API).getTurnV1},
		{"GET", "/v1/agents/sessions/{session}/turns/{turn}/items", (*API).listTurnItemsV1},
		{"GET", "/v1/agents/sessions/{session}/items", (*API).listSessionItemsV1},
	}
}

// pageOf pages a derived list (in its natural order; Desc reverses it)
// by the IDs of its elements.
func pageOf[T any](items []T, id func(T) string, lp ListParams) (Page, error) {
	if lp.Desc {
		items = slices.Clone(items)
		slices.Reverse(items)
	}
	if lp.After != "" {
		i := slices.IndexFunc(items, func(it T) bool { return id(it) == lp.After })
		if i < 0 {
			return Page{}, badParam(CodeBadCursor, "after", "after names no object of this list")
		}
		items = items[i+1:]
	}
	more := len(items) > lp.Limit
	items = items[:min(len(items), lp.Limit)]
	data, ids := make([]any, 0, len(items)), make([]string, 0, len(items))
	for _, it := range items {
		data, ids = append(data, it), append(ids, id(it))
	}
	return newPage(data, ids, more), nil
}

// sessionTurns reads the Session's shell record and its Turns'
// histories (all of them, or the one named only).
func (a *API) sessionTurns(r *http.Request, only string) (sessionRecord, []turnHistory, error) {
	sid := r.PathValue("session")
	srec, _, err := a.session(r.Context(), sid)
	if err != nil {
		return srec, nil, err
	}
	var hs []turnHistory
	found := only == ""
	err = a.s.Query(r.Context(), func(v server.View) {
		if only != "" {
			h, ok := readTurnHistory(v, sid, only)
			hs, found = append(hs, h), ok
			return
		}
		for _, rec := range a.turnsFrom(v, sid, "") {
			if h, ok := readTurnHistory(v, sid, rec.ID); ok {
				hs = append(hs, h)
			}
		}
	})
	if err == nil && !found {
		err = notFound(CodeUnknownTurn, "turn_id", "no turn %q in session %q", only, sid)
	}
	return srec, hs, err
}

func (a *API) listTurnsV1(w http.ResponseWriter, r *http.Request) {
	lp, err := listParams(r, true)
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	srec, hs, err := a.sessionTurns(r, "")
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	p, err := pageOf(hs, func(h turnHistory) string { return h.rec.ID }, lp)
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	for i, d := range p.Data { // the page's Turns only are projected
		h := d.(turnHistory)
		at, _ := a.turnCreated(r.Context(), h.rec.ID)
		p.Data[i] = turnObject(h.rec, h.view, srec, at)
	}
	writeJSON(w, http.StatusOK, p)
}

func (a *API) getTurnV1(w http.ResponseWriter, r *http.Request) {
	srec, hs, err := a.sessionTurns(r, r.PathValue("turn"))
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	at, _ := a.turnCreated(r.Context(), hs[0].rec.ID)
	writeJSON(w, http.StatusOK, turnObject(hs[0].rec, hs[0].view, srec, at))
}

func (a *API) listItems(w http.ResponseWriter, r *http.Request, only string) {
	lp, err := listParams(r, true)
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	_, hs, err := a.sessionTurns(r, only)
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	var items []ItemJSON
	for _, h := range hs {
		items = append(items, turnItems(h.rec, h.inputs, h.events)...)
	}
	p, err := pageOf(items, func(it ItemJSON) string { return it.ID }, lp)
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	writeJSON(w, http.StatusOK, p)
}

func (a *API) listSessionItemsV1(w http.ResponseWriter, r *http.Request) { a.listItems(w, r, "") }

func (a *API) listTurnItemsV1(w http.ResponseWriter, r *http.Request) {
	a.listItems(w, r, r.PathValue("turn"))
}
