package api

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/wire"
)

// Session event types the stream sends.
const (
	EvSessionCreated   = "agent.session.created"
	EvTurnCreated      = "agent.session.turn.created"
	EvTurnInProgress   = "agent.session.turn.in_progress"
	EvTurnCompleted    = "agent.session.turn.completed"
	EvTurnFailed       = "agent.session.turn.failed"
	EvTurnCancelled    = "agent.session.turn.cancelled"
	EvOutputTextDelta  = "agent.session.turn.output_text.delta"
	EvOutputTextDone   = "agent.session.turn.output_text.done"
	EvItemAdded        = "agent.session.turn.item.added"
	EvItemDone         = "agent.session.turn.item.done"
	EvRequiresAction   = "agent.session.requires_action"
	EvSessionIdle      = "agent.session.idle"
	EvError            = "error"
	CodeBadLastEventV1 = "bad_last_event_id"
)

// streamCursor is how far a stream got in one Turn: every earlier Turn
// of the Session was sent whole. It is the SSE id (and event_id) of each
// event: "<turn>:<p>:<e>:<i>:<t>" — p: in_progress sent (0/1); e: run
// events consumed (the persisted sequence); i: interaction steps sent (two
// per interaction: its item, then its requires_action); t: terminal steps
// sent (1 the final output text, 2 the final message item, 3 the Turn's
// terminal event, 4 idle).
// Every part counts persisted facts, so a resumed stream continues where
// the last one stopped, with nothing lost or repeated.
type streamCursor struct {
	turn       string
	p, e, i, t int
}

func (c streamCursor) String() string {
	var arr [64]byte // on the stack: the string is the only allocation
	return string(c.appendTo(arr[:0]))
}

// appendTo appends the cursor's ID to b.
func (c streamCursor) appendTo(b []byte) []byte {
	b = append(b, c.turn...)
	return c.appendCounts(b)
}

func (c streamCursor) appendCounts(b []byte) []byte {
	for _, n := range [4]int{c.p, c.e, c.i, c.t} {
		b = strconv.AppendInt(append(b, ':'), int64(n), 10)
	}
	return b
}

// appendJSON appends the cursor's ID as json.Marshal renders the string
// (the counts, digits and colons, need no escape).
func (c streamCursor) appendJSON(b []byte) []byte {
	b = appendJSONString(b, c.turn)
	return append(c.appendCounts(b[:len(b)-1]), '"')
}

func parseCursor(s string) (streamCursor, bool) {
	f := strings.Split(s, ":")
	if len(f) != 5 || f[0] == "" {
		return streamCursor{}, false
	}
	var n [4]int
	for i, x := range f[1:] {
		v, err := strconv.Atoi(x)
		if err != nil || v < 0 {
			return streamCursor{}, false
		}
		n[i] = v
	}
	c := streamCursor{turn: f[0], p: n[0], e: n[1], i: n[2], t: n[3]}
	return c, c.p <= 1 && c.t <= 4
}

// sseEvent is one event to send; its ID is id, or, when id is empty,
// cur's (rendered as the event is written).
type sseEvent struct {
	id   string
	cur  streamCursor
	typ  string
	data eventData
}

// eventData is the data of every event type the stream sends: each type
// sets its own members (the rest are left out). The members are in
// alphabetical order, as the objects of the Agents API list them.
type eventData struct {
	ContentIndex *int            `json:"content_index,omitempty"`
	Delta        *string         `json:"delta,omitempty"`
	Error        *streamError    `json:"error,omitempty"`
	EventID      string          `json:"event_id"`
	Item         *ItemJSON       `json:"item,omitempty"`
	ItemID       string          `json:"item_id,omitempty"`
	OutputIndex  json.RawMessage `json:"output_index,omitempty"` // 0, or null for an item not yet placed
	Session      *SessionObject  `json:"session,omitempty"`
	SessionID    string          `json:"session_id,omitempty"`
	Text         *string         `json:"text,omitempty"`
	Turn         *TurnObject     `json:"turn,omitempty"`
	TurnID       string          `json:"turn_id,omitempty"`
	Type         string          `json:"type"`
	Usage        json.RawMessage `json:"usage,omitempty"` // a terminal Turn's usage, or null

	// eventCursor, with byCursor, is the event_id written instead of
	// EventID.
	eventCursor streamCursor
	byCursor    bool
}

