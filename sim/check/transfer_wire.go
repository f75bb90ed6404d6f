package check

import "github.com/turnstile-sim/turnstile/wire"

// Checks: transfer_in_flight, transfer_replayed, transfer_result,
// transfer_installed_without_digest, transfer_connection_held (rules.go),
// from the wire, the shared validator's expected answers and the
// simulated installer's ground truth.
//
// A connection is held by the last transfer Core began on it until a
// terminal result of that transfer (completed, rejected, failed or
// unknown, valid or not, forged too) reaches Core on it, or the
// connection ends.

type transferStep struct {
	conn           uint64
	expect         string // the result the step awaits
	offset, total  int64  // a chunk's new end offset; the declared size of a transfer with a body
	answered, body bool   // the daemon sent its result; a skill, plugin or file transfer
}

type transferState struct {
	byID          map[string]*transferStep   // current step of each transfer ID
	conns         map[string]uint64          // transfer ID → the connection Core used
	awaiting      map[uint64]string          // connection → transfer whose step awaits Core's result
	outcomes      map[string]installRec      // device/transfer ID → the installer's outcome (transfer_install.go)
	forgedCommits map[string]bool            // connection/transfer ID of forged commits that reached a daemon
	installing    map[string]map[string]bool // device → installer identities handed to its installer, unanswered
}

func (l *Ledger) observeTransfers(ev WireEvent) {
	s := &l.transfers
	if ev.Kind == WireClosed && ev.To == CoreNode {
		l.transferTime.connEnded[ev.Conn] = ev.At
		if id, open := s.awaiting[ev.Conn]; open {
			delete(s.awaiting, ev.Conn)
			delete(s.byID, id)
			l.reach(MarkTransferLostWithConnection)
		}
		return
	}
	switch p := ev.Frame.Payload.(type) { // none when the frame did not decode
	case wire.RuntimePrepare:
		if ev.From == CoreNode && ev.Kind == WireSent {
			l.transferCoreSent(ev, p)
		}
	case wire.RuntimePrepareResult:
		switch {
		case ev.Kind == WireSent && ev.To == CoreNode:
			l.transferDeviceSent(ev, p)
		case ev.Kind == WireDelivered && ev.To == CoreNode:
			if st := s.byID[ev.Frame.ID]; st != nil && st.conn == ev.Conn {
				delete(s.awaiting, ev.Conn)
				l.transferTimingResult(ev.At, ev.Frame.ID, p.Outcome != wire.OutcomeReady && p.Outcome != wire.OutcomeReceived)
			}
		}
	}
}

func (l *Ledger) transferCoreSent(ev WireEvent, p wire.RuntimePrepare) {
	s := &l.transfers
	id := ev.Frame.ID
	if c, seen := s.conns[id]; seen && c != ev.Conn {
		l.violate(ev.At, "transfer_replayed", "Core sends transfer %s on %s after using it on %s", id, connKey(ev.Conn), connKey(c))
	}
	made(&s.conns)[id] = ev.Conn
	if other, busy := s.awaiting[ev.Conn]; busy {
		l.violate(ev.At, "transfer_in_flight", "Core sends %s step of %s on %s while %s awaits its result", p.Step, id, connKey(ev.Conn), other)
	}
	made(&s.awaiting)[ev.Conn] = id
	prev := s.byID[id]
	st := &transferStep{conn: ev.Conn}
	switch p.Step {
	case wire.StepBegin:
		l.transferTimingBegin(ev.At, ev.Conn, id)
		st.expect, st.body = wire.OutcomeReady, p.Action == wire.PrepareActionSkill || p.Action == wire.PrepareActionPlugin || p.Action == wire.PrepareActionFile
		if st.body {
			st.total = p.SizeBytes
		}
	case wire.StepChunk:
		st.expect, st.offset = wire.OutcomeReceived, p.Offset+int64(len(p.Data))
	case wire.StepCommit:
		st.expect = wire.OutcomeCompleted
	}
	if prev != nil {
		st.total, st.body = prev.total, prev.body
	}
	made(&s.byID)[id] = st
}

func (l *Ledger) transferDeviceSent(ev WireEvent, r wire.RuntimePrepareResult) {
	s := &l.transfers
	st := s.byID[ev.Frame.ID]
	l.earlyCommitAnswered(ev, r)
	if st == nil || st.conn != ev.Conn || st.answered {
		return // a refusal of a step we did not follow (a rogue's, or a late one)
	}
	st.answered = true
	if err := r.ValidateAgainst(st.expect, st.offset, st.total); err != nil { // offset: a chunk's new end, else 0
		l.violate(ev.At, "transfer_result", "%s answers transfer %s awaiting %s: %v", ev.From, ev.Frame.ID, st.expect, err)
	}
	if st.expect == wire.OutcomeCompleted {
		l.judgeInstallOutcome(ev, r)
	}
	switch {
	case r.Outcome == wire.OutcomeCompleted && st.body:
		if s.outcomes[ev.From+"/"+ev.Frame.ID].outcome != InstallOutcomeCompleted {
			l.violate(ev.At, "transfer_installed_without_digest", "%s completes transfer %s that its installer never installed", ev.From, ev.Frame.ID)
		}
		l.reach(MarkTransferCompleted)
	case r.Outcome == wire.OutcomeRejected && r.ErrorCode == wire.TransferRejected:
		l.reach(MarkTransferDigestRejected)
	case r.Outcome == wire.OutcomeFailed && r.ExitCode > 0:
		l.reach(MarkTransferSetupFailed)
	}
}

// terminalTransferOutcome: the Runtime is done with a transfer it
// answered with this outcome.
func terminalTransferOutcome(o string) bool {
	switch o {
	case wire.OutcomeCompleted, wire.OutcomeRejected, wire.OutcomeFailed, wire.OutcomeUnknown:
		return true
	}
	return false
}

// observeTransferHold follows which transfer holds each connection; it
// sees forged results reaching Core too (Core may take them).
func (l *Ledger) observeTransferHold(ev WireEvent) {
	held := &l.transferHeld
	switch {
	case ev.Kind == WireClosed:
		delete(*held, ev.Conn)
	case !ev.HasFrame():
	case ev.Kind == WireSent && ev.From == CoreNode && !ev.Forged:
		p, ok := ev.Frame.Payload.(wire.RuntimePrepare)
		if !ok || p.Step != wire.StepBegin {
			return
		}
		if h := (*held)[ev.Conn]; h != "" && h != ev.Frame.ID {
			l.violate(ev.At, "transfer_connection_held", "Core begins transfer %s on %s while transfer %s, begun there, has no terminal result from the Runtime",
				ev.Frame.ID, connKey(ev.Conn), h)
		}
		made(held)[ev.Conn] = ev.Frame.ID
	case ev.Kind == WireDelivered && ev.To == CoreNode:
		r, ok := ev.Frame.Payload.(wire.RuntimePrepareResult)
		switch {
		case !ok || (*held)[ev.Conn] != ev.Frame.ID:
		case terminalTransferOutcome(r.Outcome):
			delete(*held, ev.Conn)
		case ev.Forged:
			l.reach(MarkTransferHeldAfterInvalid)
		}
	}
}
