package check

import "github.com/turnstile-sim/turnstile/wire"

// Checks: fencing_reply, fencing_in_flight, fencing_quiesced_work,
// fencing_double_resume (rules.go), from the wire only. A daemon answers
// every request that reached it, whoever put it on the wire (a replayed
// copy, one in flight when Core closed). A request whose reply wait ended
// is no longer in flight. A suspension Core opened fences the device for
// Core (a prepare retry held back is excused) until a refused quiesce or
// an accepted resume reaches Core within the reply wait.

// fenceMsg is a fencing request (environment_quiesce, environment_resume)
// or reply (environment_quiesced, environment_resumed).
type fenceMsg struct {
	reply, quiesce, accepted, rollback bool
	env, suspend, code                 string
}

func fenceMsgOf(p wire.Payload) (fenceMsg, bool) {
	switch p := p.(type) {
	case wire.EnvironmentQuiesce:
		return fenceMsg{quiesce: true, env: p.EnvironmentID, suspend: p.SuspendID, rollback: p.Rollback}, true
	case wire.EnvironmentResume:
		return fenceMsg{env: p.EnvironmentID, suspend: p.SuspendID, rollback: p.Rollback}, true
	case wire.EnvironmentQuiesced:
		return fenceMsg{reply: true, quiesce: true, env: p.EnvironmentID, suspend: p.SuspendID, accepted: p.Accepted, code: p.ErrorCode}, true
	case wire.EnvironmentResumed:
		return fenceMsg{reply: true, env: p.EnvironmentID, suspend: p.SuspendID, accepted: p.Accepted, code: p.ErrorCode}, true
	}
	return fenceMsg{}, false
}

// ends reports whether a reply ends its suspension for Core: a refused
// quiesce or an accepted resume.
func (m fenceMsg) ends() bool { return m.reply && m.accepted != m.quiesce }

type fenceRequest struct {
	fenceMsg
	forged   bool // reached the daemon as a forged frame
	conn     uint64
	deadline int64 // the end of Core's reply wait
}

type fencingState struct {
	requests map[string]*fenceRequest  // Core's, by Envelope ID
	inFlight map[uint64]int            // Core's unanswered requests per connection
	fenced   map[string]fence          // device → its accepted quiesce, until resumed
	arrived  map[string]int            // device/kind/request → event count at arrival
	resumed  map[string]bool           // suspend_id whose accepted resume reached Core
	reached  map[string][]fenceRequest // conn/Envelope ID → requests delivered there, unanswered (forged too)
	events   int
	busy     fenceBusy         // fencing_busy.go
	open     map[string]bool   // suspensions fencing a device for Core
	envOf    map[string]string // suspend_id → its Environment, as Core sent it (fencing_once.go)
	lifted   map[string]string // device → the suspension whose accepted resume last lifted its fence
}

// fence is a daemon's accepted quiesce: its suspend_id, and the event
// count at the quiesce (requests arriving later are new work).
type fence struct {
	suspend string
	since   int
}

func (l *Ledger) observeFencing(ev WireEvent) {
	s := &l.fencing
	if ev.Hostile() {
		if ev.Forged && ev.Kind == WireDelivered && ev.From == CoreNode && ev.To != RogueNode && ev.HasFrame() {
			l.fencingReached(ev) // the honest daemon answers what reached it
			l.fencingForgedArrival(ev)
			l.transferForgedCommit(ev)
		}
		return
	}
	s.events++
	if ev.Kind == WireClosed && ev.To == CoreNode {
		l.fencingConnClosed(ev.Conn)
		delete(s.busy.open, ev.Conn) // an installation may still run: not counted, never a false alarm
		delete(s.busy.closing, ev.Conn)
		return
	}
	if !ev.HasFrame() {
		return
	}
	switch {
	case ev.Kind == WireSent && ev.From == CoreNode:
		l.fencingCoreSent(ev)
	case ev.Kind == WireDelivered && ev.From == CoreNode:
		l.fencingDeviceReceived(ev)
	case ev.Kind == WireSent && ev.To == CoreNode:
		l.fencingDeviceSent(ev)
	case ev.Kind == WireDelivered && ev.To == CoreNode:
		l.fencingCoreReceived(ev)
	}
}

