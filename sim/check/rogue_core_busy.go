package check

// A durable steer while the Run's native write is still out (wire
// reference §3.6: busy, another input awaits its receipt; the seeds: one
// native write per Run at a time, even past its budget): the rogue Core
// sends it once an earlier input's first receipt was outcome_unknown,
// which the daemon sends when the native write outlived its budget.
const HostileSteerWriteOutstanding = "rcore_steer_write_outstanding"

// CondWriteOutstanding: the answer is busy while the Harness holds a
// native durable write of the Run (ReplyID) on Target that was called
// before the frame arrived and had not returned by then, the Run live (as
// CondRunLive: no native done or settlement before the frame arrived, no
// done sent); run_inactive alone once the daemon was asked to shut down
// before the frame arrived (shutdown requests the cancel of every native
// Turn, and a Run whose cancel was requested takes no input); not judged
// otherwise (the next input is admitted).
const CondWriteOutstanding = "write_outstanding"

func (l *Ledger) writeOutstandingAnswer(p *HostileProbe, delivered int64) []string {
	live := l.runLiveAnswer(p, delivered)
	if len(live) == 0 {
		return nil
	}
	if live[0] != p.Want[0] && !l.shutDownBefore(p.Target, delivered) {
		return nil
	}
	for _, w := range l.timing.writes.all {
		if w.device == p.Target && w.run == p.ReplyID && w.from < delivered && (w.returned < 0 || w.returned > delivered) {
			return live
		}
	}
	return nil
}

// shutDownBefore: the world asked device to shut down before instant at.
func (l *Ledger) shutDownBefore(device string, at int64) bool {
	sd, ok := l.hostile.shutdownAt[device]
	return ok && sd < at
}
