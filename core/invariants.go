package core

import "time"

// checkInvariants asserts the machine's structural invariants after every
// Step. A violation is a bug and panics with a message.
func (m *Machine) checkInvariants() {
	m.markIndexed()
	m.checkConns()
	m.checkSessions()
	m.checkTurns()
	m.checkPreps()
	inFlight := m.checkFencing() + m.checkPreparations()
	m.checkInteractions()
	if !(len(m.timers) <= 1+len(m.conns)+len(m.sessions)+3*len(m.turns)+inFlight+len(m.decisions)+len(m.ws.byOp)+len(m.ws.writes)) {
		panicf("%d timers armed", len(m.timers))
	}
}

// markIndexed starts an invariant check: every session and Turn found
// in its map under its own ID gets the check's number, so the checks ask
// "m.turns[t.rec.ID] == t" by comparing t.indexed with m.checks rather
// than hashing the ID again for each reference to t; and it lists the
// entries of m.turns in m.live, which the checks visiting every Turn
// walk instead of the map.
func (m *Machine) markIndexed() {
	m.checks++
	for id, s := range m.sessions {
		if id == s.rec.ID {
			s.indexed = m.checks
		}
	}
	m.live = m.live[:0]
	for id, t := range m.turns { //tidy:sorted m.live feeds order-free checks: order picks only which failure is reported first
		if id == t.rec.ID {
			t.indexed = m.checks
		}
		m.live = append(m.live, liveTurn{id, t})
	}
}

// liveTurn is an entry of Machine.turns, as markIndexed lists them for
// the checks that visit every Turn.
type liveTurn struct {
	id string
	t  *turn
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
}

func (m *Machine) checkSessions() {
	queued := 0
	for _, s := range m.order {
		if !(s.indexed == m.checks) { // m.sessions[s.rec.ID] == s
			panicf("session %s order mismatch", s.rec.ID)
		}
		if !(len(s.queue) <= m.cfg.TurnsPerSessionMax) {
			panicf("session %s queue %d", s.rec.ID, len(s.queue))
		}
		for i, t := range s.queue {
			if !(t.indexed == m.checks) { // m.turns[t.rec.ID] == t
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
			if !(m.preps[p.reqID] == p) {
				panicf("session %s preparation not routed", s.rec.ID)
			}
		}
		queued += len(s.queue)
	}
	if !(len(m.order) == len(m.sessions)) {
		panicf("session order size")
	}
	if !(queued == len(m.turns)) {
		panicf("%d queued turns vs %d unfinished", queued, len(m.turns))
	}
}

func (m *Machine) checkTurns() {
	armed := 0                 // cancel timers of requested cancels
	for _, e := range m.live { // every entry of m.turns
		id, t := e.id, e.t
		r := &t.rec
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
		m.checkInputs(t)
	}
	if armed != m.cancelTimers {
		// Some armed cancel timer is not a requested cancel's: find
		// whose (checkCancelWait of a Turn without a requested cancel).
		for _, e := range m.live {
			if e.t.rec.Cancel != CancelRequested {
				m.checkCancelWait(e.id, &e.t.rec)
			}
		}
	}
	for runID, t := range m.runs {
		if !(t.rec.RunID == runID && t.indexed == m.checks) {
			panicf("stale run route %s", runID)
		}
	}
	for id, sub := range m.subs {
		t := m.turns[sub.turn]
		if !(t != nil) {
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
	for id, p := range m.preps {
		if !(p.reqID == id && m.conns[p.conn.id] == p.conn) {
			panicf("preparation %s on a dead connection", id)
		}
		if p.turn == nil {
			if !(p.handle == "" && !p.startSent) {
				panicf("abandoned preparation %s holds a handle", id)
			}
			continue
		}
		if !(p.turn.indexed == m.checks) { // m.turns[p.turn.rec.ID] == p.turn
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
