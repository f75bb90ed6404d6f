package core

import (
	"slices"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// TurnView is the public projection of a Turn. Pointer members are shared
// with the durable record and must be treated as read-only.
type TurnView struct {
	ID, Session string
	State       TurnState
	RunID       string
	Attempt     int
	ErrorCode   string
	ErrorDetail string
	// EngineErrorCode and EngineHTTPStatus are exposed only for Turns that
	// failed with engine_failed: classification never turns a completed or
	// cancelled Turn into a failure and never hides an incomplete stream.
	EngineErrorCode  string
	EngineHTTPStatus int
	Usage            *wire.Usage
	Content          string // done content, or the cancel outcome's
	Cancel           CancelState
	CancelDeliveryID string // delivery ID of the latest cancel attempt
	InputCursor      int
	Inputs           []InputView
	Events           uint64
	Interactions     []InteractionView
	Subagents        []SubagentView // the Run's subagent observations, in order
}

// InputView is the projection of one active input.
type InputView struct {
	ID        string
	State     InputState
	ErrorCode string
}

func viewOf(rec TurnRecord, inputs []InputRecord) TurnView {
	v := TurnView{
		ID: rec.ID, Session: rec.Session, State: rec.State, RunID: rec.RunID, Attempt: rec.Attempt,
		ErrorCode: rec.ErrorCode, ErrorDetail: rec.ErrorDetail, Usage: rec.Usage, Cancel: rec.Cancel,
		CancelDeliveryID: rec.CancelDeliveryID, InputCursor: rec.InputCursor, Events: rec.EventCount,
	}
	if rec.State == TurnFailed && rec.ErrorCode == CodeEngineFailed {
		v.EngineErrorCode, v.EngineHTTPStatus = rec.EngineErrorCode, rec.EngineHTTPStatus
	}
	switch {
	case rec.CancelOutcome != nil && rec.State == TurnCancelled:
		v.Content = rec.CancelOutcome.Content
	case rec.Done != nil:
		v.Content = rec.Done.Content
	}
	for _, in := range inputs {
		v.Inputs = append(v.Inputs, InputView{ID: in.ID, State: in.State, ErrorCode: in.ErrorCode})
	}
	v.Interactions = interactionViews(rec.Interactions)
	v.Subagents = subagentViews(rec.Subagents)
	return v
}

func (m *Machine) onReadTurn(e ReadTurn) {
	v, ok := m.Turn(e.Turn)
	if !ok {
		m.result(APIResult{Call: e.Call, Err: ErrUnknownTurn})
		return
	}
	m.result(APIResult{Call: e.Call, Value: &v})
}

// Turn returns a Turn's projection (read-only introspection).
func (m *Machine) Turn(id string) (TurnView, bool) {
	if t := m.turns[id]; t != nil {
		return viewOf(t.rec, t.inputs), true
	}
	rec, ok := m.st.Turn(id)
	if !ok {
		return TurnView{}, false
	}
	return viewOf(rec, m.st.Inputs(id)), true
}

// SessionState is Session id's recoverability as the machine judges it
// now (see SessionState); ok is false for an unknown Session.
func (m *Machine) SessionState(id string) (SessionState, bool) {
	s := m.sessions[id]
	if s == nil {
		return SessionState{}, false
	}
	return m.sessionState(s), true
}

// DeviceView describes a device's current connection and snapshot.
type DeviceView struct {
	Device string
	Conn   ConnID // 0: not connected
	Known  bool   // a valid heartbeat arrived on Conn
	Kinds  []string
	// IdleDeadline is when Core closes Conn unless an inbound frame
	// arrives first: the last inbound frame plus ConnIdleTimeout (zero
	// when not connected).
	IdleDeadline time.Time
}

// Devices lists devices sorted by ID.
func (m *Machine) Devices() []DeviceView {
	out := make([]DeviceView, 0, len(m.devices))
	for id, d := range m.devices {
		v := DeviceView{Device: id, Conn: d.conn}
		if c := m.conns[d.conn]; c != nil {
			v.Known = c.known
			v.IdleDeadline = c.lastInbound.Add(m.cfg.ConnIdleTimeout)
			for k, sk := range c.kinds {
				if sk.Available {
					v.Kinds = append(v.Kinds, k)
				}
			}
			slices.Sort(v.Kinds)
		}
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b DeviceView) int { return compareString(a.Device, b.Device) })
	return out
}

// ActiveTurns lists unfinished Turns sorted by sequence.
func (m *Machine) ActiveTurns() []TurnView {
	ts := m.sortedTurns()
	out := make([]TurnView, len(ts))
	for i, t := range ts {
		out[i] = viewOf(t.rec, t.inputs)
	}
	return out
}

// PreparationView describes an open preparation stream.
type PreparationView struct {
	RequestID string
	Turn      string // "" when abandoned
	Conn      ConnID
	Handle    string
	Revision  uint64
	StartSent bool
}

// Preparations lists open preparation streams sorted by request sequence.
func (m *Machine) Preparations() []PreparationView {
	ps := make([]*preparation, 0, len(m.preps))
	for _, p := range m.preps {
		ps = append(ps, p)
	}
	slices.SortFunc(ps, func(a, b *preparation) int { return compareSeq(a.seq, b.seq) })
	out := make([]PreparationView, len(ps))
	for i, p := range ps {
		out[i] = PreparationView{RequestID: p.reqID, Conn: p.conn.id, Handle: p.handle,
			Revision: p.lastRev, StartSent: p.startSent}
		if p.turn != nil {
			out[i].Turn = p.turn.rec.ID
		}
	}
	return out
}

func compareString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (m *Machine) sortedTurns() []*turn {
	ts := make([]*turn, 0, len(m.turns))
	for _, t := range m.turns {
		ts = append(ts, t)
	}
	slices.SortFunc(ts, func(a, b *turn) int { return compareSeq(a.rec.Seq, b.rec.Seq) })
	return ts
}
