package daemon

import "github.com/turnstile-sim/turnstile/wire"

// checkInvariants runs after every Step. A violation is a bug of the
// machine and panics with a message naming the broken rule.
func (m *Machine) checkInvariants() {
	l := m.cfg.Limits
	active, idle, twin := m.executorTally()
	if !(len(m.executors) <= l.ExecutorsMax) {
		panicf("executors %d exceed %d", len(m.executors), l.ExecutorsMax)
	}
	if !(active <= l.ActiveMax) {
		panicf("active %d exceeds %d", active, l.ActiveMax)
	}
	if !(idle <= l.IdleExecutorsMax) {
		panicf("idle executors exceed %d", l.IdleExecutorsMax)
	}
	if !(len(m.continuity) <= l.ExecutorsMax) {
		panicf("kept native identities %d exceed %d", len(m.continuity), l.ExecutorsMax)
	}
	m.checkAdmissions()
	// Each check is independent of the others, so map order only decides
	// which of several violations is reported first.
	if twin != nil {
		m.checkSessionUnique(twin)
	}
	for _, ex := range m.executors {
		m.checkExecutor(ex)
	}
	for _, t := range m.turns {
		m.checkTurn(t)
	}
	for _, c := range m.calls {
		m.checkCall(c)
	}
	m.checkWorkspace()
}

// executorTally walks the executors once for checkInvariants: it returns
// activeCount, count(phaseIdle) and the first executor sharing its
// Session with one walked before it (a Session has at most one executor:
// reuse and the conflict rules depend on it), or nil.
func (m *Machine) executorTally() (active, idle int, twin *executor) {
	active = m.readerCount()
	var buf [16]string
	seen := buf[:0]
	for _, ex := range m.executors { //tidy:sorted seen only answers membership; a twin is reported only when some Session has two executors
		if ex.active() {
			active++
		}
		if ex.phase == phaseIdle {
			idle++
		}
		if twin == nil {
			for _, s := range seen {
				if s == ex.session {
					twin = ex
				}
			}
			seen = append(seen, ex.session)
		}
	}
	return active, idle, twin
}

// checkSessionUnique panics unless ex is its Session's only executor.
func (m *Machine) checkSessionUnique(ex *executor) {
	n := 0
	for _, other := range m.executors {
		if other.session == ex.session {
			n++
		}
	}
	if n != 1 {
		panicf("session %s has %d executors", ex.session, n)
	}
}

func (m *Machine) checkAdmissions() {
	c := &m.conn
	if !(len(c.order) <= m.cfg.Limits.AdmissionRecordsMax) {
		panicf("admission records %d exceed %d", len(c.order), m.cfg.Limits.AdmissionRecordsMax)
	}
	if !(len(c.byHandle) == len(c.order) && len(c.byRequest) == len(c.order)) {
		panicf("admission indexes disagree")
	}
	if !(c.up || len(c.order) == 0 && len(c.runs) == 0) {
		panicf("records or routes on a connection that is down")
	}
	for _, a := range c.order {
		if !(c.byHandle[a.handle] == a && c.byRequest[a.requestID] == a) {
			panicf("admission %s not indexed", a.handle)
		}
		if !(a.gen == c.gen) {
			panicf("admission %s of generation %d on %d", a.handle, a.gen, c.gen)
		}
		if !(a.revision > 0) {
			panicf("admission %s without revision", a.handle)
		}
		if a.live() && a.reader == "" {
			ex := m.executors[a.executor]
			if !(ex != nil && ex.handle == a.handle) {
				panicf("live admission %s lost executor %s", a.handle, a.executor)
			}
			wantPhase := phaseReserved
			if a.state == wire.StatePreparing {
				wantPhase = phasePreparing
			}
			if !(ex.phase == wantPhase) {
				panicf("admission %s %s but executor %s", a.handle, a.state, ex.phase)
			}
		}
	}
	for run, t := range c.runs {
		if !(t.routed && t.runID == run && t.gen == c.gen && m.turns[t.id] == t) {
			panicf("stale route for run %s", run)
		}
	}
}

