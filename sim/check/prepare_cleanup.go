package check

import "github.com/turnstile-sim/turnstile/wire"

// CheckPrepareCleanup is rule prepare_failure_cleanup (rules.go): a failed
// status preparation_failed naming an executor the device's Harness
// created and has not closed (a reused one excepted: its failure concerns
// a preparation that created nothing).
const CheckPrepareCleanup = "prepare_failure_cleanup"

func (l *Ledger) observePrepareCleanup(ev WireEvent) {
	st, ok := ev.Frame.Payload.(wire.PreparationStatus) // none when the frame did not decode
	if ev.Kind != WireSent || ev.From == CoreNode || !ok || st.State != wire.StateFailed || st.ErrorCode != "preparation_failed" || st.ExecutorID == "" || st.Reused {
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