// streamError is the error of an engine error event.
type streamError struct {
	Code    string  `json:"code"`
	Message string  `json:"message"`
	Param   *string `json:"param"`
	Type    string  `json:"type"`
}

var (
	zeroIndex   = 0
	outputFirst = json.RawMessage(`0`)
	jsonNull    = json.RawMessage(`null`)
)

// sessionEvent is the data of an event carrying the Session.
func sessionEvent(s SessionObject) eventData { return eventData{Session: &s} }

// streamTurn is one Turn as the stream derives it.
type streamTurn struct {
	rec    core.TurnRecord
	view   core.TurnView
	events []core.RunEvent
}

// streamSnapshot is the Session as one loop read saw it.
type streamSnapshot struct {
	turns []streamTurn
	state sessionState
}

// readStream reads the Session from Turn from on; of each Turn's run
// events only those after read[turn] (the sequence already handed over),
// and read advances to the last. The snapshot reuses the storage of
// into, one the stream is done with.
func (a *API) readStream(v server.View, sid string, from string, read map[string]uint64, into streamSnapshot) (streamSnapshot, bool) {
	st, idx, ok := a.readSessionIndex(v, sid, turnsOpen, into.state)
	if !ok {
		return streamSnapshot{}, false
	}
	ids := idx.ids[idx.pos[from]:] // all when from is not the Session's
	snap := streamSnapshot{state: st, turns: slices.Grow(into.turns[:0], len(ids))}
	for _, id := range ids {
		var rec core.TurnRecord
		var view core.TurnView
		// The Session's open Turns were just read with it.
		if j := slices.IndexFunc(st.recs, func(r core.TurnRecord) bool { return r.ID == id }); j >= 0 {
			rec, view = st.recs[j], st.turns[j]
		} else if rec, ok = v.Backend().Turn(id); ok {
			view, _ = v.Machine().Turn(rec.ID)
		} else {
			continue
		}
		evs := v.Backend().EventsAfter(rec.ID, read[rec.ID])
		if len(evs) > 0 {
			read[rec.ID] = evs[len(evs)-1].Seq
		}
		snap.turns = append(snap.turns, streamTurn{rec: rec, view: view, events: evs})
	}
	if len(read) > len(snap.turns) {
		for tid := range read {
			if !slices.ContainsFunc(snap.turns, func(t streamTurn) bool { return t.rec.ID == tid }) {
				delete(read, tid)
			}
		}
	}
	return snap, true
}

// after is snap with the run events of earlier, a snapshot not taken,
// put before its own (snap read only the events after earlier's).
func (snap streamSnapshot) after(earlier streamSnapshot) streamSnapshot {
	for i, t := range snap.turns {
		if j := slices.IndexFunc(earlier.turns, func(e streamTurn) bool { return e.rec.ID == t.rec.ID }); j >= 0 && len(earlier.turns[j].events) > 0 {
			snap.turns[i].events = append(earlier.turns[j].events, t.events...)
		}
	}
	return snap
}

