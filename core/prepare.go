package core

import (
	"fmt"

	"github.com/turnstile-sim/turnstile/wire"
)

// preparation is one execution admission in progress: the status stream
// of one preparation request ID on one connection. It is volatile: a
// restart or connection loss discards it (its handle was connection-local).
type preparation struct {
	reqID      string
	seq        uint64
	turn       *turn // nil once abandoned: the handle is released when it appears
	sess       *session
	conn       *conn
	handle     string // first handle seen on the stream
	lastRev    uint64
	executorID string
	startSent  bool
	failedSeen bool   // `failed` after start without a code: the rejected names it
	key        string // its key in Machine.preps (addPrep)
	slot       int    // its index in Machine.prepList (addPrep, removePrep)
}

// startPreparation subscribes to the status stream, then sends
// execution_prepare with the Session identity and immutable configuration.
// req is t's requirements, as scheduleHead took them.
func (m *Machine) startPreparation(s *session, t *turn, c *conn, req requirement) {
	_, _, caps := checkConn(c, s.rec.Agent.Kind, req)
	reqID := m.mint("p", &m.ctr.Preparations)
	p := &preparation{reqID: reqID, seq: m.ctr.Preparations, turn: t, sess: s, conn: c}
	m.addPrep(p)
	c.preps++
	m.setPrep(s, p)
	m.send(c.id, reqID, wire.ExecutionPrepare{SessionID: s.rec.ID, Configuration: prepareConfig(s.rec, caps)})
}

// addPrep enters p in m.preps under its request ID and at the end of
// m.prepList.
func (m *Machine) addPrep(p *preparation) {
	p.key, p.slot = p.reqID, len(m.prepList)
	m.preps[p.key] = p
	m.prepList = append(m.prepList, p)
}

// dropPrep deletes p from m.preps and m.prepList, moving the last
// preparation of the list into p's slot.
func (m *Machine) dropPrep(p *preparation) {
	delete(m.preps, p.key)
	if i, n := p.slot, len(m.prepList)-1; i >= 0 && i <= n && m.prepList[i] == p {
		last := m.prepList[n]
		m.prepList[i], last.slot = last, i
		m.prepList[n] = nil
		m.prepList = m.prepList[:n]
	}
	p.slot = -1
}

func (m *Machine) removePrep(p *preparation) {
	assert.That(m.preps[p.reqID] == p, "removing unknown preparation %s", p.reqID)
	m.dropPrep(p)
	p.conn.preps--
	if p.sess.prep == p {
		m.setPrep(p.sess, nil)
	}
}

// abandonPrep gives up an unclaimed preparation: a known handle is
// released now; an unknown one is released when its first status names it.
func (m *Machine) abandonPrep(p *preparation) {
	assert.That(!p.startSent, "abandoning claimed preparation %s", p.reqID)
	if p.sess.prep == p {
		m.setPrep(p.sess, nil)
	}
	p.turn = nil
	if p.handle != "" {
		m.send(p.conn.id, p.reqID, wire.ExecutionRelease{Handle: p.handle})
		m.removePrep(p)
	}
}

// detachStarted gives up a started preparation whose Turn ended before a
// terminal status closed its stream: nothing is sent (the start was
// already sent, so execution_release no longer applies), and the stream
// stays counted until a terminal status or a refused start ends it.
func (m *Machine) detachStarted(p *preparation) {
	assert.That(p.startSent, "detaching unclaimed preparation %s", p.reqID)
	if p.sess.prep == p {
		m.setPrep(p.sess, nil)
	}
	p.turn = nil
}

// terminalState: the states whose delivery closes a status stream.
func terminalState(s string) bool {
	switch s {
	case wire.StateStarted, wire.StateReleased, wire.StateExpired, wire.StateFailed:
		return true
	}
	return false
}

func resourceState(s string) bool {
	switch s {
	case wire.StatePreparing, wire.StateReady, wire.StateStarting, wire.StateStarted,
		wire.StateReleased, wire.StateExpired, wire.StateFailed:
		return true
	}
	return false
}

// onPreparationStatus applies one status of a stream. A resource status
// counts only with a non-empty handle equal to the first handle seen on
// the stream and a revision strictly above the last one applied; anything
// else (stale, duplicate, other handle) is ignored.
func (m *Machine) onPreparationStatus(c *conn, id string, st wire.PreparationStatus) {
	p := m.preps[id]
	if p == nil || p.conn != c {
		return
	}
	if st.State == wire.StateRejected {
		m.onPrepRejected(p, st)
		return
	}
	if !resourceState(st.State) || st.Handle == "" || st.Revision == 0 ||
		(p.handle != "" && st.Handle != p.handle) || st.Revision <= p.lastRev {
		return
	}
	if st.RunID != "" && p.turn != nil && p.startSent && st.RunID != p.turn.rec.RunID {
		return // a status about another Run never applies to this one
	}
	if p.handle == "" {
		m.capacityAccepted(c) // the stream's first status: the Runtime took it
	}
	p.handle, p.lastRev = st.Handle, st.Revision
	if st.ExecutorID != "" {
		p.executorID = st.ExecutorID
	}
	if p.turn == nil && p.startSent {
		if terminalState(st.State) {
			m.removePrep(p) // the detached stream is closed
		}
		return
	}
	if p.turn == nil {
		if st.State != wire.StateReleased && st.State != wire.StateExpired && st.State != wire.StateFailed {
			m.send(c.id, p.reqID, wire.ExecutionRelease{Handle: p.handle})
		}
		m.removePrep(p)
		return
	}
	switch st.State {
	case wire.StateReady:
		m.onReady(p)
	case wire.StateStarted:
		m.onStarted(p)
	case wire.StateReleased, wire.StateExpired, wire.StateFailed:
		m.onPrepEnded(p, st)
	}
}

