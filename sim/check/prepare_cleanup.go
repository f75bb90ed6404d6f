package check

import "github.com/turnstile-sim/turnstile/wire"

// CheckPrepareCleanup is rule prepare_failure_cleanup (Rules): the
// daemon cannot say the failure freed the resource (the seeds count
// closing and uncertain resources until cleanup succeeds).
//
// The checker reads the daemon's failed preparation statuses on the wire
// and the simulated Harness's ground truth: a failed status with code
// preparation_failed whose executor_id names an executor the Harness of
// that device created and has not closed is a violation. A reused
// executor is excluded (its failure concerns a preparation that created
// nothing).
const CheckPrepareCleanup = "prepare_failure_cleanup"

// observePrepareCleanup is the wire observer of CheckPrepareCleanup; it
// sees honest traffic only.
func (l *Ledger) observePrepareCleanup(ev WireEvent) {
	if ev.Kind != WireSent || ev.From == CoreNode || !ev.HasFrame() {
		return
	}
	st, ok := ev.Frame.Payload.(wire.PreparationStatus)
	if !ok || st.State != wire.StateFailed || st.ErrorCode != "preparation_failed" || st.ExecutorID == "" || st.Reused {
		return
	}
	e := l.harness.executors[pairKey(ev.From, st.ExecutorID)]
	if e == nil || e.closed {
		return
	}
	l.violate(ev.At, CheckPrepareCleanup,
		"%s failed request %s (handle %s) preparation_failed while the Harness still holds its executor %s (created at %s): the cleanup is unconfirmed",
		ev.From, ev.Frame.ID, st.Handle, st.ExecutorID, vtime(e.createdAt))
}