// sessionEventsV1 streams the Session's events as Server-Sent Events,
// derived from the records Core committed: Turn lifecycle, output text,
// items, requires_action for pending function calls and permission
// requests, idle, engine errors. Without Last-Event-ID it starts at the
// Session's first unfinished Turn, or after its last Turn when all are
// finished; Last-Event-ID resumes after the event it names. The stream
// stays open for later Turns until the client leaves or Core stops.
func (a *API) sessionEventsV1(w http.ResponseWriter, r *http.Request) {
	sid := r.PathValue("session")
	for name := range r.URL.Query() {
		if name != "include_obfuscation" {
			a.failV1Err(w, badParam(CodeInvalidValue, name, "unknown query parameter %q", name))
			return
		}
	}
	srec, st, err := a.session(r.Context(), sid)
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	var cur streamCursor
	resumed := false
	if v := strings.TrimSpace(r.Header.Get("Last-Event-ID")); v != "" {
		c, ok := parseCursor(v)
		known := false
		if ok {
			if err := a.s.Query(r.Context(), func(v server.View) {
				rec, found := v.Backend().Turn(c.turn)
				known = found && rec.Session == sid
			}); err != nil {
				a.failV1Err(w, err)
				return
			}
		}
		if !ok || !known {
			failV1(w, http.StatusBadRequest, "", CodeBadLastEventV1, "Last-Event-ID", "Last-Event-ID must be an event ID of this session's stream")
			return
		}
		cur, resumed = c, true
	}
	if !resumed {
		if t, ok := st.active(); ok {
			cur = streamCursor{turn: t.ID}
		} else if last, ok := st.last(); ok {
			cur = streamCursor{turn: last.ID, p: 1, e: int(last.EventCount), i: 2 * len(last.Interactions), t: 4}
		}
	}
	fresh := cur.turn == "" || (!resumed && cur.p == 0 && cur.e == 0 && cur.i == 0 && cur.t == 0)
	a.streamEvents(w, r, sid, srec, cur, fresh, nil, false)
}

// streamEvents writes the stream: first (already derived), then every
// event derive finds after each committed change, until the client
// leaves or Core stops, or, with stopAtIdle, after the first idle.
func (a *API) streamEvents(w http.ResponseWriter, r *http.Request, sid string, srec sessionRecord, cur streamCursor, fresh bool,
	first []sseEvent, stopAtIdle bool) {
	fl, ok := w.(http.Flusher)
	if !ok {
		failV1(w, http.StatusInternalServerError, "", CodeInternal, "", "streaming unsupported")
		return
	}
	defer a.s.Metrics().StreamOpened()()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	fl.Flush()
	evs := first
	var buf []byte // the events of one snapshot, written at once
	var enc eventEncoder
	var derived streamSnapshot // the snapshot evs came from
	// created are the creation times of the snapshot's Turns (each read
	// once); lastActive is the latest of every Turn the stream saw.
	created := map[string]int64{}
	kept := map[string][]core.RunEvent{} // the run events taken, by Turn
	var lastActive int64
	// The loop reads the Session after each commit (server.Watch) and
	// hands the snapshot over: a newer one replaces one not yet taken, so
	// a change costs no round trip through the loop's inbox.
	var mu sync.Mutex
	from := cur.turn // the Turn the loop reads from: the cursor's, or an earlier one
	hand := newStreamHandoff()
	wctx, stop := context.WithCancel(r.Context())
	defer stop()
	var marks []turnMark // what the last snapshot handed over was derived from (loop only)
	handed := false
	read := map[string]uint64{} // the run events handed over, by Turn (loop only)
	if err := a.s.Watch(wctx, func(v server.View) bool {
		mu.Lock()
		f := from
		mu.Unlock()
		var same bool
		if marks, same = a.markStream(v, sid, f, marks); same && handed {
			return true // a commit of another Session: nothing to derive
		}
		handed = true
		snap, ok := a.readStream(v, sid, f, read, hand.spare())
		hand.put(snap, ok)
		return ok
	}); err != nil {
		return
	}
	// The loop below waits on the handoff's wake alone: the client
	// leaving and Core stopping wake it once, through this goroutine, so
	// a snapshot costs one channel receive instead of a three-way select.
	go func() {
		select {
		case <-wctx.Done():
		case <-a.s.Done():
		}
		hand.nudge()
	}()
	stopped := false // Core's loop has returned: send what is left, then end
	for {
		idle := false
		buf = buf[:0]
		for _, ev := range evs {
			ev.data.Type = ev.typ
			n := len(buf)
			buf = append(buf, "id: "...)
			if ev.id != "" {
				ev.data.EventID = ev.id
				buf = append(buf, ev.id...)
			} else {
				ev.data.eventCursor, ev.data.byCursor = ev.cur, true
				buf = ev.cur.appendTo(buf)
			}
			buf = append(append(append(buf, "\nevent: "...), ev.typ...), "\ndata: "...)
			var err error
			if buf, err = enc.appendEventData(buf, &ev.data); err != nil {
				buf = buf[:n]
				continue
			}
			buf = append(buf, "\n\n"...)
			idle = idle || ev.typ == EvSessionIdle
		}
		if len(buf) > 0 {
			if _, err := w.Write(buf); err != nil {
				return
			}
			fl.Flush()
		}
		if derived.turns != nil {
			hand.release(derived) // the events it gave are written
			derived = streamSnapshot{}
		}
		if idle && stopAtIdle || stopped {
			return
		}
		<-hand.wake
		if r.Context().Err() != nil {
			return
		}
		select {
		case <-a.s.Done():
			// Core stopped: its last commit may still hold events for this
			// stream (a Turn failed by the shutdown); send them, then end.
			stopped = true
		default:
		}
		got, has := hand.take()
		if !has {
			if stopped {
				return
			}
			evs = nil
			continue
		}
		if !got.ok {
			return
		}
		snap := got.snap
		derived = got.snap
		if i := slices.IndexFunc(snap.turns, func(t streamTurn) bool { return t.rec.ID == cur.turn }); i > 0 {
			snap.turns = snap.turns[i:] // read from an earlier cursor
		}
		for i, t := range snap.turns {
			// The snapshot holds each Turn's events not yet taken: the
			// stream keeps the rest (derive reads them all).
			kept[t.rec.ID] = append(kept[t.rec.ID], t.events...)
			snap.turns[i].events = kept[t.rec.ID]
			if _, ok := created[t.rec.ID]; !ok {
				// The POST that started the Turn records its creation time
				// just after the commit the stream may see first: a miss
				// is read again on the next snapshot, until the Turn ends.
				if at, ok := a.turnCreated(r.Context(), t.rec.ID); ok || t.rec.State.Terminal() {
					created[t.rec.ID], lastActive = at, max(lastActive, at)
				}
			}
		}
		if len(created) > len(snap.turns) {
			// Forget the Turns the loop no longer reads (the cursor moved
			// past them): the map stays as small as the snapshot.
			for tid := range created {
				if !slices.ContainsFunc(snap.turns, func(t streamTurn) bool { return t.rec.ID == tid }) {
					delete(created, tid)
					delete(kept, tid)
				}
			}
		}
		snap.state.lastActive = lastActive
		evs = derive(evs[:0], sid, srec, snap, &cur, fresh, func(tid string) int64 { return created[tid] })
		fresh = false
		mu.Lock()
		from = cur.turn
		mu.Unlock()
	}
}

