package core

import (
	"slices"

	"github.com/turnstile-sim/turnstile/wire"
)

// onRunFrame routes a Run-scoped frame by its Run ID. Frames for no live
// route, or arriving on another connection than the route's, are dropped.
func (m *Machine) onRunFrame(c *conn, f wire.Frame) {
	t := m.runs[f.ID]
	if t == nil || t.conn != c {
		return
	}
	switch p := f.Payload.(type) {
	case wire.PromptSteerAck:
		m.onSteerAck(t, p)
	case wire.InteractionDecisionAck:
		m.onCancelAck(t, p)
	case wire.PermissionRequest, wire.UserChoicePrompt, wire.FunctionCall:
		m.onAsked(t, p)
	case wire.Delta, wire.Thinking, wire.OutputMessage, wire.ToolCall,
		wire.UsageUpdate, wire.RunError, wire.Done:
		m.onRunEvent(t, p)
	case wire.SubagentIdentity, wire.SubagentLifecycle, wire.SubagentTurn, wire.SubagentItem:
		m.onSubagent(t, p)
	}
}

// onRunEvent persists one run event in arrival order, updates the Turn's
// projection and hands the event to subscribers. done closes the stream;
// unless a cancel receipt is awaited it decides the terminal state.
func (m *Machine) onRunEvent(t *turn, p wire.Payload) {
	if t.rec.Done != nil {
		return
	}
	if t.rec.EventCount >= uint64(m.cfg.RunEventsPerTurnMax) {
		// Core cannot keep the stream: it stops observing rather than
		// drop events silently.
		m.finishWith(t, TurnFailed, CodeEventPersistenceFailed, "run event limit reached", ErrEventLimit)
		return
	}
	t.rec.EventCount++
	ev := RunEvent{Seq: t.rec.EventCount, Type: p.MessageType(), Payload: p}
	m.st.AppendEvent(t.rec.ID, ev)
	t.rec.OutputSeen = true
	switch v := p.(type) {
	case wire.UsageUpdate:
		u := v.Usage
		t.rec.Usage = &u
	case wire.RunError:
		t.rec.ErrorSeen, t.rec.ErrorText = true, v.Error
		t.rec.EngineErrorCode, t.rec.EngineHTTPStatus = classifyEngineError(v)
	case wire.Done:
		d := v
		t.rec.Done = &d
		if v.Usage != nil {
			u := *v.Usage
			t.rec.Usage = &u
		}
		m.noteNativeSession(t, v.Metadata)
	}
	started := t.rec.State == TurnStarting
	if started {
		m.becomeRunning(t)
	}
	m.saveTurn(t)
	m.observe(t, ev)
	switch {
	case t.rec.Done != nil && t.rec.Cancel != CancelRequested:
		m.finishFromStream(t)
	case started:
		m.pumpSteer(t)
	}
}

// finishFromStream decides the terminal state from a complete stream:
// error then done is failed (engine_failed), done alone completed.
func (m *Machine) finishFromStream(t *turn) {
	if t.rec.ErrorSeen {
		m.finish(t, TurnFailed, CodeEngineFailed, t.rec.ErrorText)
		return
	}
	m.finish(t, TurnCompleted, "", "")
}

func (m *Machine) becomeRunning(t *turn) {
	t.rec.State = TurnRunning
	m.countStarted(t)
}

// countStarted records, once per Turn, that its Session has started a
// Turn (so a later Turn without a native session ID needs recovery).
func (m *Machine) countStarted(t *turn) {
	if t.rec.Counted {
		return
	}
	t.rec.Counted = true
	s := m.sessions[t.rec.Session]
	s.rec.StartedTurns++
	m.saveSession(s)
}

func (m *Machine) noteNativeSession(t *turn, md *wire.DoneMetadata) {
	if md == nil || md.AgentSessionID == "" {
		return
	}
	s := m.sessions[t.rec.Session]
	if s.rec.NativeSessionID != md.AgentSessionID {
		s.rec.NativeSessionID = md.AgentSessionID
		m.saveSession(s)
	}
}

