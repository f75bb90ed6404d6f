package check

import "github.com/turnstile-sim/turnstile/wire"

// Suspension fencing oracles (rules fencing_reply, fencing_in_flight,
// fencing_quiesced_work and fencing_double_resume, Rules), from the wire
// only. For fencing_reply what reached the daemon counts, whoever put it
// on the wire and whatever Core knows: a copy a hostile proxy replayed,
// or a request still in flight when Core closed the connection, is a
// request the daemon must answer. A request whose reply wait ended is no
// longer in flight: Core recorded its outcome unknown
// (timing_suspension_reply_wait judges that).

const (
	fencingRepliesInFlightMax = 2
	fencingCodeNone           = ""
)

type fenceRequest struct {
	quiesce      bool
	forged       bool // reached the daemon as a forged frame
	env, suspend string
	conn         uint64
	device       string
	deadline     int64 // the end of Core's reply wait
}

type fencingState struct {
	requests map[string]*fenceRequest // by Envelope ID
	inFlight map[uint64]int           // Core's unanswered requests per connection
	// fenced: device → suspend_id of its accepted quiesce, until resumed.
	fenced map[string]string
	// fencedSince: device → the wire event count at its accepted quiesce;
	// requests that reached the device later are new work.
	fencedSince map[string]int
	arrived     map[string]int  // device/request → event count at arrival
	resumed     map[string]bool // suspend_id whose accepted resume reached Core
	// reached: connection/Envelope ID → the fencing requests delivered to
	// the daemon there and not yet answered (forged copies included).
	reached map[string][]fenceRequest
	events  int
	busy    fenceBusy       // fencing_busy.go
	open    map[string]bool // suspensions fencing a device (fencing_open.go)
}

func (s *fencingState) init() {
	s.requests = map[string]*fenceRequest{}
	s.inFlight = map[uint64]int{}
	s.fenced = map[string]string{}
	s.fencedSince = map[string]int{}
	s.arrived = map[string]int{}
	s.resumed = map[string]bool{}
	s.reached = map[string][]fenceRequest{}
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
		l.fencingBusyConnClosed(ev.Conn)
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
	var req *fenceRequest
	switch p := ev.Frame.Payload.(type) {
	case wire.EnvironmentQuiesce:
		req = &fenceRequest{quiesce: true, env: p.EnvironmentID, suspend: p.SuspendID}
		l.fencingOpened(p.SuspendID)
	case wire.EnvironmentResume:
		req = &fenceRequest{env: p.EnvironmentID, suspend: p.SuspendID}
		if s.resumed[p.SuspendID] {
			l.violate(ev.At, "fencing_double_resume", "Core resumes suspension %s on %s again after its accepted resume", p.SuspendID, connKey(ev.Conn))
		}
	default:
		return
	}
	if req.env == "" || req.suspend == "" || ev.Frame.ID == "" {
		l.violate(ev.At, "fencing_in_flight", "Core sends %s without both IDs on %s", ev.Frame.Type(), connKey(ev.Conn))
	}
	req.conn, req.device = ev.Conn, ev.To
	req.deadline = ev.At + l.timer(CoreNode, TimerSuspensionReply)
	l.fencingExpire(ev.Conn, ev.At)
	s.requests[ev.Frame.ID] = req
	s.inFlight[ev.Conn]++
	if s.inFlight[ev.Conn] > fencingRepliesInFlightMax {
		l.violate(ev.At, "fencing_in_flight", "Core has %d fencing requests unanswered on %s", s.inFlight[ev.Conn], connKey(ev.Conn))
	}
}

// fencingDeviceReceived notes when requests reach a device: fencing
// requests for the reply check, work requests for the quiesced check.
func (l *Ledger) fencingDeviceReceived(ev WireEvent) {
	s := &l.fencing
	switch ev.Frame.Payload.(type) {
	case wire.EnvironmentQuiesce, wire.EnvironmentResume:
		l.fencingReached(ev)
	case wire.ExecutionPrepare:
		s.arrived[ev.To+"/p/"+ev.Frame.ID] = s.events
	case wire.RuntimePrepare:
		if ev.Frame.Payload.(wire.RuntimePrepare).Step == wire.StepBegin {
			s.arrived[ev.To+"/x/"+ev.Frame.ID] = s.events
		}
	}
}

func (l *Ledger) fencingDeviceSent(ev WireEvent) {
	s := &l.fencing
	l.judgeAfterQuiesce(ev)
	switch p := ev.Frame.Payload.(type) {
	case wire.EnvironmentQuiesced:
		l.fencingReply(ev, true, p.EnvironmentID, p.SuspendID, p.Accepted, p.ErrorCode)
	case wire.EnvironmentResumed:
		l.fencingReply(ev, false, p.EnvironmentID, p.SuspendID, p.Accepted, p.ErrorCode)
	case wire.PreparationStatus:
		l.installHoldMark(ev, p)
		if p.State == wire.StateRejected {
			return
		}
		if _, fenced := s.fenced[ev.From]; fenced {
			if at, ok := s.arrived[ev.From+"/p/"+ev.Frame.ID]; ok && at > s.fencedSince[ev.From] {
				l.violate(ev.At, "fencing_quiesced_work", "quiesced %s answers the new request %s with %s", ev.From, ev.Frame.ID, p.State)
			}
		}
	case wire.RuntimePrepareResult:
		l.fencingTransferResult(ev, p)
		if p.Outcome != wire.OutcomeReady {
			return
		}
		if _, fenced := s.fenced[ev.From]; fenced {
			if at, ok := s.arrived[ev.From+"/x/"+ev.Frame.ID]; ok && at > s.fencedSince[ev.From] {
				l.violate(ev.At, "fencing_quiesced_work", "quiesced %s begins the new transfer %s", ev.From, ev.Frame.ID)
			}
		}
	}
}

