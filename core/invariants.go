package core

import "time"

// checkInvariants asserts the machine's structural invariants after every
// Step. A violation is a bug and panics with a message.
//
// The maps of Sessions, Turns, preparations and subscribers are walked
// through the slices kept beside them: m.order holds the values of
// m.sessions, m.turnList those of m.turns, m.prepList those of m.preps,
// m.subList those of m.subs, each value at its slot, entered under its
// key (addSession, addTurn, removeTurn, addPrep, dropPrep, addSub, dropSub
// are the only writers of the maps, the slices and the keys and slots;
// TestIndexWriters holds them to it). With a slice as long
// as its map and every value at its slot under a key still equal to its
// record's ID (checkIndexes, and the walks of checkSessions, checkTurns
// and checkPreps), a value is an entry of the map under its own ID exactly
// when it sits at its slot of the slice (hasTurn, hasPrep): the slices
// hold distinct values (one slot each), the map's entries are the slice's
// (key, value) pairs (a key entered twice leaves the slice longer than
// the map), and a slice is walked and indexed at a fraction of the cost
// of a map's walk or hash.
func (m *Machine) checkInvariants() {
	m.checkIndexes()
	m.checkConns()
	m.checkSessions()
	m.checkTurns()
	m.checkPreps()
	inFlight := m.checkFencing() + m.checkPreparations()
	m.checkInteractions()
	if !(len(m.timers) <= 1+2*len(m.conns)+len(m.devices)+len(m.sessions)+3*len(m.turns)+inFlight+len(m.decisions)+len(m.ws.byOp)+len(m.ws.writes)) {
		panicf("%d timers armed", len(m.timers))
	}
}

// checkIndexes: each slice is as long as its map.
func (m *Machine) checkIndexes() {
	if !(len(m.order) == len(m.sessions)) {
		panicf("session order size")
	}
	if !(len(m.turnList) == len(m.turns)) {
		panicf("%d listed turns vs %d unfinished", len(m.turnList), len(m.turns))
	}
	if !(len(m.prepList) == len(m.preps)) {
		panicf("%d listed preparations vs %d open", len(m.prepList), len(m.preps))
	}
	if !(len(m.subList) == len(m.subs)) {
		panicf("%d listed subscribers vs %d", len(m.subList), len(m.subs))
	}
}

// hasTurn reports whether t sits at its slot of m.turnList: within
// checkInvariants, whether m.turns[t.rec.ID] == t.
func (m *Machine) hasTurn(t *turn) bool {
	return uint(t.slot) < uint(len(m.turnList)) && m.turnList[t.slot] == t
}

// hasPrep reports whether p sits at its slot of m.prepList: within
// checkInvariants, whether m.preps[p.reqID] == p.
func (m *Machine) hasPrep(p *preparation) bool {
	return uint(p.slot) < uint(len(m.prepList)) && m.prepList[p.slot] == p
}

// addSession enters s in m.sessions under its ID and at the end of m.order.
func (m *Machine) addSession(s *session) {
	s.key, s.slot = s.rec.ID, len(m.order)
	m.sessions[s.key] = s
	m.order = append(m.order, s)
}

// addTurn enters t in m.turns under its ID and at the end of m.turnList.
func (m *Machine) addTurn(t *turn) {
	t.key, t.slot = t.rec.ID, len(m.turnList)
	m.turns[t.key] = t
	m.turnList = append(m.turnList, t)
}

// removeTurn deletes t from m.turns and m.turnList, moving the last
// Turn of the list into t's slot.
func (m *Machine) removeTurn(t *turn) {
	delete(m.turns, t.key)
	if i, n := t.slot, len(m.turnList)-1; i >= 0 && i <= n && m.turnList[i] == t {
		last := m.turnList[n]
		m.turnList[i], last.slot = last, i
		m.turnList[n] = nil
		m.turnList = m.turnList[:n]
	}
	t.slot = -1
}

