package daemon

import (
	"strings"

	"github.com/turnstile-sim/turnstile/wire"
)

// turn is one native Turn the machine tracks from execution_start until
// it is settled, its executor is reused or closed, and done is published.
type turn struct {
	id        TurnID
	runID     string
	gen       ConnID // connection whose routes it was started on
	routed    bool   // its Run route on gen is still live
	executor  string
	handle    string
	requestID string

	startResolved bool // StartResult arrived
	native        bool // a native Turn exists (must be settled)
	buffered      []wire.Frame
	overflow      int

	outputClosed bool
	nativeDone   *wire.Done
	usage        *wire.Usage

	cancelRequested bool
	waiters         []string // prompt_cancel delivery IDs awaiting a receipt
	// coreCancel: Core asked for this Turn's cancel (prompt_cancel).
	coreCancel bool
	// interrupted: the daemon cancelled the Turn on its own (shutdown)
	// before any native terminal result; done then never stands alone.
	interrupted bool

	settleCall     CallID
	settled        bool
	settlement     SettleResult
	settleAttempts int
	closeRequired  bool

	inputs     map[string]*steerInput
	writing    string // input whose native write is within budget (the barrier)
	writeCalls int    // native writes outstanding, budget expired or not
}

// onStart handles execution_start: valid only for a live handle of this
// connection, issued to this request ID, with the matching executor. It
// transfers the admission once.
func (m *Machine) onStart(requestID string, s wire.ExecutionStart) {
	if requestID == "" {
		return
	}
	reject := func(code string) { m.sendRejected(requestID, wire.TypeExecutionStart, code, nil) }
	if s.Handle == "" || s.ExecutorID == "" || strings.TrimSpace(s.RunID) == "" || s.Input.Validate() != nil {
		reject(CodeInvalidStart)
		return
	}
	a := m.conn.byHandle[s.Handle]
	if a == nil || a.requestID != requestID {
		reject(CodeUnknownPreparation)
		return
	}
	if a.reader != "" {
		reject(CodeReadOnlyPreparation)
		return
	}
	if a.executor != s.ExecutorID {
		reject(CodeUnknownExecutor)
		return
	}
	fp := startFingerprint(s)
	if a.startFP != "" {
		if a.startFP == fp {
			m.sendStatus(a)
		} else {
			reject(CodeStartConflict)
		}
		return
	}
	if m.expireIfDue(a) {
		return
	}
	switch {
	case a.state == wire.StateExpired:
		m.sendStatus(a)
	case a.state != wire.StateReady:
		reject(CodePreparationNotReady)
	case m.conn.usedRuns[s.RunID]:
		reject(CodeRunConflict) // active or finished: a Run ID is used once per connection
	default:
		m.transfer(a, s, fp)
	}
}

// transfer moves the reservation to a new Turn and starts it natively.
func (m *Machine) transfer(a *admission, s wire.ExecutionStart, fp string) {
	ex := m.executors[a.executor]
	assert.That(ex != nil && ex.phase == phaseReserved && ex.handle == a.handle, "ready admission %s without reserved executor", a.handle)
	m.cancelTimer(expiryTimer(a.handle))
	t := &turn{
		id:        m.mintTurn(),
		runID:     s.RunID,
		gen:       a.gen,
		routed:    true,
		executor:  ex.id,
		handle:    a.handle,
		requestID: a.requestID,
		inputs:    map[string]*steerInput{},
	}
	m.turns[t.id] = t
	m.conn.runs[t.runID] = t
	m.conn.usedRuns[t.runID] = true
	a.startFP = fp
	a.runID = s.RunID
	a.turn = t.id
	ex.phase = phaseBusy
	ex.handle = ""
	ex.turn = t.id
	m.advance(a, wire.StateStarting, "")
	m.nativeCall(&call{kind: callStart, executor: ex.id, turn: t.id},
		StartTurn{Executor: ex.id, Turn: t.id, Run: t.runID, Input: s.Input})
}

