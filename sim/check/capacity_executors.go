package check

// Executors a device holds, from the Harness's ground truth: every native
// executor that is open (created and not confirmed closed: idle, active,
// closing or left uncertain by a failed close) and every one being created
// (its native Prepare called, neither created nor failed yet). The
// documents' executor limit counts them all, so a daemon that grants a
// new executor while it still holds closing or uncertain ones at the
// limit shows up the instant its Prepare reaches the Harness.

// executorCreating records a native Prepare reaching the Harness.
func (l *Ledger) executorCreating(at int64, device, executor string) {
	l.harness.creating[pairKey(device, executor)] = device
	l.checkLiveExecutors(at, device)
}

// NativePrepareFailed records a native Prepare that created nothing.
func (l *Ledger) NativePrepareFailed(at int64, device, executor string) {
	l.advance(at)
	delete(l.harness.creating, pairKey(device, executor))
}

// creatingNodeDown: a crashed daemon's Prepares died with its Harness.
func (l *Ledger) creatingNodeDown(node string) {
	for k, d := range l.harness.creating { //tidy:sorted deleting only
		if d == node {
			delete(l.harness.creating, k)
		}
	}
}

// heldExecutors counts a device's open and being-created executors.
func (h *harnessState) heldExecutors(device string) (open, creating int) {
	return h.liveExecutors(device), countIf(h.creating, func(d string) bool { return d == device })
}

// retiredOpen counts a device's executors retired by their Turn's
// settlement and not yet confirmed closed (a failed close leaves them
// open: uncertain).
func (h *harnessState) retiredOpen(device string) int {
	return countIf(h.executors, func(e *executorRec) bool { return e.device == device && e.retired && !e.closed })
}