func (m *Machine) checkConns() {
	for id, c := range m.conns {
		d := m.devices[c.device]
		if !(d != nil && d.conn == id) {
			panicf("%s is not its device's current connection", id)
		}
		if !(c.preps >= 0 && c.runs >= 0) {
			panicf("%s negative counts", id)
		}
		if !(c.preps <= m.cfg.PreparationsPerConnMax) {
			panicf("%s holds %d preparations", id, c.preps)
		}
	}
	for id, d := range m.devices {
		if !(d.conn == 0 || m.conns[d.conn] != nil) {
			panicf("device %s points at dead %s", id, d.conn)
		}
	}
	if !(len(m.devices) <= m.cfg.DevicesMax) {
		panicf("%d devices", len(m.devices))
	}
	// m.deviceList holds the values of m.devices in ascending ID order
	// (selectConn walks it): as many, each under its ID, ascending.
	if !(len(m.deviceList) == len(m.devices)) {
		panicf("%d listed devices vs %d", len(m.deviceList), len(m.devices))
	}
	for i, d := range m.deviceList {
		if !(m.devices[d.id] == d && (i == 0 || m.deviceList[i-1].id < d.id)) {
			panicf("device %s listed out of place", d.id)
		}
	}
}

func (m *Machine) checkSessions() {
	queued, held := 0, 0
	for i, s := range m.order { // every value of m.sessions
		if !(s.slot == i && s.key == s.rec.ID) {
			panicf("session %s order mismatch", s.rec.ID)
		}
		if !(m.isReady(i) == s.schedulable()) {
			panicf("session %s ready mark %v, schedulable %v", s.rec.ID, m.isReady(i), s.schedulable())
		}
		if !(len(s.queue) <= m.cfg.TurnsPerSessionMax) {
			panicf("session %s queue %d", s.rec.ID, len(s.queue))
		}
		for i, t := range s.queue {
			if !(m.hasTurn(t)) { // m.turns[t.rec.ID] == t
				panicf("session %s queues finished turn %s", s.rec.ID, t.rec.ID)
			}
			if !(i == 0 || t.rec.Seq > s.queue[i-1].rec.Seq) {
				panicf("session %s queue not FIFO", s.rec.ID)
			}
			// One active Turn per session: only the head may be claimed or preparing.
			if !(i == 0 || t.rec.State == TurnQueued) {
				panicf("session %s: turn %s active behind the head", s.rec.ID, t.rec.ID)
			}
		}
		if p := s.prep; p != nil {
			if !(len(s.queue) > 0 && p.turn == s.queue[0]) {
				panicf("session %s prepares a non-head turn", s.rec.ID)
			}
			if !(m.hasPrep(p)) { // m.preps[p.reqID] == p
				panicf("session %s preparation not routed", s.rec.ID)
			}
		}
		queued += len(s.queue)
		if !(s.wsHeld >= 0 && s.wsSeen == 0) {
			panicf("session %s workspace reservations %d (count %d)", s.rec.ID, s.wsHeld, s.wsSeen)
		}
		held += s.wsHeld
	}
	m.checkWorkspaceHeld(held)
	if !(queued == len(m.turns)) {
		panicf("%d queued turns vs %d unfinished", queued, len(m.turns))
	}
	if !(len(m.ready) <= len(m.order)) {
		panicf("%d ready marks for %d sessions", len(m.ready), len(m.order))
	}
}

