package check

import "strings"

// CheckShutdownReport is rule shutdown_report (Rules).
const CheckShutdownReport = "shutdown_report"

// ShutdownReported records a daemon's shutdown report: whether it claims
// completeness and how many resources it lists as still owned.
func (l *Ledger) ShutdownReported(at int64, device string, complete bool, owned int) {
	switch open := l.harness.openOn(device); {
	case !complete:
	case owned > 0:
		l.violate(at, CheckShutdownReport, "%s reported shutdown complete while listing %d owned resources", device, owned)
	case len(open) > 0:
		l.violate(at, CheckShutdownReport, "%s reported shutdown complete while its Harness still holds %s",
			device, strings.Join(open, ", "))
	}
}

// openOn lists what the Harness of device still holds, sorted: executors
// not confirmed closed and native Turns not settled.
func (h *harnessState) openOn(device string) []string {
	var out []string
	for _, k := range sortedKeys(h.executors) {
		if e := h.executors[k]; e.device == device && !e.closed {
			out = append(out, "executor "+k[len(device)+1:])
		}
	}
	for _, run := range sortedKeys(h.turns) {
		if t := h.turns[run]; t.device == device && t.settled == "" {
			out = append(out, "the native turn of run "+run)
		}
	}
	return out
}