func (l *Ledger) fencingCoreSent(ev WireEvent) {
	s := &l.fencing
	m, ok := fenceMsgOf(ev.Frame.Payload)
	if !ok || m.reply {
		return
	}
	if m.quiesce {
		l.judgeOneSuspension(ev, m)
		made(&s.open)[m.suspend] = true
		made(&s.envOf)[m.suspend] = m.env
	} else if s.resumed[m.suspend] {
		l.violate(ev.At, "fencing_double_resume", "Core resumes suspension %s on %s again after its accepted resume", m.suspend, connKey(ev.Conn))
	}
	if m.env == "" || m.suspend == "" || ev.Frame.ID == "" {
		l.violate(ev.At, "fencing_in_flight", "Core sends %s without both IDs on %s", ev.Frame.Type(), connKey(ev.Conn))
	}
	l.fencingExpire(ev.Conn, ev.At)
	made(&s.requests)[ev.Frame.ID] = &fenceRequest{fenceMsg: m, conn: ev.Conn, deadline: ev.At + l.timer(CoreNode, TimerSuspensionReply)}
	made(&s.inFlight)[ev.Conn]++
	if s.inFlight[ev.Conn] > 2 {
		l.violate(ev.At, "fencing_in_flight", "Core has %d fencing requests unanswered on %s", s.inFlight[ev.Conn], connKey(ev.Conn))
	}
}

func (l *Ledger) fencingDeviceReceived(ev WireEvent) {
	s := &l.fencing
	switch p := ev.Frame.Payload.(type) {
	case wire.EnvironmentQuiesce, wire.EnvironmentResume:
		l.fencingReached(ev)
	case wire.ExecutionPrepare:
		made(&s.arrived)[ev.To+"/p/"+ev.Frame.ID] = s.events
	case wire.RuntimePrepare:
		if p.Step == wire.StepBegin {
			made(&s.arrived)[ev.To+"/x/"+ev.Frame.ID] = s.events
		}
	case wire.WorkspaceWrite:
		if p.Step == wire.StepBegin {
			made(&s.arrived)[ev.To+"/w/"+ev.Frame.ID] = s.events
		}
	}
}

func (l *Ledger) fencingDeviceSent(ev WireEvent) {
	l.judgeAfterQuiesce(ev)
	if m, ok := fenceMsgOf(ev.Frame.Payload); ok && m.reply {
		l.fencingReply(ev, m)
		return
	}
	switch p := ev.Frame.Payload.(type) {
	case wire.PreparationStatus:
		l.installHoldMark(ev, p)
		if p.State != wire.StateRejected && l.newWhileFenced(ev, "/p/") {
			l.violate(ev.At, "fencing_quiesced_work", "quiesced %s answers the new request %s with %s", ev.From, ev.Frame.ID, p.State)
		}
	case wire.RuntimePrepareResult:
		l.fencingTransferResult(ev, p)
		if p.Outcome == wire.OutcomeReady && l.newWhileFenced(ev, "/x/") {
			l.violate(ev.At, "fencing_quiesced_work", "quiesced %s begins the new transfer %s", ev.From, ev.Frame.ID)
		}
	case wire.WorkspaceWriteResult:
		if !l.newWhileFenced(ev, "/w/") {
			break
		}
		if p.Outcome == wire.OutcomeReady {
			l.violate(ev.At, "fencing_quiesced_work", "quiesced %s begins the new workspace write %s", ev.From, ev.Frame.ID)
		}
		if p.Outcome == wire.OutcomeRejected && p.ErrorCode == wire.WriteResourceUnavail {
			l.reach(MarkQuiescedWriteRefused)
		}
	}
}

// newWhileFenced: the fenced sender answers a request (kind "/p/", "/x/",
// "/w/" a workspace_write begin)
// that reached it after its fence.
func (l *Ledger) newWhileFenced(ev WireEvent, kind string) bool {
	s := &l.fencing
	f, fenced := s.fenced[ev.From]
	at, ok := s.arrived[ev.From+kind+ev.Frame.ID]
	return fenced && ok && at > f.since
}

func (l *Ledger) fencingReached(ev WireEvent) {
	if m, ok := fenceMsgOf(ev.Frame.Payload); ok && !m.reply {
		key := connKey(ev.Conn) + "/" + ev.Frame.ID
		made(&l.fencing.reached)[key] = append(l.fencing.reached[key], fenceRequest{fenceMsg: m, conn: ev.Conn, forged: ev.Forged})
	}
}

