package check

import "time"

// DeviceLimits are a device's declared daemon limits, as configured (never
// the machine's own accounting): the Harness-side capacity check and the
// receipt budget check compare ground truth and the wire with them.
type DeviceLimits struct {
	ActiveMax         int           // active preparations and executions together
	ExecutorsMax      int           // executors in any state, closing and uncertain included
	ReceiptSendBudget time.Duration // each receipt send
}

// DeviceConfigured records a device's declared limits (once, at setup):
// as declared for the Harness-side checks, capped at the seeds' limits for
// the wire-side capacity check.
func (l *Ledger) DeviceConfigured(device string, lim DeviceLimits) {
	l.limits[device] = lim
	l.frames.limits[device] = wireLimits(lim)
}

// checkTruthCapacity compares what the Harness of device really holds with
// the declared limits: every native Turn not yet settled holds one of the
// ActiveMax slots (the native executors not confirmed closed are counted
// against ExecutorsMax by the wire-side check, capacity_wire.go). A
// daemon that stops counting a closing or uncertain executor, or frees a
// slot before settlement, shows up here whatever it reports about itself.
func (l *Ledger) checkTruthCapacity(at int64, device string) {
	lim, ok := l.limits[device]
	if !ok {
		return
	}
	if busy := l.harness.unsettledTurns(device); lim.ActiveMax > 0 && busy > lim.ActiveMax {
		l.violate(at, CheckCapacity, "device %s runs %d unsettled native turns > active_max %d",
			device, busy, lim.ActiveMax)
	}
}

func (h *harnessState) unsettledTurns(device string) int {
	return countIf(h.turns, func(t *nativeTurn) bool { return t.device == device && t.settled == "" })
}
