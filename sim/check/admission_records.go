package check

import (
	"slices"

	"github.com/turnstile-sim/turnstile/wire"
)

// The admission record table of one connection, rebuilt by the connection
// index from the statuses the daemon sent on it, honest and hostile
// request IDs alike (wire reference §6.1, DESIGN §5): at most 64 records;
// a grant (a first status with a handle for a request ID the table does
// not hold) into a full table first evicts the oldest terminal record,
// which the Runtime knows no more: a release or start naming it is
// rejected unknown_preparation.

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
	return slices.Contains([]string{wire.StateStarted, wire.StateReleased, wire.StateExpired, wire.StateFailed}, s)
}

// note applies one preparation_status the daemon sent that names a handle
// (a refusal creates no record and changes none).
func (t *recordTable) note(req string, p wire.PreparationStatus) {
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
	if len(t.order) >= DocumentedAdmissionRecordsMax {
		t.evictOldestTerminal()
	}
	delete(t.evicted, req)
	t.order = append(t.order, recordEntry{req: req, handle: p.Handle, terminal: terminalState(p.State)})
}

func (t *recordTable) evictOldestTerminal() {
	if i := slices.IndexFunc(t.order, func(e recordEntry) bool { return e.terminal }); i >= 0 {
		made(&t.evicted)[t.order[i].req] = t.order[i].handle
		t.order = slices.Delete(t.order, i, i+1)
	}
}

// known reports whether the table holds req (held) and whether the
// eviction rule removed it (evicted); neither when the wire never showed
// a grant of req on the connection.
func (t *recordTable) known(req string) (held, evicted bool) {
	_, evicted = t.evicted[req] // a record granted again leaves the evicted ones
	return slices.ContainsFunc(t.order, func(e recordEntry) bool { return e.req == req }), evicted
}