// observationLost: the connection carrying a claimed Turn's Run is gone.
// The native effect is unknown; nothing is replayed.
func (m *Machine) observationLost(t *turn) {
	if t.rec.State == TurnStarting {
		m.countStarted(t) // the start may have run natively, cancel or not
	}
	switch {
	case t.rec.Cancel == CancelRequested:
		m.finishWith(t, TurnFailed, CodeCancelUnconfirmed, "connection lost before the cancel receipt", ErrDisconnected)
	case t.rec.State == TurnStarting:
		m.finishWith(t, TurnFailed, CodeDeliveryUnknown, "connection lost before the start was confirmed", ErrDisconnected)
	default:
		m.finishWith(t, TurnFailed, CodeEventStreamIncomplete, "connection lost before done", ErrDisconnected)
	}
}

// dropRoute removes a claimed Turn's Run route and any open preparation.
// A started preparation whose stream has delivered no terminal state yet
// (the Turn ended while the Run was still starting) stays an open stream
// of its connection: it is detached from the Turn and counts against the
// connection's preparation streams until a terminal status ends it or the
// connection closes (wire-reference §3.3: delivering a terminal state
// closes the stream; execution_release only abandons before start).
func (m *Machine) dropRoute(t *turn) {
	s := m.sessions[t.rec.Session]
	if p := s.prep; p != nil && p.turn == t {
		switch {
		case p.startSent && !p.failedSeen:
			m.detachStarted(p)
		case p.startSent:
			m.removePrep(p) // failed was delivered: the stream is closed
		default:
			m.abandonPrep(p)
		}
	}
	if t.conn != nil {
		assert.That(m.runs[t.rec.RunID] == t, "turn %s route mismatch", t.rec.ID)
		delete(m.runs, t.rec.RunID)
		t.conn.runs--
		t.conn = nil
	}
}

func (m *Machine) finish(t *turn, state TurnState, code, detail string) {
	m.finishWith(t, state, code, detail, nil)
}

// finishWith makes a Turn terminal: routes and timers go, inputs still in
// flight become unknown and queued ones not_delivered, subscribers close
// (with obsErr when observation was lost), and the Session's next Turn may
// be scheduled.
func (m *Machine) finishWith(t *turn, state TurnState, code, detail string, obsErr error) {
	assert.That(state.Terminal() && !t.rec.State.Terminal(), "turn %s: %s -> %s", t.rec.ID, t.rec.State, state)
	m.dropRoute(t)
	m.closeInteractions(t)
	for i := range t.inputs {
		switch t.inputs[i].State {
		case InputDelivering:
			t.inputs[i].State = InputUnknown
		case InputQueued:
			t.inputs[i].State = InputNotDelivered
		default:
			continue
		}
		m.saveInput(t, i)
	}
	t.rec.State, t.rec.ErrorCode, t.rec.ErrorDetail = state, code, detail
	m.saveTurn(t)
	m.cancelTimer(timerID(timerWritten, t.rec.ID))
	m.cancelTimer(timerID(timerSteerRetry, t.rec.ID))
	m.cancelTimer(timerID(timerCancel, t.rec.ID))
	m.cancelTimer(timerID(timerCancelRetry, t.rec.ID))
	t.retrying = false
	s := m.sessions[t.rec.Session]
	i := slices.Index(s.queue, t)
	assert.That(i >= 0, "finished turn %s not queued", t.rec.ID)
	m.setQueue(s, slices.Delete(s.queue, i, i+1))
	for _, sub := range t.subs {
		m.emit(Observation{Subscriber: sub.id, Turn: t.rec.ID, Closed: true, Err: obsErr})
		m.dropSub(sub)
	}
	t.subs = nil
	m.removeTurn(t)
}
