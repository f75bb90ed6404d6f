package check

import (
	"cmp"
	"slices"

	"github.com/turnstile-sim/turnstile/wire"
)

// Probe conditions (HostileProbe.Cond): what the wire, the Harness and
// the world show when the answer arrives changes the answer wanted, or
// makes it not judged (nil).
const (
	CondExpired          = "expired"           // the daemon already sent expired for ReplyID: the republished expired status
	CondEnded            = "ended"             // a release of its own admission: terminal once the daemon sent expired, or failed before
	CondDone             = "done"              // the daemon already sent done for the Run: the route is gone, run_inactive
	CondGranted          = "granted"           // judged only if the daemon granted ReplyID (a status with a handle) first
	CondEvicted          = "evicted"           // a record the connection's table may have evicted (admission_records.go)
	CondTable            = "table"             // a forged prepare: tableAnswer
	CondTransferOpen     = "transfer_open"     // judged only while the transfer (ReplyID) has not ended
	CondUnresolved       = "unresolved"        // unresolvedAnswer
	CondOwnerOpen        = "owner_open"        // judged only while the Harness holds Executor open on Target
	CondCloseFailed      = "close_failed"      // judged only after a failed close of Executor on Target
	CondRunLive          = "run_live"          // runLiveAnswer
	CondWriteOutstanding = "write_outstanding" // writeOutstandingAnswer
	CondFenced           = "fenced"            // judged only while the wire shows Target fenced (fencing_once.go)
	CondResumeRepeat     = "resume_repeat"     // resumeRepeatAnswer (fencing_once.go)
)

// wantNow applies a probe's condition to its Want, from the wire so far
// (the connection index, with the answer's event) and the other records.
// An attack on the injector's own admission (a start or release naming its
// request ID, held back until later grants evicted its record), or on a
// record the condition says may be evicted, finds an evicted request
// unknown.
func (l *Ledger) wantNow(p *HostileProbe, delivered int64) []string {
	c := l.conn(p.Conn)
	own := []string{HostileStartWrongExecutor, HostileStartUsedRun, HostileReleaseOwn, HostileStartReleased}
	held, evicted := c.records.known(p.ReplyID)
	if evicted && (p.Cond == CondEvicted || slices.Contains(own, p.Action)) {
		return []string{"rejected/unknown_preparation"}
	}
	switch p.Cond {
	case CondExpired, CondEnded:
		// a terminal admission only republishes its status (wire reference §3.3)
		switch {
		case c.expired[p.ReplyID]:
			return []string{wire.StateExpired}
		case l.index.before(c.failed[p.ReplyID]) && p.Cond == CondEnded:
			return []string{wire.StateFailed}
		}
	case CondDone:
		if c.run(p.ReplyID).done != 0 {
			return []string{"ack/" + "run_inactive"}
		}
	case CondGranted:
		if _, ok := c.granted[p.ReplyID]; !ok {
			return nil
		}
	case CondTable:
		return l.tableAnswer(p)
	case CondTransferOpen:
		// an ended transfer was forgotten, its write slot maybe reused
		if at, ended := c.writeEnded[p.ReplyID]; ended && at < delivered {
			return nil
		}
	case CondUnresolved:
		return l.unresolvedAnswer(p, delivered)
	case CondRunLive:
		return l.runLiveAnswer(p, delivered)
	case CondOwnerOpen, CondCloseFailed:
		// a failed close counts since the executor was created (executor
		// IDs repeat across daemon process lives) and before the frame arrived
		k := pairKey(p.Target, p.Executor)
		e := l.harness.executors[k]
		failed, ok := l.native.closeFailed[k]
		if e == nil || e.closed || p.Cond == CondCloseFailed && (!ok || failed >= delivered || failed < e.createdAt) {
			return nil
		}
	case CondWriteOutstanding:
		return l.writeOutstandingAnswer(p, delivered)
	case CondFenced:
		if !l.fencedNow(p.Target) {
			return nil
		}
	case CondResumeRepeat:
		return l.resumeRepeatAnswer(p)
	case CondEvicted:
		// one never seen granted may be unknown once
		// DocumentedAdmissionRecordsMax requests were granted
		if !held && len(c.granted) >= DocumentedAdmissionRecordsMax {
			return append([]string{"rejected/unknown_preparation"}, p.Want...)
		}
	}
	if p.Want[0] == AnswerAny {
		return nil
	}
	return p.Want
}

