package check

import "github.com/turnstile-sim/turnstile/wire"

// The rogue Core (world fault rogue_core) runs an admission and a Run of
// its own on an honest Core–daemon connection and sends the daemon, in
// each situation it set up, the frame that is wrong there. The answers
// the seeds document for each (wire reference §3.3, §3.5, §3.7, §6.1,
// §6.4), written out again:
const (
	// an execution_start whose payload does not decode: rejected
	// invalid_start (§3.3: the code names the frame type)
	HostileStartUndecodable = "rcore_start_undecodable"
	// an execution_start that decodes but whose input breaks the message
	// rules (§5.2): rejected invalid_start, before its handle is looked up
	HostileStartInvalidInput = "rcore_start_invalid_input"
	// an execution_release whose payload does not decode: rejected
	// invalid_release
	HostileReleaseUndecodable = "rcore_release_undecodable"
	// a release of a granted handle under another request ID than the
	// prepare that got it: rejected unknown_preparation, the handle
	// untouched (its own start follows and must start)
	HostileReleaseForeignRequest = "rcore_release_foreign_request"
	// a prompt_cancel of its Run before the native start returned:
	// not_ready (CondUnresolved)
	HostileCancelStarting = "rcore_cancel_starting"
	// a durable prompt_steer of its Run before the native start returned:
	// not_ready (CondUnresolved)
	HostileSteerStarting = "rcore_steer_starting"
	// a permission decision for a request the native side asked before
	// its start returned (the daemon holds the request): not_ready
	// (CondUnresolved, on the probe's Run)
	HostileDecisionStarting = "rcore_decision_starting"
	// a new durable input once 256 inputs of its Run were admitted:
	// input_limit (run_inactive once done)
	HostileSteerPastLimit = "rcore_steer_past_limit"
	// a prepare of its Session naming another agent_session_id than the
	// native session the daemon's done reported for the Session's idle
	// executor: native_session_conflict
	HostilePrepareNativeConflict = "rcore_prepare_native_conflict"
	// a prepare of its Session while the Harness holds the Session's
	// executor with a failed close not yet retried successfully:
	// executor_cleanup_unconfirmed (CondCloseFailed)
	HostilePrepareCleanupUnconfirmed = "rcore_prepare_cleanup_unconfirmed"
	// a function result with an image for a call the daemon just asked,
	// on a kind that declares function_tools but not
	// function_result_images: unsupported
	HostileResultImagesPending = "rcore_result_images_pending"
)

// CondUnresolved: the probe names a Run whose start the daemon took (it
// sent `starting` for it on the connection before the frame arrived);
// its answer is judged only while the start is unresolved, that is the
// Harness's native start call had not returned (StartAnswered) when the
// frame reached the daemon. A start answered at that same instant is not
// judged: the order within the instant is the kernel's.
const CondUnresolved = "unresolved"

// CondOwnerOpen: the probe is judged only while the Harness holds the
// executor it names (Executor) open when the answer leaves: once its close
// is confirmed, the Session has no owner and a prepare may create one.
const CondOwnerOpen = "owner_open"

// CondCloseFailed: the probe is judged only if the Harness recorded a
// failed close of Executor on Target (since that executor was created)
// before the frame arrived and has not confirmed a close of it since.
const CondCloseFailed = "close_failed"

func (l *Ledger) closeFailedAnswer(p *HostileProbe, delivered int64) []string {
	k := pairKey(p.Target, p.Executor)
	failed, ok := l.native.closeFailed[k]
	// executor IDs repeat across daemon process lives: only a failure of
	// this life's executor counts
	if e := l.harness.executors[k]; !ok || failed >= delivered || e == nil || e.closed || failed < e.createdAt {
		return nil
	}
	return p.Want
}

// CondRunLive: the answer is Want while the Run is live at the daemon;
// once its output closed (the Harness emitted its native done, or settled
// it, before the frame arrived), the daemon sent its done, or the daemon
// was asked to shut down before the frame arrived (shutdown cancels every
// Turn: daemon/doc.go), the route is closing or gone and the answer is
// run_inactive. A frame arriving in the instant of the shutdown request
// is not judged: the daemon may take either first.
const CondRunLive = "run_live"

func (l *Ledger) runLiveAnswer(p *HostileProbe, delivered int64) []string {
	run := p.ReplyID
	nd, ended := l.native.dones[run]
	ended = ended && nd.at < delivered
	if t := l.harness.turns[run]; t != nil && t.settled != "" && t.settledAt < delivered {
		ended = true
	}
	if ended || l.hostile.doneRun[connIDKey(p.Conn, run)] {
		return []string{"ack/run_inactive"}
	}
	if at, ok := l.hostile.shutdownAt[p.Target]; ok {
		if at == delivered {
			return nil
		}
		if at < delivered {
			return []string{"ack/run_inactive"}
		}
	}
	return p.Want
}

// rogueCoreExpectedMarks are the rogue Core's situations every campaign
// must reach, each refused as documented.
func rogueCoreExpectedMarks() []Mark {
	var out []Mark
	for _, a := range []string{HostileStartUndecodable, HostileStartInvalidInput, HostileReleaseUndecodable, HostileReleaseForeignRequest,
		HostileCancelStarting, HostileSteerStarting, HostileSteerPastLimit, HostilePrepareNativeConflict,
		HostilePrepareCleanupUnconfirmed, HostileSteerWriteOutstanding} {
		out = append(out, HostileMark(a))
	}
	return out
}

// unresolvedAnswer applies CondUnresolved: Want while the start of the
// Run (ReplyID) was unresolved at delivery, else nil (not judged).
func (l *Ledger) unresolvedAnswer(p *HostileProbe, delivered int64) []string {
	run := p.ReplyID
	if p.Run != "" {
		run = p.Run
	}
	if !l.hostile.starting[connIDKey(p.Conn, run)] {
		return nil // the daemon never took the start: another rule answers
	}
	if at, ok := l.native.startAnswered[run]; ok && at <= delivered {
		return nil
	}
	return p.Want
}

// noteStarting records a Run whose start the daemon took on a connection.
func (l *Ledger) noteStarting(ev WireEvent, p wire.PreparationStatus) {
	if p.State == wire.StateStarting && p.RunID != "" {
		l.hostile.starting[connIDKey(ev.Conn, p.RunID)] = true
	}
}

// HostileOwnRun records a Run the rogue Core starts through an admission
// of its own, granted and ready: a native Turn for it is the daemon doing
// its job, not obeying a forgery. Registered when the start is sent.
func (l *Ledger) HostileOwnRun(run string) { l.hostile.ownRuns[run] = true }