// turnMark is what derive reads of one Turn to decide which events are
// due: its state (queued and starting alike: the claim emits nothing),
// whether the Run of a finished Turn started, its run events and its
// interactions (an interaction's later status changes emit nothing).
type turnMark struct {
	id           string
	state        core.TurnState
	started      bool
	events       uint64
	interactions int
}

func markOf(rec core.TurnRecord) turnMark {
	st := rec.State
	if st == core.TurnStarting {
		st = core.TurnQueued
	}
	return turnMark{id: rec.ID, state: st, started: rec.RunID != "" && rec.State.Terminal(), events: rec.EventCount,
		interactions: len(rec.Interactions)}
}

// markStream reads the marks of the Session's Turns from Turn from on
// into prev's storage; same: they equal prev (nothing due changed).
func (a *API) markStream(v server.View, sid, from string, prev []turnMark) ([]turnMark, bool) {
	idx := a.idx.of(v, sid)
	ids := idx.ids[idx.pos[from]:]
	if len(ids) > 0 {
		prev = marksFrom(prev, ids[0])
	}
	same := len(prev) == len(ids)
	out := prev[:0]
	for i, id := range ids {
		rec, ok := v.Backend().Turn(id)
		if !ok {
			continue
		}
		m := markOf(rec)
		same = same && i < len(prev) && prev[i] == m
		out = append(out, m)
	}
	return out, same && len(out) == len(ids)
}