// fencingReply judges a reply against the oldest unanswered request of
// its ID that reached the daemon on its connection.
func (l *Ledger) fencingReply(ev WireEvent, m fenceMsg) {
	s := &l.fencing
	key := connKey(ev.Conn) + "/" + ev.Frame.ID
	reqs := s.reached[key]
	if len(reqs) == 0 {
		l.violate(ev.At, "fencing_reply", "%s answers %s on %s, which no request of that ID reached there", ev.From, ev.Frame.ID, connKey(ev.Conn))
		return
	}
	req := reqs[0]
	s.reached[key] = reqs[1:]
	switch {
	case req.quiesce != m.quiesce:
		l.violate(ev.At, "fencing_reply", "%s answers %s with %s: the reply type does not match the request", ev.From, ev.Frame.ID, ev.Frame.Type())
	case req.env != m.env || req.suspend != m.suspend:
		l.violate(ev.At, "fencing_reply", "%s's %s does not echo both IDs of %s", ev.From, ev.Frame.Type(), ev.Frame.ID)
	case m.accepted && m.code != "":
		l.violate(ev.At, "fencing_reply", "%s accepts %s with code %q", ev.From, ev.Frame.ID, m.code)
	case !m.accepted && m.code == "":
		l.violate(ev.At, "fencing_reply", "%s refuses %s without a code", ev.From, ev.Frame.ID)
	}
	cur, fenced := s.fenced[ev.From]
	switch {
	case !m.accepted && m.quiesce:
		l.reach(MarkQuiesceRefused)
		if l.busyWork(ev.From, ev.Conn) != "" {
			l.reach(MarkQuiesceBusyRefused) // the rule at work
		}
	case !m.accepted:
		if fenced && req.forged && cur.suspend != m.suspend {
			l.reach(MarkStrayResumeRefused)
		}
	case m.quiesce:
		l.judgeQuiesceAccepted(ev, m.suspend)
		made(&s.busy.closing)[ev.Conn] = true
		if !fenced {
			cur.since = s.events
		}
		made(&s.fenced)[ev.From] = fence{m.suspend, cur.since}
		delete(s.lifted, ev.From)
		l.reach(MarkQuiesceAccepted)
	default:
		l.judgeResumeAccepted(ev, m.suspend)
		if fenced && cur.suspend == m.suspend {
			made(&s.lifted)[ev.From] = m.suspend
		}
		delete(s.fenced, ev.From) // whichever suspension fenced it
	}
}

func (l *Ledger) fencingCoreReceived(ev WireEvent) {
	s := &l.fencing
	m, ok := fenceMsgOf(ev.Frame.Payload)
	if !ok || !m.reply {
		return
	}
	l.fencingExpire(ev.Conn, ev.At)
	req := s.requests[ev.Frame.ID]
	if req == nil || req.conn != ev.Conn {
		return
	}
	delete(s.requests, ev.Frame.ID)
	s.inFlight[ev.Conn]--
	if req.suspend != m.suspend || req.quiesce != m.quiesce || !m.ends() {
		return
	}
	delete(s.open, m.suspend)
	if !m.quiesce {
		made(&s.resumed)[m.suspend] = true
		l.reach(MarkResumeAccepted)
	}
}

// fencingOpenReason names an open suspension ("" when none is open).
func (l *Ledger) fencingOpenReason() string {
	for _, id := range sortedKeys(l.fencing.open) {
		return "suspension " + id + " fences a device"
	}
	return ""
}

// fencingExpire forgets Core's requests on conn whose reply wait ended by
// now: Core gave up on them, and a reply reaching it from now is late.
func (l *Ledger) fencingExpire(conn uint64, now int64) {
	s := &l.fencing
	for id, r := range s.requests { //tidy:sorted deletes only, and an order-free count
		if r.conn == conn && r.deadline <= now {
			delete(s.requests, id)
			s.inFlight[conn]--
		}
	}
}

// fencingConnClosed forgets Core's requests in flight on a closed
// connection: their replies can no longer arrive.
func (l *Ledger) fencingConnClosed(conn uint64) {
	s := &l.fencing
	lost := false
	for id, r := range s.requests { //tidy:sorted deletes only, and an order-free flag
		if r.conn == conn {
			lost = lost || r.quiesce
			delete(s.requests, id)
		}
	}
	if lost {
		l.reach(MarkQuiesceReplyLost)
	}
	delete(s.inFlight, conn)
}

// fencingCoreDown: Core's requests in flight died with it; accepted
// resumes it learned are durable.
func (l *Ledger) fencingCoreDown() {
	clear(l.fencing.requests)
	clear(l.fencing.inFlight)
}

// fencingNodeDown: a daemon's fence belongs to its process.
func (l *Ledger) fencingNodeDown(node string) {
	delete(l.fencing.fenced, node)
	delete(l.fencing.lifted, node)
}