func (m *Machine) checkExecutor(ex *executor) {
	switch ex.phase {
	case phaseReserved:
		a := m.admissionOf(ex.handle)
		if !(a != nil && a.state == wire.StateReady && a.executor == ex.id) {
			panicf("reserved executor %s without ready admission", ex.id)
		}
	case phaseBusy:
		t := m.turns[ex.turn]
		if !(t != nil && t.executor == ex.id) {
			panicf("busy executor %s without its turn", ex.id)
		}
	case phaseIdle:
		if !(ex.handle == "" && ex.turn == "") {
			panicf("idle executor %s still owned", ex.id)
		}
		// While connected, an idle executor is the live connection's. One
		// left idle by a lost connection is judged by the campaign
		// (executor_connection_bound), which the wire shows.
		if !(!m.conn.up || ex.gen == m.conn.gen) {
			panicf("idle executor %s of connection %d outlives it (current %d)", ex.id, ex.gen, m.conn.gen)
		}
		armed := m.timerArmed("idle/", ex.id) // idleTimer(ex.id)
		if !(armed) {
			panicf("idle executor %s without idle expiry", ex.id)
		}
	case phaseClosing:
		retry := m.timerArmed("close-retry/", ex.id) // closeRetryTimer(ex.id)
		if !((ex.closeCall != "") != retry) {
			panicf("closing executor %s must have exactly one of a close call or a retry", ex.id)
		}
	case phasePreparing:
	default:
		panic("daemon: executor in unknown phase")
	}
}

func (m *Machine) checkTurn(t *turn) {
	ex := m.executors[t.executor]
	switch {
	case ex == nil:
		// Only a confirmed required close removes a Turn's executor before
		// the Turn finishes (it then waits for its input receipts).
		if !(t.settled && t.closeRequired && (t.writing != "" || m.interactionsHeld(t))) {
			panicf("turn %s lost executor %s", t.id, t.executor)
		}
	case ex.turn != t.id:
		panicf("turn %s executor %s owned by %q", t.id, t.executor, ex.turn)
	case !(ex.phase == phaseBusy || ex.phase == phaseClosing && t.closeRequired):
		panicf("turn %s on executor in phase %s", t.id, ex.phase)
	}
	if !(!t.settled || t.native) {
		panicf("turn %s settled without a native turn", t.id)
	}
	if !(t.startResolved || len(t.inputs) == 0) {
		panicf("turn %s has inputs before start", t.id)
	}
	if !(t.settleCall == "" || !t.settled) {
		panicf("turn %s settled with a settlement call outstanding", t.id)
	}
	if !(len(t.buffered) <= m.cfg.Limits.OutputFramesMax) {
		panicf("turn %s buffered beyond the output bound", t.id)
	}
	if t.routed {
		if !(m.conn.up && m.conn.gen == t.gen && m.conn.runs[t.runID] == t) {
			panicf("turn %s routed without its route", t.id)
		}
	} else {
		if !(len(t.waiters) == 0) {
			panicf("unrouted turn %s keeps receipt waiters", t.id)
		}
	}
	if t.writing != "" {
		in := t.inputs[t.writing]
		if !(in != nil && (in.state == inputWriting || in.state == inputAccepted)) {
			panicf("turn %s write barrier on input in state %v", t.id, in)
		}
	}
}

func (m *Machine) checkCall(c *call) {
	switch c.kind {
	case callPrepare:
		ex := m.executors[c.executor]
		if !(ex != nil && ex.phase == phasePreparing) {
			panicf("prepare call %s without preparing executor", c.id)
		}
	case callStart:
		t := m.turns[c.turn]
		if !(t != nil && !t.startResolved) {
			panicf("start call %s without starting turn", c.id)
		}
	case callSettle:
		t := m.turns[c.turn]
		if !(t != nil && t.settleCall == c.id) {
			panicf("settle call %s without its turn", c.id)
		}
	case callDecision:
		t := m.turns[c.turn]
		applying := c.ix != nil && c.ix.state == ixApplying
		if !(t != nil && applying && m.interactionsHeld(t)) {
			panicf("decision call %s without its held interaction", c.id)
		}
	case callClose:
		ex := m.executors[c.executor]
		if !(ex != nil && ex.closeCall == c.id && ex.phase == phaseClosing) {
			panicf("close call %s without closing executor", c.id)
		}
	}
}

// timerArmed reports whether the timer prefix+subject is armed, looked up
// without allocating its ID (the invariants run after every step).
func (m *Machine) timerArmed(prefix, subject string) bool {
	var buf [128]byte
	_, ok := m.timers[TimerID(append(append(buf[:0], prefix...), subject...))]
	return ok
}
