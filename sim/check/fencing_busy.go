package check

import (
	"fmt"

	"github.com/turnstile-sim/turnstile/wire"
)

// Checks: fencing_quiesce_busy, fencing_resume_other,
// fencing_quiesce_closes (rules.go), from the wire and the Harness's live
// turns.

type fenceBusy struct {
	open    map[uint64]map[string]bool // connection → runtime_prepare transfers answered ready, not ended
	closing map[uint64]bool            // connections a daemon answered an accepted quiesce on
}

// judgeAfterQuiesce: nothing follows an accepted quiesce on its
// connection.
func (l *Ledger) judgeAfterQuiesce(ev WireEvent) {
	b := &l.fencing.busy
	if b.closing[ev.Conn] {
		l.violate(ev.At, "fencing_quiesce_closes", "%s sends %s on %s after accepting a quiesce there",
			ev.From, ev.Frame.Type(), connKey(ev.Conn))
		delete(b.closing, ev.Conn) // judged once
	}
}

// fencingTransferResult follows a daemon's runtime_prepare_result: ready
// opens the transfer on its connection, a terminal outcome ends it.
func (l *Ledger) fencingTransferResult(ev WireEvent, r wire.RuntimePrepareResult) {
	b := &l.fencing.busy
	switch r.Outcome {
	case wire.OutcomeReady:
		inner(made(&b.open), ev.Conn)[ev.Frame.ID] = true
	case wire.OutcomeReceived:
	default:
		delete(b.open[ev.Conn], ev.Frame.ID)
	}
	if _, fenced := l.fencing.fenced[ev.From]; fenced && r.Outcome == wire.OutcomeRejected && r.ErrorCode == wire.TransferResourceUnavail {
		l.reach(MarkQuiescedWorkRefused)
	}
}

// fencingForgedArrival notes a forged runtime_prepare or workspace_write
// begin reaching a daemon (a peer racing Core's resume): new work like
// Core's own, judged by fencing_quiesced_work when it first arrives.
func (l *Ledger) fencingForgedArrival(ev WireEvent) {
	if p, ok := ev.Frame.Payload.(wire.RuntimePrepare); ok && p.Step == wire.StepBegin {
		keepFirst(made(&l.fencing.arrived), ev.To+"/x/"+ev.Frame.ID, l.fencing.events)
	}
	if p, ok := ev.Frame.Payload.(wire.WorkspaceWrite); ok && p.Step == wire.StepBegin {
		keepFirst(made(&l.fencing.arrived), ev.To+"/w/"+ev.Frame.ID, l.fencing.events)
	}
}

// busyWork names the work the wire shows active on a daemon answering on
// conn, or "" when it shows none.
func (l *Ledger) busyWork(device string, conn uint64) string {
	if n := len(l.fencing.busy.open[conn]); n > 0 {
		return fmt.Sprintf("%d runtime_prepare transfers open on %s", n, connKey(conn))
	}
	for _, k := range l.frames.admissionOrder {
		if a := l.frames.admissions[k]; a.device == device && l.active(a) {
			return fmt.Sprintf("admission %s (run %q) active", k, a.run)
		}
	}
	return ""
}

// judgeQuiesceAccepted: at an accepted quiesce that fences the daemon
// anew, nothing may be active.
func (l *Ledger) judgeQuiesceAccepted(ev WireEvent, suspend string) {
	if cur, fenced := l.fencing.fenced[ev.From]; fenced && cur.suspend == suspend {
		return // a repeat of the quiesce that fenced it
	}
	if busy := l.busyWork(ev.From, ev.Conn); busy != "" {
		l.violate(ev.At, "fencing_quiesce_busy", "%s accepts quiesce %s with %s", ev.From, suspend, busy)
	}
}

// judgeResumeAccepted: a fenced daemon lifts its fence only for the
// quiescing suspension.
func (l *Ledger) judgeResumeAccepted(ev WireEvent, suspend string) {
	if cur, fenced := l.fencing.fenced[ev.From]; fenced && cur.suspend != suspend {
		l.violate(ev.At, "fencing_resume_other", "%s, fenced by %s, accepts resume %s", ev.From, cur.suspend, suspend)
	}
}