// startDone: no Turn means no input was submitted: the executor is closed
// and the admission fails once the close has an outcome. A Turn (even with
// an error) confirms the transfer with `started`.
func (m *Machine) startDone(c *call, r StartResult) {
	t := m.turns[c.turn]
	assert.That(t != nil && !t.startResolved, "start result for unknown turn %s", c.turn)
	ex := m.executors[t.executor]
	t.startResolved = true
	if !r.Turn {
		m.unroute(t)
		delete(m.turns, t.id)
		m.forgetInteractions(t.id)
		ex.turn = ""
		ex.startFail = &startFailure{gen: t.gen, requestID: t.requestID, handle: t.handle, err: r.Err}
		m.startClose(ex)
		return
	}
	t.native = true
	if a := m.routedAdmission(t); a != nil {
		m.advance(a, wire.StateStarted, "")
	}
	for _, f := range t.buffered {
		m.forwardFrame(t, f)
	}
	t.buffered = nil
	if r.Err != "" {
		m.forward(t, wire.RunError{Error: r.Err})
		m.requestSettlement(t)
	}
	if !t.routed || m.shutdown {
		m.interrupt(t)
	}
	if t.outputClosed {
		m.requestSettlement(t)
	}
}

func (m *Machine) routedAdmission(t *turn) *admission {
	if !t.routed {
		return nil
	}
	a := m.conn.byHandle[t.handle]
	if a == nil || a.turn != t.id {
		return nil
	}
	return a
}

// onNativeEvent forwards one native event in order with the Run ID.
// Events after the native terminal result or after settlement are late
// and dropped: a successful AwaitSettlement means the output can no
// longer be written, so anything the Harness emits afterwards is a breach
// of its contract and never reaches Core (done is then built from the
// settlement's outcome). Usage snapshots replace earlier ones.
func (m *Machine) onNativeEvent(e NativeTurnEvent) {
	t := m.turns[e.Turn]
	if t == nil || t.outputClosed || t.settled || e.Event == nil {
		return
	}
	if subagentObservation(e.Event) && !m.observesSubagents(t) {
		return // not asked for, or not declared: never reaches Core
	}
	switch p := e.Event.(type) {
	case wire.UsageUpdate:
		u := p.Usage
		t.usage = &u
	case wire.Done:
		d := p
		t.nativeDone = &d
		t.outputClosed = true
		if t.native {
			m.requestSettlement(t)
		}
		return // done is published by finish, after settlement
	}
	if !m.noteNativeInteraction(t, e.Event) {
		return // an interaction or call identity is asked once
	}
	if !t.startResolved {
		if len(t.buffered) >= m.cfg.Limits.OutputFramesMax {
			t.overflow++
			return
		}
		t.buffered = append(t.buffered, wire.Frame{ID: t.runID, Payload: e.Event})
		return
	}
	m.forward(t, e.Event)
}

// subagentObservation reports whether p is a subagent observation
// (subagent_identity, subagent_lifecycle, subagent_turn, subagent_item).
func subagentObservation(p wire.Payload) bool {
	switch p.(type) {
	case wire.SubagentIdentity, wire.SubagentLifecycle, wire.SubagentTurn, wire.SubagentItem:
		return true
	}
	return false
}

// observesSubagents: t's executor was prepared with
// observe_subagent_identities under a declaration that supports
// subagent_observations (the declaration it was admitted with).
func (m *Machine) observesSubagents(t *turn) bool {
	ex := m.executors[t.executor]
	return ex != nil && ex.observeSubagents
}

func (m *Machine) forward(t *turn, p wire.Payload) {
	m.forwardFrame(t, wire.Frame{ID: t.runID, Payload: p})
}

func (m *Machine) forwardFrame(t *turn, f wire.Frame) {
	if t.routed {
		m.send(t.gen, f, 0)
	}
}

func (m *Machine) unroute(t *turn) {
	if t.routed && m.conn.runs[t.runID] == t {
		delete(m.conn.runs, t.runID)
	}
	t.routed = false
}

// orphanTurn retires a Turn's route when its connection goes: nothing of
// it reaches a successor; the native Turn is cancelled and settled.
func (m *Machine) orphanTurn(t *turn) {
	t.routed = false
	t.waiters = nil
	m.cancelTimer(settleWaitTimer(t.id))
	if t.native {
		m.requestCancel(t)
		m.requestSettlement(t)
	}
}