// answerOf renders the frame as a probe answer, or "" when it is no
// answer to a control operation or input.
func answerOf(f wire.Frame) string {
	switch p := f.Payload.(type) {
	case wire.PreparationStatus:
		if p.State == wire.StateRejected {
			return "rejected/" + p.ErrorCode
		}
		return p.State
	case wire.PromptSteerAck:
		return "ack/" + cmp.Or(p.ErrorCode, "ok")
	case wire.InteractionDecisionAck:
		return "ack/" + cmp.Or(p.ErrorCode, "applied")
	case wire.WorkspaceWriteResult:
		return "write/" + p.Outcome + "/" + p.ErrorCode
	case wire.WorkspaceReadResult:
		return "read/" + p.Outcome + "/" + p.ErrorCode
	case wire.RuntimePrepareResult:
		return transferAnswer(p)
	case wire.EnvironmentQuiesced:
		return fencingAnswer("quiesced", p.Accepted, p.ErrorCode)
	case wire.EnvironmentResumed:
		return fencingAnswer("resumed", p.Accepted, p.ErrorCode)
	}
	return ""
}

// unresolvedAnswer: Want, judged only for a Run (Run, else ReplyID) whose
// start the daemon took (sent starting before the event judged) and the
// Harness had not answered when the frame arrived (in that same instant
// the kernel's order decides).
func (l *Ledger) unresolvedAnswer(p *HostileProbe, delivered int64) []string {
	run := cmp.Or(p.Run, p.ReplyID)
	if !l.index.before(l.conn(p.Conn).run(run).starting) {
		return nil // the daemon never took the start: another rule answers
	}
	if at, ok := l.native.startAnswered[run]; ok && at <= delivered {
		return nil
	}
	return p.Want
}

// runLiveAnswer: run_inactive once the Run's output closed (native done
// or settlement before the frame arrived), its done was sent (before the
// event judged), or the daemon was asked to shut down before (shutdown
// cancels every Turn: daemon/doc.go; in that same instant it is not
// judged); else Want.
func (l *Ledger) runLiveAnswer(p *HostileProbe, delivered int64) []string {
	run := p.ReplyID
	nd, nativeDone := l.native.dones[run]
	t := l.harness.turns[run]
	shutdown, asked := l.hostile.shutdownAt[p.Target]
	switch {
	case nativeDone && nd.at < delivered, t != nil && t.settled != "" && t.settledAt < delivered,
		l.index.before(l.conn(p.Conn).run(run).done), asked && shutdown < delivered:
		return []string{"ack/run_inactive"}
	case asked && shutdown == delivered:
		return nil
	}
	return p.Want
}

// writeOutstandingAnswer: busy (wire reference §3.6: one native write per
// Run at a time, even past its budget) while a native durable write of the
// live Run (runLiveAnswer) called before the frame arrived had not
// returned by then; run_inactive once the daemon was asked to shut down
// (its Runs' cancel requested, they take no input); else not judged.
func (l *Ledger) writeOutstandingAnswer(p *HostileProbe, delivered int64) []string {
	live := l.runLiveAnswer(p, delivered)
	if len(live) == 0 {
		return nil
	}
	if sd, ok := l.hostile.shutdownAt[p.Target]; live[0] != p.Want[0] && (!ok || sd >= delivered) {
		return nil
	}
	for _, w := range l.timing.writes.all {
		if w.device == p.Target && w.run == p.ReplyID && w.from < delivered && (w.returned < 0 || w.returned > delivered) {
			return live
		}
	}
	return nil
}
