package daemon

import "github.com/turnstile-sim/turnstile/wire"

// checkInvariants runs after every Step. A violation is a bug of the
// machine and panics with a message naming the broken rule.
func (m *Machine) checkInvariants() {
	l := m.cfg.Limits
	assertf(len(m.executors) <= l.ExecutorsMax, "executors %d exceed %d", len(m.executors), l.ExecutorsMax)
	assertf(m.activeCount() <= l.ActiveMax, "active %d exceeds %d", m.activeCount(), l.ActiveMax)
	assertf(m.count(phaseIdle) <= l.IdleExecutorsMax, "idle executors exceed %d", l.IdleExecutorsMax)
	m.checkAdmissions()
	sessions := map[string]string{}
	for _, id := range m.sortedExecutorIDs() {
		ex := m.executors[id]
		other, dup := sessions[ex.session]
		assertf(!dup, "session %s has executors %s and %s", ex.session, other, id)
		sessions[ex.session] = id
		m.checkExecutor(ex)
	}
	for _, id := range sortedTurnIDs(m.turns) {
		m.checkTurn(m.turns[id])
	}
	for _, id := range m.sortedCallIDs() {
		m.checkCall(m.calls[id])
	}
}

func (m *Machine) checkAdmissions() {
	c := &m.conn
	assertf(len(c.order) <= m.cfg.Limits.AdmissionRecordsMax, "admission records %d exceed %d", len(c.order), m.cfg.Limits.AdmissionRecordsMax)
	assertf(len(c.byHandle) == len(c.order) && len(c.byRequest) == len(c.order), "admission indexes disagree")
	assertf(c.up || len(c.order) == 0 && len(c.runs) == 0, "records or routes on a connection that is down")
	for _, a := range c.order {
		assertf(c.byHandle[a.handle] == a && c.byRequest[a.requestID] == a, "admission %s not indexed", a.handle)
		assertf(a.gen == c.gen, "admission %s of generation %d on %d", a.handle, a.gen, c.gen)
		assertf(a.revision > 0, "admission %s without revision", a.handle)
		if a.live() {
			ex := m.executors[a.executor]
			assertf(ex != nil && ex.handle == a.handle, "live admission %s lost executor %s", a.handle, a.executor)
			wantPhase := phaseReserved
			if a.state == wire.StatePreparing {
				wantPhase = phasePreparing
			}
			assertf(ex.phase == wantPhase, "admission %s %s but executor %s", a.handle, a.state, ex.phase)
		}
	}
	for run, t := range c.runs {
		assertf(t.routed && t.runID == run && t.gen == c.gen && m.turns[t.id] == t, "stale route for run %s", run)
	}
}

func (m *Machine) checkExecutor(ex *executor) {
	switch ex.phase {
	case phaseReserved:
		a := m.admissionOf(ex.handle)
		assertf(a != nil && a.state == wire.StateReady && a.executor == ex.id, "reserved executor %s without ready admission", ex.id)
	case phaseBusy:
		t := m.turns[ex.turn]
		assertf(t != nil && t.executor == ex.id, "busy executor %s without its turn", ex.id)
	case phaseIdle:
		assertf(ex.handle == "" && ex.turn == "", "idle executor %s still owned", ex.id)
		_, armed := m.timers[idleTimer(ex.id)]
		assertf(armed, "idle executor %s without idle expiry", ex.id)
	case phaseClosing:
		_, retry := m.timers[closeRetryTimer(ex.id)]
		assertf((ex.closeCall != "") != retry, "closing executor %s must have exactly one of a close call or a retry", ex.id)
	case phasePreparing:
	default:
		panic("daemon: executor in unknown phase")
	}
}

func (m *Machine) checkTurn(t *turn) {
	ex := m.executors[t.executor]
	assertf(ex != nil && ex.turn == t.id, "turn %s lost executor %s", t.id, t.executor)
	assertf(ex.phase == phaseBusy || ex.phase == phaseClosing && t.closeRequired, "turn %s on executor in phase %s", t.id, ex.phase)
	assertf(!t.settled || t.native, "turn %s settled without a native turn", t.id)
	assertf(t.startResolved || len(t.inputs) == 0, "turn %s has inputs before start", t.id)
	assertf(t.settleCall == "" || !t.settled, "turn %s settled with a settlement call outstanding", t.id)
	assertf(len(t.buffered) <= m.cfg.Limits.OutputFramesMax, "turn %s buffered beyond the output bound", t.id)
	if t.routed {
		assertf(m.conn.up && m.conn.gen == t.gen && m.conn.runs[t.runID] == t, "turn %s routed without its route", t.id)
	} else {
		assertf(len(t.waiters) == 0, "unrouted turn %s keeps receipt waiters", t.id)
	}
	if t.writing != "" {
		in := t.inputs[t.writing]
		assertf(in != nil && (in.state == inputWriting || in.state == inputAccepted), "turn %s write barrier on input in state %v", t.id, in)
	}
}

func (m *Machine) checkCall(c *call) {
	switch c.kind {
	case callPrepare:
		ex := m.executors[c.executor]
		assertf(ex != nil && ex.phase == phasePreparing, "prepare call %s without preparing executor", c.id)
	case callStart:
		t := m.turns[c.turn]
		assertf(t != nil && !t.startResolved, "start call %s without starting turn", c.id)
	case callSettle:
		t := m.turns[c.turn]
		assertf(t != nil && t.settleCall == c.id, "settle call %s without its turn", c.id)
	case callClose:
		ex := m.executors[c.executor]
		assertf(ex != nil && ex.closeCall == c.id && ex.phase == phaseClosing, "close call %s without closing executor", c.id)
	}
}