func (m *Machine) checkTurns() {
	armed := 0                     // cancel timers of requested cancels
	for i, t := range m.turnList { // every value of m.turns
		id, r := t.key, &t.rec
		if !(t.slot == i && id == r.ID) {
			panicf("turn %s listed at %d under %s", r.ID, t.slot, id)
		}
		if !(!r.State.Terminal()) {
			panicf("terminal turn %s still live", id)
		}
		claimed := r.State == TurnStarting || r.State == TurnRunning
		if !(claimed == (r.RunID != "")) {
			panicf("turn %s state %s with run ID %q", id, r.State, r.RunID)
		}
		if !(!claimed || (t.conn != nil && m.runs[r.RunID] == t && m.conns[t.conn.id] == t.conn)) {
			panicf("claimed turn %s without a live route", id)
		}
		if !(claimed || t.conn == nil) {
			panicf("unclaimed turn %s routed", id)
		}
		if !(r.Cancel == CancelNone || claimed) {
			panicf("turn %s cancel %s while %s", id, r.Cancel, r.State)
		}
		if !(r.Done == nil || r.Cancel == CancelRequested) {
			panicf("turn %s live after done", id)
		}
		if r.Cancel == CancelRequested {
			armed += m.checkCancelWait(id, r)
		} else if r.Cancel != CancelNone || r.CancelAnswered {
			m.checkCancelNone(id, r) // a Turn that never asked to cancel passes it at once
		}
		if !(r.Cancel == CancelNone || r.CancelDeliveryID == cancelDeliveryID(r.RunID, r.CancelAttempts)) {
			panicf("turn %s cancel delivery ID %q after %d attempts", id, r.CancelDeliveryID, r.CancelAttempts)
		}
		if len(t.inputs) > 0 || r.InputCursor != 0 || t.retrying {
			m.checkInputs(t) // without inputs, a cursor at 0 and no retry, it holds
		}
		m.checkTurnInteractions(t)
	}
	if armed != m.cancelTimers {
		// Some armed cancel timer is not a requested cancel's: find
		// whose (checkCancelWait of a Turn without a requested cancel).
		for _, t := range m.turnList {
			if t.rec.Cancel != CancelRequested {
				m.checkCancelWait(t.key, &t.rec)
			}
		}
	}
	for runID, t := range m.runs {
		if !(t.rec.RunID == runID && m.hasTurn(t)) {
			panicf("stale run route %s", runID)
		}
	}
	for i, sub := range m.subList { // every value of m.subs
		id := sub.key
		if !(sub.slot == i && id == sub.id) {
			panicf("subscriber %s listed at %d under %s", sub.id, sub.slot, id)
		}
		// m.turns[sub.turn] != nil: sub.t is found there under its ID.
		if !(sub.t != nil && m.hasTurn(sub.t) && sub.t.rec.ID == sub.turn) {
			panicf("subscriber %s of finished turn %s", id, sub.turn)
		}
	}
}

// checkCancelWait: a requested cancel always has its confirmation timer
// armed at its CancelDeadline (never restarted by an attempt). Its latest
// attempt awaits exactly one thing: its receipt (not answered) or, after
// not_ready (answered), the next attempt, armed strictly before the
// deadline, or the deadline alone when the retry delay would reach it.
//
// It returns how many cancel timers of the Turn are armed. checkTurns
// calls it for every requested cancel, and for the other Turns only when
// the machine has more cancel timers armed than the requested cancels
// hold (cancelTimers): otherwise none of theirs is armed, and
// checkCancelNone judges them with both timers disarmed.
func (m *Machine) checkCancelWait(id string, r *TurnRecord) int {
	confirmAt, confirming := m.timerAt(timerCancel, id)
	retryAt, retrying := m.timerAt(timerCancelRetry, id)
	m.judgeCancelWait(id, r, confirmAt, confirming, retryAt, retrying)
	n := 0
	if confirming {
		n++
	}
	if retrying {
		n++
	}
	return n
}

// checkCancelNone is checkCancelWait of a Turn whose cancel timers are
// known to be disarmed.
func (m *Machine) checkCancelNone(id string, r *TurnRecord) {
	m.judgeCancelWait(id, r, time.Time{}, false, time.Time{}, false)
}

