package check

import (
	"cmp"
	"maps"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// Checks: capacity_exceeded (rules.go), against the configured limits,
// never the daemon's own accounting: on the wire the admissions a daemon
// grants, at the Harness the executors it holds and the native turns it
// runs.

// DeviceLimits are a device's declared daemon limits, as configured.
type DeviceLimits struct {
	ActiveMax         int           // active preparations and executions together
	ExecutorsMax      int           // executors in any state, closing and uncertain included
	ReceiptSendBudget time.Duration // each receipt send
}

// DeviceConfigured records a device's declared limits (once, at setup):
// as declared for the Harness-side checks, capped at the seeds' limits for
// the wire-side ones (checkActive, checkLiveExecutors).
func (l *Ledger) DeviceConfigured(device string, lim DeviceLimits) { l.limits[device] = lim }

// admissionRec is one admission a daemon granted, from its first resource
// status until a terminal one (or the loss of its connection), then, when
// it started a Run, until the Harness settles the Run's native turn.
type admissionRec struct {
	device   string
	conn     uint64
	run      string
	terminal bool
}

// admissionStatus follows one resource status a daemon sent and, on a
// new grant (revision 1 of the request on the connection), counts the
// device's active admissions against its limit.
func (l *Ledger) admissionStatus(at int64, c *devConn, conn uint64, req string, st wire.PreparationStatus) {
	k := pairKey(connKey(conn), req)
	a := l.frames.admissions[k]
	grant := pairKey(c.device, pairKey(req, st.Handle))
	if a == nil && (st.Revision != 1 || l.frames.grants[grant]) {
		return // not a grant: a republished status of another connection's admission
	}
	l.frames.grants[grant] = true
	if a == nil {
		a = &admissionRec{device: c.device, conn: conn}
		l.frames.admissions[k] = a
		l.frames.admissionOrder = append(l.frames.admissionOrder, k)
		l.checkActive(at, c.device)
	}
	a.run = cmp.Or(st.RunID, a.run)
	a.terminal = a.terminal || terminalState(st.State)
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
	t := l.harness.turns[a.run]
	return !a.terminal || a.run != "" && t != nil && t.settled == ""
}

// checkActive: the device's active admissions, with the executors their
// Turn's settlement retired and whose close is not yet confirmed, stay
// within its limit. The count never exceeds what the daemon should count,
// so any excess is real.
func (l *Ledger) checkActive(at int64, device string) {
	lim, ok := l.limits[device] // judged for a configured device only
	activeMax := min(lim.ActiveMax, DocumentedActiveMax)
	n := countIf(l.frames.admissions, func(a *admissionRec) bool { return a.device == device && l.active(a) })
	closing := countIf(l.harness.executors, func(e *executorRec) bool { return e.device == device && e.retired && !e.closed })
	if ok && n+closing > activeMax {
		l.violate(at, CheckCapacity, "device %s granted an admission while %d preparations and executions are active (%d closing for their Turn) > %d",
			device, n+closing, closing, activeMax)
	}
}

// checkTruthCapacity: every native Turn of device not yet settled holds
// one of its ActiveMax slots.
func (l *Ledger) checkTruthCapacity(at int64, device string) {
	lim := l.limits[device] // an unconfigured device's ActiveMax is 0: not judged
	busy := countIf(l.harness.turns, func(t *nativeTurn) bool { return t.device == device && t.settled == "" })
	if lim.ActiveMax > 0 && busy > lim.ActiveMax {
		l.violate(at, CheckCapacity, "device %s runs %d unsettled native turns > active_max %d",
			device, busy, lim.ActiveMax)
	}
}

// executorCreating records a native Prepare reaching the Harness: the
// executor counts from then on, before it is created.
func (l *Ledger) executorCreating(at int64, device, executor string) {
	made(&l.harness.creating)[pairKey(device, executor)] = device
	l.checkLiveExecutors(at, device)
}

// checkLiveExecutors: the executors device holds, open (not confirmed
// closed) or being created, stay within its limit.
func (l *Ledger) checkLiveExecutors(at int64, device string) {
	lim, ok := l.limits[device] // judged for a configured device only
	open, creating := l.harness.liveExecutors(device), countIf(l.harness.creating, func(d string) bool { return d == device })
	if executorsMax := min(lim.ExecutorsMax, DocumentedExecutorsMax); ok && open+creating > executorsMax {
		l.violate(at, CheckCapacity, "device %s holds %d native executors (%d open, %d being created) > %d",
			device, open+creating, open, creating, executorsMax)
	}
}

// NativePrepareFailed records a native Prepare that created nothing.
func (l *Ledger) NativePrepareFailed(at int64, device, executor string) {
	l.advance(at)
	delete(l.harness.creating, pairKey(device, executor))
}

// creatingNodeDown: a crashed daemon's Prepares died with its Harness.
func (l *Ledger) creatingNodeDown(node string) {
	maps.DeleteFunc(l.harness.creating, func(_, d string) bool { return d == node })
}
