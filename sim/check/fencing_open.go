package check

import "github.com/turnstile-sim/turnstile/wire"

// Open suspensions, from the wire: a device Core sent a quiesce to stays
// fenced (Core dispatches no new work to it) until the suspension ends
// for Core: a refused quiesce, or an accepted resume, reaching Core
// within the request's reply wait. A reply Core gave up on ends nothing:
// its outcome is unknown, and the suspension stays open. Work Core holds
// back meanwhile (a prepare retry) is excused.

// fencingOpened notes a quiesce Core sent.
func (l *Ledger) fencingOpened(suspend string) {
	made(&l.fencing.open)[suspend] = true
}

// fencingReplied notes an in-time reply to req reaching Core.
func (l *Ledger) fencingReplied(req *fenceRequest, p wire.Payload) {
	switch p := p.(type) {
	case wire.EnvironmentQuiesced:
		if req.quiesce && !p.Accepted {
			delete(l.fencing.open, req.suspend)
		}
	case wire.EnvironmentResumed:
		if !req.quiesce && p.Accepted {
			delete(l.fencing.open, req.suspend)
		}
	}
}

// fencingOpenReason names an open suspension ("" when none is open).
func (l *Ledger) fencingOpenReason() string {
	for _, id := range sortedKeys(l.fencing.open) {
		return "suspension " + id + " fences a device"
	}
	return ""
}
