package daemon

import (
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// admission is one connection-local admission record: a handle, its
// revision stream and the executor it reserves.
type admission struct {
	gen       ConnID
	requestID string
	handle    string
	fp        string // prepare request content
	session   string
	executor  string
	revision  uint64
	state     string
	code      string
	reused    bool
	expiresAt time.Time
	runID     string
	startFP   string
	turn      TurnID
	reader    string // read-only profile: its reader (no executor)
	env       string // frozen Environment identity ("" for environment none)
}

func (a *admission) live() bool {
	return a.state == wire.StatePreparing || a.state == wire.StateReady
}

func (a *admission) terminal() bool {
	switch a.state {
	case wire.StateStarted, wire.StateReleased, wire.StateExpired, wire.StateFailed:
		return true
	}
	return false
}

// status is a's wire status; expires_at is wall time (the deadline itself
// is monotonic and drives expiry).
func (m *Machine) status(a *admission) wire.PreparationStatus {
	s := wire.PreparationStatus{
		ExecutorID: a.executor,
		Reused:     a.reused,
		Handle:     a.handle,
		Revision:   a.revision,
		State:      a.state,
		RunID:      a.runID,
		ErrorCode:  a.code,
	}
	if a.live() {
		s.ExpiresAt = m.wall(a.expiresAt)
	}
	return s
}

// advance moves a to a new revision and publishes it.
func (m *Machine) advance(a *admission, state, code string) {
	assert.That(!a.terminal(), "admission %s advanced from terminal %s to %s", a.handle, a.state, state)
	a.revision++
	a.state = state
	a.code = code
	m.sendStatus(a)
}

func (m *Machine) sendStatus(a *admission) {
	m.send(a.gen, wire.Frame{ID: a.requestID, Payload: m.status(a)}, m.cfg.Limits.ReceiptSendBudget)
}

// sendRejected answers a refused control operation. It never replaces the
// handle's revision: rejected statuses carry revision 0.
func (m *Machine) sendRejected(requestID, op, code string, a *admission) {
	s := wire.PreparationStatus{State: wire.StateRejected, ErrorCode: code, Operation: op}
	if a != nil {
		s.Handle = a.handle
		s.ExecutorID = a.executor
	}
	m.send(m.conn.gen, wire.Frame{ID: requestID, Payload: s}, m.cfg.Limits.ReceiptSendBudget)
}

// onPrepare handles execution_prepare.
func (m *Machine) onPrepare(requestID string, p wire.ExecutionPrepare) {
	if requestID == "" {
		return // nothing to correlate an answer with
	}
	// The fingerprint is built only where it is read: a prepare refused
	// by admitPrepare (a Turn waiting on capacity retries every second)
	// needs none.
	if a := m.conn.byRequest[requestID]; a != nil {
		if a.fp == prepareFingerprint(p) {
			m.sendStatus(a)
		} else {
			m.sendRejected(requestID, wire.TypeExecutionPrepare, CodeRequestConflict, nil)
		}
		return
	}
	if code, evict := m.admitPrepare(p); code != "" {
		m.sendRejected(requestID, wire.TypeExecutionPrepare, code, nil)
		if evict {
			// after the refusal: the close it starts is resource policy,
			// not part of the answer
			m.evictIdle()
		}
		return
	}
	m.grant(requestID, prepareFingerprint(p), p)
}

// admitPrepare returns the rejection code of a prepare, or "", and
// whether the refusal is a full executor table's, which closes the
// oldest idle executor once answered.
func (m *Machine) admitPrepare(p wire.ExecutionPrepare) (string, bool) {
	if code := m.validatePrepare(p); code != "" {
		return code, false
	}
	if m.shutdown || m.quiesced() {
		return CodeResourceUnavailable, false
	}
	if env := environmentOf(p.Configuration); m.workspaceBusy(env) || m.environmentPreparing(env) {
		// a workspace write, export or runtime preparation of the
		// Environment in progress (wire-reference §3.3): read-only
		// profiles included
		return CodeResourceUnavailable, false
	}
	if p.Configuration.WorkspaceReadOnly {
		return m.admitReadOnly(), false
	}
	c := p.Configuration
	ex := m.sessionExecutor(p.SessionID)
	if ex != nil {
		switch {
		case ex.closeFailed:
			return CodeExecutorCleanupUnconfirmed, false // uncertain: a close failed
		case ex.phase == phaseClosing || ex.gen != m.conn.gen || ex.phase == phasePreparing && ex.handle == "":
			// The Session's executor is being closed, bound to a lost
			// connection (closed once its Turn settles or its preparation
			// ends, never reused), or still prepared for an admission that
			// ended: cleanup or preparation occupies the Session's slot,
			// and a retry can succeed.
			return CodePreparationCapacity, false
		case ex.configFP != executorFingerprint(c):
			return CodeConfigurationConflict, false
		case ex.phase != phaseIdle:
			// Held by a live admission or Turn of this connection. Either
			// always ends on its own (expiry, release, settlement), freeing
			// the executor: a retry can succeed, so Core keeps its Turn
			// unclaimed.
			return CodePreparationCapacity, false
		case c.AgentSessionID != "" && ex.nativeSession != "" && c.AgentSessionID != ex.nativeSession:
			return CodeNativeSessionConflict, false
		case c.AgentSessionID != "" && ex.nativeSession == "":
			// The idle executor holds no native identity (it was prepared
			// as a new root), so it cannot resume the named history: a
			// Turn on it would start a new root. It is replaced: closed
			// now, and a retry prepares one that resumes.
			m.startClose(ex)
			return CodePreparationCapacity, false
		}
	}
	native := m.sessionNative(p.SessionID, ex)
	if ex == nil && c.AgentSessionID != "" && native != "" && c.AgentSessionID != native {
		return CodeNativeSessionConflict, false // the kept identity of a retired executor
	}
	if c.RequireExistingNativeSession && c.AgentSessionID == "" && native == "" {
		return CodeHistoryUnavailable, false
	}
	if ex == nil && len(m.executors) >= m.cfg.Limits.ExecutorsMax {
		// A new executor is needed and the table is full (checked before
		// the active limit: 16 idle and 4 active executors held answer
		// executor_capacity, wire-reference §3.3). While closing
		// or uncertain executors hold slots, cleanup occupies the
		// capacity and each frees its slot once its cleanup succeeds: a
		// retry can succeed, so preparation_capacity keeps Core's Turn
		// unclaimed. Otherwise every held executor is idle or in use and
		// the executor limit itself refuses: executor_capacity
		// (wire-reference §3.3). Either way the oldest idle executor is
		// closed once the refusal is sent, to make room.
		if m.cleanupPending() {
			return CodePreparationCapacity, true
		}
		return CodeExecutorCapacity, true
	}
	if m.activeCount() >= m.cfg.Limits.ActiveMax {
		return CodePreparationCapacity, false
	}
	m.makeRecordRoom()
	return "", false
}

// cleanupPending reports whether an executor is being closed, its close
// was not confirmed, or it is bound to a lost connection (closed once its
// Turn settles or its preparation ends): it holds its slot until its
// cleanup succeeds.
func (m *Machine) cleanupPending() bool {
	for _, ex := range m.executors { //tidy:sorted any-match only
		if ex.phase == phaseClosing || ex.closeFailed || ex.gen != m.conn.gen {
			return true
		}
	}
	return false
}

// validatePrepare applies the configuration and capability rules.
func (m *Machine) validatePrepare(p wire.ExecutionPrepare) string {
	c := p.Configuration
	if strings.TrimSpace(p.SessionID) == "" || c.RunID != "" || len(c.Input) > 0 ||
		c.ConversationID != "" || c.WorkspaceAuthoring ||
		c.AgentStateKey != "agents-api-"+p.SessionID || !c.StrictResume {
		return CodeInvalidConfiguration
	}
	k := m.cfg.kind(c.AgentKind)
	if k == nil || !k.Available {
		return CodeResourceUnavailable
	}
	caps := k.Capabilities
	if c.WorkspaceReadOnly {
		return m.validateReadOnly(p, caps)
	}
	if !caps.Preparation.IsSupported() {
		return CodeUnsupportedPreparation
	}
	if (c.LocalEnvironment != nil) == c.DisableExecutionEnvironment {
		return CodeUnsupportedConfiguration
	}
	if code := mcpOriginRefusal(c); code != "" {
		return code
	}
	if c.CheckCapabilities(caps) != nil {
		// every field the declaration must cover: environment type,
		// function tools, MCP servers, observations, subagent control, …
		return CodeUnsupportedConfiguration
	}
	for key := range c.AgentOptions {
		switch key {
		case wire.AgentOptionModel, wire.AgentOptionSystemPrompt,
			wire.AgentOptionModelProvider, wire.AgentOptionHarnessConfig:
		default:
			return CodeUnsupportedConfiguration
		}
	}
	return ""
}

// executorFingerprint is the configuration an executor is bound to. The
// native session continuation fields are continuity assertions, not
// configuration, so they are left out.
func executorFingerprint(c wire.ExecutionConfiguration) string {
	c.AgentSessionID = ""
	c.RequireExistingNativeSession = false
	return configFingerprint(c)
}

// makeRecordRoom makes room for one more admission record of this
// connection by evicting the oldest terminal record. Records that are not
// terminal (preparing, ready, starting) each hold an active preparation or
// execution, so once the active limit admitted the request and
// AdmissionRecordsMax >= ActiveMax (Config.validate), a full table always
// holds a terminal record: the active limit is what answers
// preparation_capacity first.
func (m *Machine) makeRecordRoom() {
	c := &m.conn
	if len(c.order) < m.cfg.Limits.AdmissionRecordsMax {
		return
	}
	for i, a := range c.order {
		if a.terminal() {
			delete(c.byRequest, a.requestID)
			delete(c.byHandle, a.handle)
			c.order = append(c.order[:i:i], c.order[i+1:]...)
			return
		}
	}
	panicf("admission records full of %d live records under the active limit", len(c.order))
}

// grant creates the admission: reuse of a healthy idle executor answers
// ready at revision 1 without native work; otherwise preparing, then a
// native Prepare.
func (m *Machine) grant(requestID, fp string, p wire.ExecutionPrepare) {
	if p.Configuration.WorkspaceReadOnly {
		m.grantReadOnly(requestID, fp, p)
		return
	}
	a := &admission{
		gen:       m.conn.gen,
		requestID: requestID,
		handle:    m.mintHandle(),
		fp:        fp,
		session:   p.SessionID,
		env:       environmentOf(p.Configuration),
		expiresAt: m.now.Add(m.cfg.Limits.AdmissionExpiry),
	}
	m.conn.byRequest[requestID] = a
	m.conn.byHandle[a.handle] = a
	m.conn.order = append(m.conn.order, a)
	m.setTimer(expiryTimer(a.handle), &timer{kind: timerExpiry, at: a.expiresAt, handle: a.handle})
	if ex := m.sessionExecutor(p.SessionID); ex != nil {
		m.cancelTimer(idleTimer(ex.id))
		ex.phase = phaseReserved
		ex.handle = a.handle
		a.executor = ex.id
		a.reused = true
		m.advance(a, wire.StateReady, "")
		return
	}
	k := m.cfg.kind(p.Configuration.AgentKind)
	ex := m.newExecutor(p.SessionID, k, executorFingerprint(p.Configuration))
	cfg := m.resumeKept(p.SessionID, p.Configuration)
	ex.env = a.env
	ex.nativeSession = cfg.AgentSessionID // prepared to resume it
	ex.observeSubagents = p.Configuration.ObserveSubagentIdentities && k.Capabilities.SubagentObservations.IsSupported()
	ex.handle = a.handle
	a.executor = ex.id
	m.advance(a, wire.StatePreparing, "")
	m.issuePrepare(ex, Prepare{ // prepare_hold.go: held while an installation runs
		Executor:      ex.id,
		Kind:          k.Kind,
		Session:       p.SessionID,
		Configuration: cfg,
		Fingerprint:   ex.configFP,
	})
}

// admissionOf returns the live-connection record reserving ex, if any.
func (m *Machine) admissionOf(handle string) *admission {
	if handle == "" || !m.conn.up {
		return nil
	}
	return m.conn.byHandle[handle]
}

func (m *Machine) prepareDone(c *call, r PrepareResult) {
	ex := m.executors[c.executor]
	assert.That(ex != nil && ex.phase == phasePreparing, "prepare result for executor %s not preparing", c.executor)
	a := m.admissionOf(ex.handle)
	if a != nil {
		m.expireIfDue(a)
	}
	if r.Err != "" && r.Retained {
		// The failed preparation left its executor behind: uncertain
		// until a close confirms it, and the Session's slot stays held.
		ex.closeFailed = true
		if a != nil && a.state == wire.StatePreparing {
			m.cancelTimer(expiryTimer(a.handle))
			m.advance(a, wire.StateFailed, CodeExecutorCleanupUnconfirmed)
		}
		m.startClose(ex)
		return
	}
	if r.Err != "" {
		m.dropExecutor(ex) // a failed preparation leaves no native resource
		if a != nil && a.state == wire.StatePreparing {
			m.cancelTimer(expiryTimer(a.handle))
			m.advance(a, wire.StateFailed, CodePreparationFailed)
		}
		return
	}
	if a != nil && a.state == wire.StatePreparing {
		ex.phase = phaseReserved
		m.advance(a, wire.StateReady, "")
		return
	}
	ex.handle = ""
	m.makeIdle(ex) // admission gone: the executor is still ours to clean up
}

// expireIfDue expires a live admission whose deadline has passed, even if
// its timer has not been delivered yet; it reports whether it did (the
// expired status is then already published).
func (m *Machine) expireIfDue(a *admission) bool {
	if a.live() && !m.now.Before(a.expiresAt) {
		m.expire(a)
		return true
	}
	return false
}

func (m *Machine) expiryDue(handle string) {
	a := m.conn.byHandle[handle]
	if a != nil && a.live() {
		m.expire(a)
	}
}

// expire ends the admission. The executor stays owned: a preparing one is
// made idle (or closed) when its preparation completes.
func (m *Machine) expire(a *admission) {
	m.cancelTimer(expiryTimer(a.handle))
	m.advance(a, wire.StateExpired, "")
	m.detach(a)
}

// detach releases the executor reservation of an ended admission.
func (m *Machine) detach(a *admission) {
	if a.reader != "" {
		m.detachReader(a)
		return
	}
	ex := m.executors[a.executor]
	if ex == nil || ex.handle != a.handle {
		return
	}
	if ex.phase == phaseReserved {
		m.makeIdle(ex)
		return
	}
	ex.handle = "" // preparing: the result makes it idle
}

// retireAdmission ends a record of a connection that went away: a live
// one fails with connection_closed (nothing can be sent any more).
func (m *Machine) retireAdmission(a *admission) {
	if !a.live() {
		return
	}
	m.cancelTimer(expiryTimer(a.handle))
	a.revision++
	a.state = wire.StateFailed
	a.code = CodeConnectionClosed
	m.detach(a)
}

// onRelease handles execution_release: before start it abandons only this
// admission; it never closes the idle executor nor touches a Turn.
func (m *Machine) onRelease(requestID string, r wire.ExecutionRelease) {
	if requestID == "" {
		return
	}
	if r.Handle == "" {
		m.sendRejected(requestID, wire.TypeExecutionRelease, CodeInvalidRelease, nil)
		return
	}
	a := m.conn.byHandle[r.Handle]
	if a == nil || a.requestID != requestID {
		m.sendRejected(requestID, wire.TypeExecutionRelease, CodeUnknownPreparation, nil)
		return
	}
	if m.expireIfDue(a) {
		return
	}
	if !a.live() {
		m.sendStatus(a) // already transferred or ended: republish
		return
	}
	if a.reader != "" {
		m.releaseReadOnly(a)
		return
	}
	m.cancelTimer(expiryTimer(a.handle))
	m.advance(a, wire.StateReleased, "")
	m.detach(a)
}