// requestSettlement issues AwaitSettlement unless one is outstanding or a
// retry is scheduled (settlement waits on one Turn are serial).
func (m *Machine) requestSettlement(t *turn) {
	if t.settled || t.settleCall != "" || !t.native {
		return
	}
	if _, ok := m.timers[settleRetryTimer(t.id)]; ok {
		return
	}
	c := &call{kind: callSettle, turn: t.id, executor: t.executor}
	m.nativeCall(c, AwaitSettlement{Turn: t.id})
	t.settleCall = c.id
}

func (m *Machine) settleRetryDue(id TurnID) {
	if t := m.turns[id]; t != nil {
		m.requestSettlement(t)
	}
}

// settleDone: unconfirmed settlement keeps the Turn and retries; a settled
// Turn that is not reusable needs a confirmed close before done.
func (m *Machine) settleDone(c *call, r SettleResult) {
	t := m.turns[c.turn]
	assert.That(t != nil && t.settleCall == c.id, "settlement result for unknown turn %s", c.turn)
	t.settleCall = ""
	if !r.Settled {
		t.settleAttempts++
		m.setTimer(settleRetryTimer(t.id), &timer{kind: timerSettleRetry, at: m.now.Add(m.backoff(t.settleAttempts)), turn: t.id})
		return
	}
	t.settled = true
	t.settlement = r
	t.outputClosed = true
	if !r.Reusable {
		t.closeRequired = true
		m.startClose(m.executors[t.executor])
	}
	m.maybeFinish(t)
}

// maybeFinish publishes done once the Turn is settled, every admitted
// input receipt is finished, and a required close is confirmed.
func (m *Machine) maybeFinish(t *turn) {
	if !t.settled || t.writing != "" || m.interactionsHeld(t) {
		return
	}
	ex := m.executors[t.executor]
	if t.closeRequired && ex != nil {
		return
	}
	m.finish(t, ex)
}

// finish commits continuity, releases the admission and the executor,
// and only then publishes done and the applied cancel receipts.
func (m *Machine) finish(t *turn, ex *executor) {
	outcome := t.settlement.Outcome
	if ex != nil {
		if s := continuitySession(outcome, t.nativeDone); s != "" {
			ex.nativeSession = s
		}
		m.makeIdle(ex)
	}
	delete(m.turns, t.id)
	m.forgetInteractions(t.id)
	m.cancelTimer(settleWaitTimer(t.id))
	m.cancelTimer(settleRetryTimer(t.id))
	routed := t.routed
	m.unroute(t)
	if !routed || m.conn.gen != t.gen {
		return
	}
	if t.interrupted && !t.coreCancel {
		m.send(t.gen, wire.Frame{ID: t.runID, Payload: wire.RunError{Error: InterruptedError}}, 0)
	}
	done := doneOf(t)
	if done.Usage == nil && t.usage != nil {
		u := *t.usage
		done.Usage = &u
	}
	m.send(t.gen, wire.Frame{ID: t.runID, Payload: done}, m.cfg.Limits.ReceiptSendBudget)
	for _, d := range t.waiters {
		o := outcome
		m.sendCancelAck(t.gen, t.runID, wire.InteractionDecisionAck{DeliveryID: d, Applied: true, Outcome: &o})
	}
}

// doneOf is the terminal result published for t: the native terminal
// result when the Harness emitted one before settling, else the
// settlement's continuity outcome (content, usage, metadata). A Turn that
// settled first never gets an empty, fabricated done: the settlement is
// the final word on what the Turn produced.
func doneOf(t *turn) wire.Done {
	if t.nativeDone != nil {
		return *t.nativeDone
	}
	return t.settlement.Outcome
}

func continuitySession(outcome wire.Done, native *wire.Done) string {
	if outcome.Metadata != nil && outcome.Metadata.AgentSessionID != "" {
		return outcome.Metadata.AgentSessionID
	}
	if native != nil && native.Metadata != nil {
		return native.Metadata.AgentSessionID
	}
	return ""
}
