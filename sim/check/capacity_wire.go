package check

import (
	"github.com/turnstile-sim/turnstile/wire"
)

// admissionRec is one admission a daemon granted, as the wire shows it:
// from its first resource status until a terminal one (or the loss of its
// connection), then, when it started a Run, until the Harness settles
// the Run's native turn.
type admissionRec struct {
	device   string
	conn     uint64
	run      string
	terminal bool
}

// wireLimits are the limits the wire-side capacity check judges by: a
// configuration above the seeds' limits is judged by the seeds' limits.
func wireLimits(lim DeviceLimits) DeviceLimits {
	lim.ActiveMax = min(lim.ActiveMax, DocumentedActiveMax)
	lim.ExecutorsMax = min(lim.ExecutorsMax, DocumentedExecutorsMax)
	return lim
}

// admissionStatus follows one resource status a daemon sent and, on a
// new grant (revision 1 of the request on the connection), counts the device's active admissions against its limit.
func (l *Ledger) admissionStatus(at int64, c *devConn, conn uint64, req string, st wire.PreparationStatus) {
	k := pairKey(connKey(conn), req)
	a := l.frames.admissions[k]
	grant := pairKey(c.device, pairKey(req, st.Handle))
	if a == nil && (st.Revision != 1 || l.frames.grants[grant]) {
		return // not a grant: a republished status of another connection's admission
	}
	l.frames.grants[grant] = true
	state, run := st.State, st.RunID
	if a == nil {
		a = &admissionRec{device: c.device, conn: conn}
		l.frames.admissions[k] = a
		l.frames.admissionOrder = append(l.frames.admissionOrder, k)
		l.checkActive(at, c.device)
	}
	if run != "" {
		a.run = run
	}
	switch state {
	case "started", "released", "expired", "failed":
		a.terminal = true
	}
}

// admissionsRetired ends the admissions a connection's end took with it:
// they were connection-local. Runs they started go on natively.
func (l *Ledger) admissionsRetired(gone func(*admissionRec) bool) {
	for _, k := range l.frames.admissionOrder {
		if a := l.frames.admissions[k]; gone(a) {
			a.terminal = true
		}
	}
}

// active reports whether an admission still holds an active slot: not
// terminal, or its Run's native turn is live at the Harness.
func (l *Ledger) active(a *admissionRec) bool {
	if !a.terminal {
		return true
	}
	t := l.harness.turns[a.run]
	return a.run != "" && t != nil && t.settled == ""
}

// checkActive: the device's active preparations and executions, counted
// from its own statuses and the Harness's live turns, stay within its
// configured limit. An executor its Turn's settlement retired keeps its
// Turn's slot until the Harness confirms it closed: the seeds count a
// closing or uncertain resource against its limit until cleanup succeeds. The count never exceeds what the daemon should count
// (a closing or uncertain resource only adds), so any excess is real.
func (l *Ledger) checkActive(at int64, device string) {
	lim, ok := l.frames.limits[device]
	if !ok {
		return
	}
	n := 0
	for _, k := range l.frames.admissionOrder {
		if a := l.frames.admissions[k]; a.device == device && l.active(a) {
			n++
		}
	}
	closing := l.harness.retiredOpen(device)
	if n+closing > lim.ActiveMax {
		l.violate(at, CheckCapacity, "device %s granted an admission while %d preparations and executions are active (%d closing for their Turn) > %d",
			device, n+closing, closing, lim.ActiveMax)
	}
}

// checkLiveExecutors compares the executors the Harness holds
// (capacity_executors.go) with the device's configured limit: a daemon
// that forgets a failed close, stops counting closing executors, or frees
// a slot before its cleanup succeeded, shows up here.
func (l *Ledger) checkLiveExecutors(at int64, device string) {
	lim, ok := l.frames.limits[device]
	if !ok {
		return
	}
	if open, creating := l.harness.heldExecutors(device); open+creating > lim.ExecutorsMax {
		l.violate(at, CheckCapacity, "device %s holds %d native executors (%d open, %d being created) > %d",
			device, open+creating, open, creating, lim.ExecutorsMax)
	}
}
