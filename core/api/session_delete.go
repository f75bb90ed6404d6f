package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
)

// CodeSessionActive: a Session with an unfinished Turn cannot be deleted
// (cancel the Turn, or wait for its end, first).
const CodeSessionActive = "session_active"

// deletedSessions remembers which Sessions are deleted: the mark lives in
// each Session's shell record (kind session, member deleted), and is read
// from the store once per Session. Only this package writes the mark, so
// the cache stays true. gate orders a delete after every message event
// that read the Session as live (a message holds it shared, a delete
// exclusively): a deleted Session never gets a Turn.
type deletedSessions struct {
	gate  sync.RWMutex
	mu    sync.Mutex
	known map[string]bool
}

// sessionDeleted reports whether Session sid is deleted. exists: the
// machine knows the Session (its answer is cached even without a shell
// record; an ID the machine may not know is cached only when a record
// says).
func (a *API) sessionDeleted(ctx context.Context, sid string, exists bool) (bool, error) {
	g := &a.gone
	g.mu.Lock()
	d, ok := g.known[sid]
	g.mu.Unlock()
	if ok {
		return d, nil
	}
	doc, found, err := a.res.GetResource(ctx, kindSession, sid)
	if err != nil {
		return false, err
	}
	var mark struct {
		Deleted bool `json:"deleted"`
	}
	if found {
		if err := json.Unmarshal(doc, &mark); err != nil {
			return false, fmt.Errorf("session %q: stored record: %w", sid, err)
		}
	}
	if !found && !exists {
		return false, nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.known == nil {
		g.known = map[string]bool{}
	}
	if _, ok := g.known[sid]; !ok { // a delete since the read wins
		g.known[sid] = mark.Deleted
	}
	return g.known[sid], nil
}

// sessionLive is nil unless Session sid is deleted (404 unknown_session);
// it does not ask the machine whether sid exists.
func (a *API) sessionLive(ctx context.Context, sid string) error {
	d, err := a.sessionDeleted(ctx, sid, false)
	if err != nil {
		return err
	}
	if d {
		return notFound(CodeUnknownSessionV1, "session_id", "no session %q", sid)
	}
	return nil
}

// deleteSessionV1 deletes a Session from the Agents API: its shell record
// is marked deleted, and from then on every /v1 route answers it as an
// unknown Session and lists leave it out. Core's durable history of it
// (Turns, inputs, run events) stays: the machine keeps every record and
// the operator routes still read it. A Session with an unfinished Turn
// is refused 409 session_active, an unknown or deleted one 404.
func (a *API) deleteSessionV1(w http.ResponseWriter, r *http.Request) {
	sid := r.PathValue("session")
	a.gone.gate.Lock()
	defer a.gone.gate.Unlock()
	a.mu.Lock()
	defer a.mu.Unlock()
	rec, st, err := a.session(r.Context(), sid)
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	if t, ok := st.active(); ok {
		a.failV1Err(w, &v1Bad{status: http.StatusConflict, code: CodeSessionActive, param: "session_id",
			msg: fmt.Sprintf("session %q has an unfinished turn %q: cancel it or wait for its end before deleting", sid, t.ID)})
		return
	}
	rec.Deleted = true
	if err := a.putSession(r.Context(), sid, rec); err != nil {
		a.failV1Err(w, err)
		return
	}
	a.gone.mu.Lock()
	if a.gone.known == nil {
		a.gone.known = map[string]bool{}
	}
	a.gone.known[sid] = true
	a.gone.mu.Unlock()
	writeJSON(w, http.StatusOK, Deleted{ID: sid, Object: "agent.session.deleted", Deleted: true})
}
