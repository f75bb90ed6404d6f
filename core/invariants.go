package core

// checkInvariants asserts the machine's structural invariants after every
// Step. A violation is a bug and panics with a message.
func (m *Machine) checkInvariants() {
	m.checkConns()
	m.checkSessions()
	m.checkTurns()
	m.checkPreps()
	assert(len(m.timers) <= 1+len(m.conns)+len(m.sessions)+3*len(m.turns),
		"%d timers armed", len(m.timers))
}

func (m *Machine) checkConns() {
	for id, c := range m.conns {
		d := m.devices[c.device]
		assert(d != nil && d.conn == id, "%s is not its device's current connection", id)
		assert(c.preps >= 0 && c.runs >= 0, "%s negative counts", id)
		assert(c.preps <= m.cfg.PreparationsPerConnMax, "%s holds %d preparations", id, c.preps)
	}
	for id, d := range m.devices {
		assert(d.conn == 0 || m.conns[d.conn] != nil, "device %s points at dead %s", id, d.conn)
	}
	assert(len(m.devices) <= m.cfg.DevicesMax, "%d devices", len(m.devices))
}

func (m *Machine) checkSessions() {
	queued := 0
	for _, s := range m.order {
		assert(m.sessions[s.rec.ID] == s, "session %s order mismatch", s.rec.ID)
		assert(len(s.queue) <= m.cfg.TurnsPerSessionMax, "session %s queue %d", s.rec.ID, len(s.queue))
		for i, t := range s.queue {
			assert(m.turns[t.rec.ID] == t, "session %s queues finished turn %s", s.rec.ID, t.rec.ID)
			assert(i == 0 || t.rec.Seq > s.queue[i-1].rec.Seq, "session %s queue not FIFO", s.rec.ID)
			// One active Turn per session: only the head may be claimed or preparing.
			assert(i == 0 || t.rec.State == TurnQueued, "session %s: turn %s active behind the head", s.rec.ID, t.rec.ID)
		}
		if p := s.prep; p != nil {
			assert(len(s.queue) > 0 && p.turn == s.queue[0], "session %s prepares a non-head turn", s.rec.ID)
			assert(m.preps[p.reqID] == p, "session %s preparation not routed", s.rec.ID)
		}
		queued += len(s.queue)
	}
	assert(len(m.order) == len(m.sessions), "session order size")
	assert(queued == len(m.turns), "%d queued turns vs %d unfinished", queued, len(m.turns))
}

func (m *Machine) checkTurns() {
	for id, t := range m.turns {
		r := &t.rec
		assert(!r.State.Terminal(), "terminal turn %s still live", id)
		claimed := r.State == TurnStarting || r.State == TurnRunning
		assert(claimed == (r.RunID != ""), "turn %s state %s with run ID %q", id, r.State, r.RunID)
		assert(!claimed || (t.conn != nil && m.runs[r.RunID] == t && m.conns[t.conn.id] == t.conn),
			"claimed turn %s without a live route", id)
		assert(claimed || t.conn == nil, "unclaimed turn %s routed", id)
		assert(r.Cancel == CancelNone || claimed, "turn %s cancel %s while %s", id, r.Cancel, r.State)
		assert(r.Done == nil || r.Cancel == CancelRequested, "turn %s live after done", id)
		m.checkInputs(t)
	}
	for runID, t := range m.runs {
		assert(t.rec.RunID == runID && m.turns[t.rec.ID] == t, "stale run route %s", runID)
	}
	for id, sub := range m.subs {
		t := m.turns[sub.turn]
		assert(t != nil, "subscriber %s of finished turn %s", id, sub.turn)
	}
}

// checkInputs: accepted inputs form the prefix below the cursor; at most
// the input at the cursor is in flight; nothing after it was delivered.
func (m *Machine) checkInputs(t *turn) {
	r := &t.rec
	assert(r.InputCursor >= 0 && r.InputCursor <= len(t.inputs), "turn %s cursor %d of %d", r.ID, r.InputCursor, len(t.inputs))
	for i, in := range t.inputs {
		assert(in.Index == i+1, "turn %s input %d index %d", r.ID, i, in.Index)
		switch {
		case i < r.InputCursor:
			assert(in.State == InputAccepted, "turn %s input %s below cursor is %s", r.ID, in.ID, in.State)
		case i == r.InputCursor:
			assert(in.State != InputAccepted && in.State != InputNotDelivered, "turn %s input %s at cursor is %s", r.ID, in.ID, in.State)
			assert(in.State == InputQueued || r.State == TurnRunning, "turn %s delivered input while %s", r.ID, r.State)
		default:
			assert(in.State == InputQueued && in.Sends == 0, "turn %s input %s after cursor is %s", r.ID, in.ID, in.State)
		}
	}
	assert(!t.retrying || m.armed(timerID(timerSteerRetry, r.ID)), "turn %s retrying without timer", r.ID)
}

func (m *Machine) checkPreps() {
	for id, p := range m.preps {
		assert(p.reqID == id && m.conns[p.conn.id] == p.conn, "preparation %s on a dead connection", id)
		if p.turn == nil {
			assert(p.handle == "" && !p.startSent, "abandoned preparation %s holds a handle", id)
			continue
		}
		assert(m.turns[p.turn.rec.ID] == p.turn, "preparation %s of finished turn", id)
		assert(p.sess.prep == p, "preparation %s not its session's", id)
		assert(p.startSent == (p.turn.rec.State != TurnQueued), "preparation %s startSent=%v while %s", id, p.startSent, p.turn.rec.State)
	}
}