// marksFrom drops the marks before Turn first, in place: the cursor moved
// past them since prev was read, and the read compares only the Turns it
// covers.
func marksFrom(prev []turnMark, first string) []turnMark {
	if j := slices.IndexFunc(prev, func(m turnMark) bool { return m.id == first }); j > 0 {
		return prev[:copy(prev, prev[j:])]
	}
	return prev
}

// streamRead is one snapshot the loop handed to a stream; ok is false
// once the Session is gone.
type streamRead struct {
	snap streamSnapshot
	ok   bool
}

// streamHandoff passes snapshots from the loop to a stream: a newer one
// replaces one not yet taken (carrying its run events, which the newer
// read did not read again), and wake tells the stream one is there.
type streamHandoff struct {
	mu     sync.Mutex
	latest streamRead
	has    bool // latest is there, not yet taken
	wake   chan struct{}
	// done is a snapshot the stream derived and wrote: the loop's next
	// read reuses its storage.
	done streamSnapshot
}

// release gives back a snapshot the stream is done with (from the
// stream).
func (h *streamHandoff) release(s streamSnapshot) {
	h.mu.Lock()
	h.done = s
	h.mu.Unlock()
}

// spare takes the snapshot given back, if any (from the loop).
func (h *streamHandoff) spare() streamSnapshot {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.done
	h.done = streamSnapshot{}
	return s
}

func newStreamHandoff() *streamHandoff { return &streamHandoff{wake: make(chan struct{}, 1)} }

// put hands snap over (from the loop).
func (h *streamHandoff) put(snap streamSnapshot, ok bool) {
	h.mu.Lock()
	if h.has && h.latest.ok {
		snap = snap.after(h.latest.snap) // its events were not taken
	}
	h.latest, h.has = streamRead{snap, ok}, true
	h.mu.Unlock()
	h.nudge()
}