// fencingReached notes a fencing request delivered to a daemon, as it
// arrived: the daemon's reply is judged against it.
func (l *Ledger) fencingReached(ev WireEvent) {
	s := &l.fencing
	req := fenceRequest{conn: ev.Conn, device: ev.To, forged: ev.Forged}
	switch p := ev.Frame.Payload.(type) {
	case wire.EnvironmentQuiesce:
		req.quiesce, req.env, req.suspend = true, p.EnvironmentID, p.SuspendID
	case wire.EnvironmentResume:
		req.env, req.suspend = p.EnvironmentID, p.SuspendID
	default:
		return
	}
	key := connKey(ev.Conn) + "/" + ev.Frame.ID
	s.reached[key] = append(s.reached[key], req)
}

// fencingAnswered takes the oldest unanswered request of the reply's ID
// that reached the daemon on the reply's connection.
func (l *Ledger) fencingAnswered(ev WireEvent) (fenceRequest, bool) {
	s := &l.fencing
	key := connKey(ev.Conn) + "/" + ev.Frame.ID
	reqs := s.reached[key]
	if len(reqs) == 0 {
		return fenceRequest{}, false
	}
	if len(reqs) == 1 {
		delete(s.reached, key)
	} else {
		s.reached[key] = reqs[1:]
	}
	return reqs[0], true
}

func (l *Ledger) fencingReply(ev WireEvent, quiesce bool, env, suspend string, accepted bool, code string) {
	s := &l.fencing
	req, reached := l.fencingAnswered(ev)
	switch {
	case !reached:
		l.violate(ev.At, "fencing_reply", "%s answers %s on %s, which no request of that ID reached there", ev.From, ev.Frame.ID, connKey(ev.Conn))
		return
	case req.quiesce != quiesce:
		l.violate(ev.At, "fencing_reply", "%s answers %s with %s: the reply type does not match the request", ev.From, ev.Frame.ID, ev.Frame.Type())
	case req.env != env || req.suspend != suspend:
		l.violate(ev.At, "fencing_reply", "%s's %s does not echo both IDs of %s", ev.From, ev.Frame.Type(), ev.Frame.ID)
	case accepted && code != fencingCodeNone:
		l.violate(ev.At, "fencing_reply", "%s accepts %s with code %q", ev.From, ev.Frame.ID, code)
	case !accepted && code == fencingCodeNone:
		l.violate(ev.At, "fencing_reply", "%s refuses %s without a code", ev.From, ev.Frame.ID)
	}
	if !accepted {
		if quiesce {
			l.reach(MarkQuiesceRefused)
			l.quiesceRefusedMark(ev)
		} else if _, fenced := s.fenced[ev.From]; fenced && req.forged && s.fenced[ev.From] != suspend {
			l.reach(MarkStrayResumeRefused)
		}
		return
	}
	if quiesce {
		l.judgeQuiesceAccepted(ev, suspend)
		l.quiesceClosing(ev.Conn)
		if _, already := s.fenced[ev.From]; !already {
			s.fencedSince[ev.From] = s.events
		}
		s.fenced[ev.From] = suspend
		l.reach(MarkQuiesceAccepted)
		return
	}
	l.judgeResumeAccepted(ev, suspend)
	if s.fenced[ev.From] == suspend {
		delete(s.fenced, ev.From)
		delete(s.fencedSince, ev.From)
	}
}

func (l *Ledger) fencingCoreReceived(ev WireEvent) {
	s := &l.fencing
	var accepted, resume bool
	var suspend string
	switch p := ev.Frame.Payload.(type) {
	case wire.EnvironmentQuiesced:
		accepted, suspend = p.Accepted, p.SuspendID
	case wire.EnvironmentResumed:
		accepted, resume, suspend = p.Accepted, true, p.SuspendID
	default:
		return
	}
	l.fencingExpire(ev.Conn, ev.At)
	req := s.requests[ev.Frame.ID]
	if req == nil || req.conn != ev.Conn {
		return
	}
	delete(s.requests, ev.Frame.ID)
	s.inFlight[ev.Conn]--
	if req.suspend == suspend {
		l.fencingReplied(req, ev.Frame.Payload)
	}
	if resume && accepted && !req.quiesce && req.suspend == suspend {
		s.resumed[suspend] = true
		l.reach(MarkResumeAccepted)
	}
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
// connection (their replies can no longer arrive) and a daemon's fence
// when its process restarted (the fence belongs to the process).
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

// fencingCoreDown: Core's requests in flight died with it; what it
// durably learned (accepted resumes) stays.
func (l *Ledger) fencingCoreDown() {
	s := &l.fencing
	s.requests = map[string]*fenceRequest{}
	s.inFlight = map[uint64]int{}
}

// fencingNodeDown: a daemon's fence belongs to its process.
func (l *Ledger) fencingNodeDown(node string) {
	s := &l.fencing
	delete(s.fenced, node)
	delete(s.fencedSince, node)
}