// onReady runs the final check against the connection's current snapshot,
// then claims the Turn (durably) and sends execution_start.
func (m *Machine) onReady(p *preparation) {
	if p.startSent {
		return
	}
	t, s, c := p.turn, p.sess, p.conn
	verdict, miss, caps := checkConn(c, s.rec.Agent.Kind, m.requirements(s, t))
	if why := m.unqualified(s); why != "" {
		verdict, miss = admitMissing, why
	}
	if verdict != admitOK || p.executorID == "" {
		m.send(c.id, p.reqID, wire.ExecutionRelease{Handle: p.handle})
		m.removePrep(p)
		switch {
		case verdict == admitMissing:
			m.finish(t, TurnFailed, CodeCapabilityUnsupported, miss)
		case p.executorID == "":
			m.finish(t, TurnFailed, CodePreparationStartFailed, "ready without executor_id")
		}
		// admitUndeclared: the kind is no longer declared available, which
		// at selection means wait. Nothing was sent but the connection-local
		// admission, now released: the Turn stays queued, unclaimed.
		return
	}
	t.rec.Attempt++
	t.rec.State = TurnStarting
	t.rec.RunID = runID(t.rec.ID, t.rec.Attempt)
	t.rec.Device, t.rec.ExecutorID, t.rec.Handle = c.device, p.executorID, p.handle
	t.rec.OutputSeen = false
	m.saveTurn(t)
	t.conn = c
	c.runs++
	m.runs[t.rec.RunID] = t
	t.admitted = &caps
	p.startSent = true
	m.send(c.id, p.reqID, wire.ExecutionStart{
		ExecutorID: p.executorID, Handle: p.handle, RunID: t.rec.RunID, Input: t.rec.Input,
	})
}

// runID names an execution attempt: the Turn ID, then "<turn>.<n>" for a
// retry attempt n.
func runID(turnID string, attempt int) string {
	if attempt <= 1 {
		return turnID
	}
	return fmt.Sprintf("%s.%d", turnID, attempt)
}

func (m *Machine) onStarted(p *preparation) {
	if !p.startSent {
		return
	}
	m.removePrep(p)
	if t := p.turn; t.rec.State == TurnStarting {
		m.becomeRunning(t)
		m.saveTurn(t)
		m.pumpSteer(t)
	}
}

// onPrepEnded handles released, expired and failed.
func (m *Machine) onPrepEnded(p *preparation, st wire.PreparationStatus) {
	t := p.turn
	if !p.startSent {
		m.removePrep(p)
		m.finish(t, TurnFailed, CodePreparationStartFailed, codeOr(st.ErrorCode, st.State))
		return
	}
	if t.rec.State != TurnStarting || t.rec.OutputSeen {
		m.removePrep(p)
		return
	}
	if st.State == wire.StateFailed && st.ErrorCode == "" {
		p.failedSeen = true
		return
	}
	m.removePrep(p)
	m.startRefused(t, codeOr(st.ErrorCode, st.State))
}

// onPrepRejected handles a refused control operation. It never replaces
// the handle's revision.
func (m *Machine) onPrepRejected(p *preparation, st wire.PreparationStatus) {
	t, c := p.turn, p.conn
	if t == nil {
		switch {
		case !p.startSent && (st.Operation == "" || st.Operation == wire.TypeExecutionPrepare):
			m.removePrep(p) // the abandoned preparation was refused: no handle will come
		case p.startSent && (st.Operation == "" || st.Operation == wire.TypeExecutionStart) &&
			(st.Handle == "" || st.Handle == p.handle):
			m.removePrep(p) // the detached start was refused: no Run will follow
		}
		return
	}
	if st.Handle != "" && p.handle != "" && st.Handle != p.handle {
		return
	}
	code := codeOr(st.ErrorCode, wire.StateRejected)
	switch {
	case !p.startSent && (st.Operation == "" || st.Operation == wire.TypeExecutionPrepare):
		m.removePrep(p)
		if st.ErrorCode == codePreparationCapacity {
			m.capacityRefused(c)
			m.setBackoff(p.sess, true)
			m.setTimer(timerID(timerPrepRetry, p.sess.rec.ID), m.now.Add(m.cfg.PrepareRetryDelay))
			return
		}
		m.finish(t, TurnFailed, CodePreparationStartFailed, code)
	case p.startSent && (st.Operation == "" || st.Operation == wire.TypeExecutionStart):
		if t.rec.State != TurnStarting || t.rec.OutputSeen {
			return
		}
		m.removePrep(p)
		m.startRefused(t, code)
	}
}

// startRefused: the Runtime explicitly reported that the start did not
// transfer. executor_unavailable is retried exactly once, with a fresh
// preparation, when no native output was observed and no cancel was sent;
// anything else fails the Turn.
func (m *Machine) startRefused(t *turn, code string) {
	m.dropRoute(t)
	if code == codeExecutorUnavailable && !t.rec.Retried && !t.rec.OutputSeen && t.rec.Cancel == CancelNone {
		t.rec.Retried = true
		t.rec.State = TurnQueued
		t.rec.RunID, t.rec.Device, t.rec.ExecutorID, t.rec.Handle = "", "", "", ""
		t.admitted = nil
		m.saveTurn(t)
		return
	}
	m.finish(t, TurnFailed, CodePreparationStartFailed, code)
}

func codeOr(code, fallback string) string {
	if code != "" {
		return code
	}
	return fallback
}