// nudge wakes the stream without handing anything over (its next take
// finds nothing when no snapshot came).
func (h *streamHandoff) nudge() {
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// take returns the snapshot handed over since the last take; ok is
// false when none was.
func (h *streamHandoff) take() (streamRead, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	got, has := h.latest, h.has
	h.latest, h.has = streamRead{}, false
	return got, has
}

// derive appends to out the events not yet sent, in order: for each Turn from
// the cursor's, its creation, in_progress once it started, its run events
// by sequence, its function calls and permission requests, then its end
// and, when no Turn follows unfinished, the Session's idle. fresh: the
// cursor's Turn has sent nothing yet (its creation is due).
func derive(out []sseEvent, sid string, srec sessionRecord, snap streamSnapshot, cur *streamCursor, fresh bool, created func(string) int64) []sseEvent {
	emit := func(typ string, data eventData) {
		out = append(out, sseEvent{cur: *cur, typ: typ, data: data})
	}
	for k, t := range snap.turns {
		rec := t.rec
		if rec.ID != cur.turn {
			if cur.turn != "" && cur.t < 4 {
				return out // the cursor's Turn is not finished
			}
			*cur = streamCursor{turn: rec.ID}
			fresh = true
		}
		// The Turn object and message ID are built once per Turn and
		// snapshot: the events of one snapshot share them.
		var to *TurnObject
		turnEv := func() eventData {
			if to == nil {
				o := turnObject(rec, t.view, srec, created(rec.ID))
				to = &o
			}
			return eventData{SessionID: sid, TurnID: rec.ID, Turn: to}
		}
		mid := ""
		msgID := func() string {
			if mid == "" {
				mid = messageID(rec.ID)
			}
			return mid
		}
		if fresh {
			emit(EvTurnCreated, turnEv())
			fresh = false
		}
		if cur.p == 0 && (rec.State == core.TurnRunning || (rec.State.Terminal() && rec.RunID != "") || len(t.events) > 0) {
			cur.p = 1
			emit(EvTurnInProgress, turnEv())
		}
		for _, ev := range t.events {
			if int(ev.Seq) <= cur.e {
				continue
			}
			cur.e = int(ev.Seq)
			if typ, data, ok := runEvent(sid, rec.ID, msgID, ev); ok {
				emit(typ, data)
			}
		}
		for n, ix := range rec.Interactions {
			if ix.Kind == core.InteractionUserChoice {
				if cur.i < 2*n+2 {
					cur.i = 2*n + 2
				}
				continue
			}
			if cur.i == 2*n {
				cur.i++
				if ix.Kind == core.InteractionFunction {
					emit(EvItemAdded, eventData{SessionID: sid, TurnID: rec.ID, OutputIndex: jsonNull,
						Item: &ItemJSON{ID: rec.ID + "_call_" + ix.ID, Type: "function_call", TurnID: rec.ID, Status: "in_progress",
							CallID: ix.ID, Name: ix.Name, Arguments: rawOr(ix.Arguments, `{}`)}})
				}
			}
			if cur.i == 2*n+1 {
				cur.i++
				pending := ix.Status == core.InteractionPending || ix.Status == core.InteractionRefused
				if pending && !rec.State.Terminal() {
					emit(EvRequiresAction, sessionEvent(sessionObject(sid, srec, snap.state)))
				}
			}
		}
		if !rec.State.Terminal() || cur.e < int(rec.EventCount) {
			return out
		}
		text, final := finalContent(rec)
		if cur.t == 0 {
			cur.t = 1
			if final {
				emit(EvOutputTextDone, eventData{SessionID: sid, TurnID: rec.ID, ItemID: msgID(),
					OutputIndex: outputFirst, ContentIndex: &zeroIndex, Text: &text})
			}
		}
		if cur.t == 1 {
			cur.t = 2
			if final && !hasOutputMessages(t.events) {
				item := assistantItem(rec.ID, msgID(), text, "completed", "")
				emit(EvItemDone, eventData{SessionID: sid, TurnID: rec.ID, OutputIndex: outputFirst, Item: &item})
			}
		}
		if cur.t == 2 {
			cur.t = 3
			var typ string
			switch rec.State {
			case core.TurnCompleted:
				typ = EvTurnCompleted
			case core.TurnFailed:
				typ = EvTurnFailed
			case core.TurnCancelled:
				typ = EvTurnCancelled
			}
			d := turnEv()
			d.Usage = jsonNull
			if d.Turn.Usage != nil { // the Turn object's usage, rendered by hand
				d.Usage = appendUsage(nil, d.Turn.Usage)
			}
			emit(typ, d)
		}
		if cur.t == 3 {
			cur.t = 4
			if _, busy := snap.state.active(); !busy && k == len(snap.turns)-1 {
				emit(EvSessionIdle, sessionEvent(sessionObject(sid, srec, snap.state)))
			}
		}
	}
	return out
}

// runEvent maps one persisted run event: delta is output text, an
// output message an item done, an engine error an error event; thinking,
// tool observations, usage and done add nothing of their own (done's
// content is the final output_text.done).
func runEvent(sid, tid string, msgID func() string, ev core.RunEvent) (string, eventData, bool) {
	switch p := ev.Payload.(type) {
	case wire.Delta:
		id := p.ItemID
		if id == "" {
			id = msgID() // the Turn's message, messageID(tid)
		}
		return EvOutputTextDelta, eventData{SessionID: sid, TurnID: tid, ItemID: id, OutputIndex: outputFirst,
			ContentIndex: &zeroIndex, Delta: &p.Delta}, true
	case wire.OutputMessage:
		if p.Text == nil {
			return "", eventData{}, false
		}
		item := assistantItem(tid, p.ID, *p.Text, p.Status, p.Phase)
		return EvItemDone, eventData{SessionID: sid, TurnID: tid, OutputIndex: outputFirst, Item: &item}, true
	case wire.RunError:
		code := p.Code
		if code == "" {
			code = "engine_error"
		}
		return EvError, eventData{SessionID: sid, Error: &streamError{Type: "engine_error", Code: code, Message: p.Error}}, true
	}
	return "", eventData{}, false
}

// hasOutputMessages: the Runtime reported its messages itself.
func hasOutputMessages(evs []core.RunEvent) bool {
	for _, ev := range evs {
		if m, ok := ev.Payload.(wire.OutputMessage); ok && m.Text != nil {
			return true
		}
	}
	return false
}
