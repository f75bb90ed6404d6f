package check

import "github.com/turnstile-sim/turnstile/wire"

// The admission record table of one connection, rebuilt from the wire
// (wire reference §6.1, DESIGN §5): the Runtime keeps at most 64 admission
// records per connection; a grant (a first status with a handle for a
// request ID the table does not hold) into a full table first evicts the
// oldest terminal record (started, released, expired or failed). A record
// the rule evicted is unknown to the Runtime from then on: a release or
// start naming it is rejected unknown_preparation; a record it keeps
// answers as the record.
//
// The model reads only the statuses the daemon sent on the connection,
// honest and hostile request IDs alike: each of them is a record of the
// same table.

// recordEntry is one admission record as the wire showed it.
type recordEntry struct {
	req, handle string
	terminal    bool
}

// recordTable is one connection's records in grant order, and the request
// IDs the rule evicted.
type recordTable struct {
	order   []recordEntry
	evicted map[string]string // request ID → the handle it had
}

func terminalState(s string) bool {
	switch s {
	case wire.StateStarted, wire.StateReleased, wire.StateExpired, wire.StateFailed:
		return true
	}
	return false
}

// noteRecord applies one preparation_status a daemon sent on conn.
func (l *Ledger) noteRecord(conn uint64, req string, p wire.PreparationStatus) {
	if p.State == wire.StateRejected || p.Handle == "" {
		return // a refusal creates no record and changes none
	}
	h := &l.hostile
	t := made(&h.records)[conn]
	if t == nil {
		t = &recordTable{evicted: map[string]string{}}
		h.records[conn] = t
	}
	for i := range t.order {
		if e := &t.order[i]; e.req == req {
			if e.handle == p.Handle && terminalState(p.State) {
				e.terminal = true
			}
			return
		}
	}
	if t.evicted[req] == p.Handle {
		return // the evicted record itself, still answering: not a grant
	}
	if len(t.order) >= AdmissionRecordsMax {
		t.evictOldestTerminal()
	}
	delete(t.evicted, req)
	t.order = append(t.order, recordEntry{req: req, handle: p.Handle, terminal: terminalState(p.State)})
}

func (t *recordTable) evictOldestTerminal() {
	for i, e := range t.order {
		if e.terminal {
			t.evicted[e.req] = e.handle
			t.order = append(t.order[:i:i], t.order[i+1:]...)
			return
		}
	}
}

// recordKnown reports whether the table of conn holds req (held) and
// whether the eviction rule removed it (evicted); neither when the wire
// never showed a grant of req on conn.
func (l *Ledger) recordKnown(conn uint64, req string) (held, evicted bool) {
	t := l.hostile.records[conn]
	if t == nil {
		return false, false
	}
	for _, e := range t.order {
		if e.req == req {
			return true, false
		}
	}
	_, evicted = t.evicted[req]
	return false, evicted
}

// ownRecordEvicted reports whether p attacks the injector's own admission
// (a start or release naming its request ID) whose record the eviction
// rule removed: held back (a stall) until the admission ended and later
// grants evicted it, the attack finds the request unknown.
func (l *Ledger) ownRecordEvicted(p *HostileProbe) bool {
	switch p.Action {
	case HostileStartWrongExecutor, HostileStartUsedRun, HostileReleaseOwn, HostileStartReleased:
		_, evicted := l.recordKnown(p.Conn, p.ReplyID)
		return evicted
	}
	return false
}

// wantOf is the answer p wants now: unknown_preparation once its own
// admission's record was evicted (ownRecordEvicted), else wantNow's.
func (l *Ledger) wantOf(p *HostileProbe, ev WireEvent, delivered int64) []string {
	if l.ownRecordEvicted(p) {
		return []string{"rejected/unknown_preparation"}
	}
	return l.wantNow(p, ev, delivered)
}