func (m *Machine) judgeCancelWait(id string, r *TurnRecord, confirmAt time.Time, confirming bool, retryAt time.Time, retrying bool) {
	requested := r.Cancel == CancelRequested
	if !(requested == confirming && (!confirming || confirmAt.Equal(r.CancelDeadline))) {
		panicf("turn %s cancel %s with confirmation timer %v at %v, deadline %v",
			id, r.Cancel, confirming, confirmAt, r.CancelDeadline)
	}
	if !(r.Cancel == CancelNone || !r.CancelDeadline.IsZero()) {
		panicf("turn %s cancel %s without a deadline", id, r.Cancel)
	}
	if !(!r.CancelAnswered || requested) || !(!retrying || r.CancelAnswered) {
		panicf("turn %s cancel %s answered %v with retry timer %v", id, r.Cancel, r.CancelAnswered, retrying)
	}
	if !(!retrying || retryAt.Before(r.CancelDeadline)) {
		panicf("turn %s cancel retry at %v, not before its deadline %v", id, retryAt, r.CancelDeadline)
	}
	if !(!r.CancelAnswered || retrying || !m.now.Add(m.cfg.CancelRetryDelay).Before(r.CancelDeadline)) {
		panicf("turn %s cancel answered without a retry before its deadline %v", id, r.CancelDeadline)
	}
}

// checkInputs: accepted inputs form the prefix below the cursor; at most
// the input at the cursor is in flight; nothing after it was delivered.
func (m *Machine) checkInputs(t *turn) {
	r := &t.rec
	if !(r.InputCursor >= 0 && r.InputCursor <= len(t.inputs)) {
		panicf("turn %s cursor %d of %d", r.ID, r.InputCursor, len(t.inputs))
	}
	for i, in := range t.inputs {
		if !(in.Index == i+1) {
			panicf("turn %s input %d index %d", r.ID, i, in.Index)
		}
		switch {
		case i < r.InputCursor:
			if !(in.State == InputAccepted) {
				panicf("turn %s input %s below cursor is %s", r.ID, in.ID, in.State)
			}
		case i == r.InputCursor:
			if !(in.State != InputAccepted && in.State != InputNotDelivered) {
				panicf("turn %s input %s at cursor is %s", r.ID, in.ID, in.State)
			}
			if !(in.State == InputQueued || r.State == TurnRunning) {
				panicf("turn %s delivered input while %s", r.ID, r.State)
			}
		default:
			if !(in.State == InputQueued && in.Sends == 0) {
				panicf("turn %s input %s after cursor is %s", r.ID, in.ID, in.State)
			}
		}
	}
	if !(!t.retrying || m.armed(timerID(timerSteerRetry, r.ID))) {
		panicf("turn %s retrying without timer", r.ID)
	}
}

func (m *Machine) checkPreps() {
	for i, p := range m.prepList { // every value of m.preps
		id := p.key
		if !(p.slot == i && id == p.reqID) {
			panicf("preparation %s listed at %d under %s", p.reqID, p.slot, id)
		}
		if !(m.conns[p.conn.id] == p.conn) {
			panicf("preparation %s on a dead connection", id)
		}
		if p.turn == nil {
			if !(p.handle == "" && !p.startSent || p.handle != "" && p.startSent) {
				panicf("abandoned preparation %s holds a handle", id)
			}
			if !(p.sess.prep != p) {
				panicf("abandoned preparation %s still its session's", id)
			}
			continue
		}
		if !(m.hasTurn(p.turn)) { // m.turns[p.turn.rec.ID] == p.turn
			panicf("preparation %s of finished turn", id)
		}
		if !(p.sess.prep == p) {
			panicf("preparation %s not its session's", id)
		}
		if !(p.startSent == (p.turn.rec.State != TurnQueued)) {
			panicf("preparation %s startSent=%v while %s", id, p.startSent, p.turn.rec.State)
		}
	}
}

// timerAt is the instant timer kind:subject is armed at, looked up
// without allocating its ID (checkInvariants runs after every step).
func (m *Machine) timerAt(kind, subject string) (time.Time, bool) {
	var buf [128]byte
	b := append(append(append(buf[:0], kind...), ':'), subject...)
	at, ok := m.timers[TimerID(b)]
	return at, ok
}
