package daemon

import (
	"slices"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

type execPhase uint8

const (
	phasePreparing execPhase = iota + 1 // native Prepare outstanding
	phaseReserved                       // ready, reserved by one admission
	phaseBusy                           // owned by a Turn
	phaseIdle                           // settled, reusable, idle-expiry armed
	phaseClosing                        // Close required; until confirmed
)

var execPhaseNames = [...]string{"", "preparing", "reserved", "busy", "idle", "closing"}

func (p execPhase) String() string { return execPhaseNames[p] }

// executor is one native executor the machine owns, bound to a Session
// and a configuration fingerprint. It stays in the table (and counts
// against the limits) until its close is confirmed.
type executor struct {
	id       string
	seq      uint64
	gen      ConnID // connection it was prepared on: never reused on another
	session  string
	kind     string
	configFP string
	caps     wire.AgentKindCapabilities // the declaration it was admitted with
	// observeSubagents: its configuration asked for subagent observations
	// (observe_subagent_identities) and its declaration supports them.
	observeSubagents bool
	phase            execPhase
	handle           string // reserving admission (preparing, reserved)
	turn             TurnID // owning Turn (busy, or closing for it)
	nativeSession    string // native identity: the one prepared to resume, then committed continuity
	idleSince        time.Time
	closeCall        CallID
	closeFailed      bool // the last close was not confirmed: uncertain
	closeAttempts    int
	startFail        *startFailure // a nil-Turn start waiting for this close
	env              string        // frozen Environment identity of its configuration
	readBlocked      bool          // an ambiguous workspace read stopped later reads
}

// startFailure is a start that returned no Turn; its admission is failed
// once the executor's close settles (executor_unavailable when confirmed).
type startFailure struct {
	gen       ConnID
	requestID string
	handle    string
	err       string
}

func (m *Machine) newExecutor(session string, k *KindConfig, fp string) *executor {
	ex := &executor{
		id:       m.mintExecutor(),
		seq:      m.seqExecutor,
		session:  session,
		kind:     k.Kind,
		configFP: fp,
		caps:     k.Capabilities,
		phase:    phasePreparing,
		gen:      m.conn.gen,
	}
	m.executors[ex.id] = ex
	return ex
}

// sessionExecutor returns the Session's executor. There is at most one
// (checked by the invariants), so the map scan is order independent.
func (m *Machine) sessionExecutor(session string) *executor {
	for _, ex := range m.executors { //tidy:sorted at most one match (checkInvariants)
		if ex.session == session {
			return ex
		}
	}
	return nil
}

// dropExecutor forgets an executor that holds no native resource.
func (m *Machine) dropExecutor(ex *executor) {
	m.cancelTimer(idleTimer(ex.id))
	m.cancelTimer(closeRetryTimer(ex.id))
	delete(m.executors, ex.id)
}

// makeIdle parks a healthy executor for reuse with its idle-expiry timer,
// or closes it when shutting down or when the connection it was prepared
// on is gone: an executor is bound to its connection and never reused by
// another (runtime-harness-protocol: 连接丢失会让其所有者和句柄退役).
func (m *Machine) makeIdle(ex *executor) {
	ex.handle = ""
	ex.turn = ""
	if m.shutdown {
		m.startClose(ex)
		return
	}
	if !m.conn.up || ex.gen != m.conn.gen {
		m.retireExecutor(ex)
		return
	}
	ex.phase = phaseIdle
	ex.idleSince = m.now
	m.setTimer(idleTimer(ex.id), &timer{kind: timerIdle, at: m.now.Add(m.cfg.Limits.IdleExpiry), executor: ex.id})
	for m.count(phaseIdle) > m.cfg.Limits.IdleExecutorsMax {
		m.evictIdle()
	}
}

// retireExecutor closes an executor whose connection is gone. The native
// session it holds is the Session's committed continuity: it is kept so
// that a later connection's prepare of the Session, on a new executor,
// resumes it rather than starting a new root (continuity.go).
func (m *Machine) retireExecutor(ex *executor) {
	m.keepContinuity(ex.session, ex.nativeSession)
	m.startClose(ex)
}

func (m *Machine) idleDue(id string) {
	if ex := m.executors[id]; ex != nil && ex.phase == phaseIdle {
		m.startClose(ex)
	}
}

// evictIdle closes the least recently idle executor, if any.
func (m *Machine) evictIdle() {
	idle := m.executorsIn(phaseIdle)
	if len(idle) == 0 {
		return
	}
	slices.SortFunc(idle, func(a, b *executor) int {
		if c := a.idleSince.Compare(b.idleSince); c != 0 {
			return c
		}
		return int(a.seq) - int(b.seq)
	})
	m.startClose(idle[0])
}

// startClose moves ex to closing and issues the close unless one is
// already outstanding (closes of one target are serial).
func (m *Machine) startClose(ex *executor) {
	m.cancelTimer(idleTimer(ex.id))
	ex.phase = phaseClosing
	ex.handle = ""
	if ex.closeCall != "" {
		return
	}
	if _, waiting := m.timers[closeRetryTimer(ex.id)]; waiting {
		return
	}
	m.issueClose(ex)
}

func (m *Machine) issueClose(ex *executor) {
	c := &call{kind: callClose, executor: ex.id}
	m.nativeCall(c, CloseExecutor{Executor: ex.id})
	ex.closeCall = c.id
}

func (m *Machine) closeRetryDue(id string) {
	ex := m.executors[id]
	if ex != nil && ex.phase == phaseClosing && ex.closeCall == "" {
		m.issueClose(ex)
	}
}

// closeDone: a confirmed close frees the executor and its slot; a failed
// one keeps the target and its slot and retries serially with backoff.
func (m *Machine) closeDone(c *call, r CloseResult) {
	ex := m.executors[c.executor]
	assert.That(ex != nil && ex.closeCall == c.id, "close result for unknown executor %s", c.executor)
	ex.closeCall = ""
	if r.Err != "" {
		ex.closeFailed = true
		ex.closeAttempts++
		m.setTimer(closeRetryTimer(ex.id), &timer{kind: timerCloseRetry, at: m.now.Add(m.backoff(ex.closeAttempts)), executor: ex.id})
		m.reportStartFailure(ex, CodeExecutorCleanupUnconfirmed)
		return
	}
	m.dropExecutor(ex)
	m.reportStartFailure(ex, CodeExecutorUnavailable)
	if t := m.turns[ex.turn]; t != nil {
		m.maybeFinish(t)
	}
}

// backoff returns the delay before retry number attempt (1-based).
func (m *Machine) backoff(attempt int) time.Duration {
	d := m.cfg.Limits.CloseRetryBackoff
	for i := 1; i < attempt && d < m.cfg.Limits.CloseRetryBackoffMax; i++ {
		d *= 2
	}
	return min(d, m.cfg.Limits.CloseRetryBackoffMax)
}

// reportStartFailure publishes the failed admission of a nil-Turn start
// once its executor close has an outcome: failed, then the rejected
// execution_start carrying handle, executor and operation.
func (m *Machine) reportStartFailure(ex *executor, code string) {
	sf := ex.startFail
	if sf == nil {
		return
	}
	ex.startFail = nil
	if !m.conn.up || m.conn.gen != sf.gen {
		return
	}
	a := m.conn.byHandle[sf.handle]
	if a == nil || a.state != wire.StateStarting {
		return
	}
	m.advance(a, wire.StateFailed, code)
	m.sendRejected(sf.requestID, wire.TypeExecutionStart, code, a)
}

func (m *Machine) executorsIn(p execPhase) []*executor {
	var out []*executor
	for _, id := range m.sortedExecutorIDs() {
		if ex := m.executors[id]; ex.phase == p {
			out = append(out, ex)
		}
	}
	return out
}

func (m *Machine) count(p execPhase) int {
	n := 0
	for _, ex := range m.executors {
		if ex.phase == p {
			n++
		}
	}
	return n
}

// activeCount counts active preparations and executions: executors being
// prepared, reserved, running a Turn, or closing for a Turn or a failed
// start. Uncertain resources count until their cleanup succeeds.
func (m *Machine) activeCount() int {
	n := m.readerCount()
	for _, ex := range m.executors {
		if ex.active() {
			n++
		}
	}
	return n
}

// active reports whether ex counts in activeCount.
func (ex *executor) active() bool {
	switch {
	case ex.phase == phasePreparing, ex.phase == phaseReserved, ex.phase == phaseBusy:
		return true
	case ex.phase == phaseClosing && (ex.turn != "" || ex.startFail != nil):
		return true
	}
	return false
}

func (m *Machine) sortedExecutorIDs() []string {
	ids := make([]string, 0, len(m.executors))
	for id := range m.executors {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, compareIDs)
	return ids
}

func sortedTurnIDs(turns map[TurnID]*turn) []TurnID {
	ids := make([]TurnID, 0, len(turns))
	for id := range turns {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b TurnID) int { return compareIDs(string(a), string(b)) })
	return ids
}

// compareIDs orders minted IDs ("ex-2" before "ex-10"): shorter first,
// then lexicographically.
func compareIDs(a, b string) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	return strings.Compare(a, b)
}
