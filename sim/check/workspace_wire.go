package check

import "github.com/turnstile-sim/turnstile/wire"

// observeWorkspace judges Core's workspace frames: workspace_mutation_order,
// read_only_started (rules.go) and, for honest traffic, workspace_export.
func (l *Ledger) observeWorkspace(ev WireEvent) {
	if ev.Kind == WireClosed || ev.Kind == WireLost {
		l.writesMidTransfer(ev.Conn)
		l.exportsClosed(ev.Conn)
	}
	if !ev.Hostile() { // the frame switches below skip a frame that did not decode
		l.observeExport(ev)
	}
	id := ev.Frame.ID
	switch {
	case ev.Kind == WireSent && ev.From == CoreNode:
		switch p := ev.Frame.Payload.(type) {
		case wire.ExecutionPrepare:
			if p.Configuration.WorkspaceReadOnly {
				made(&l.ws.readOnlyIDs)[id] = true
			}
		case wire.ExecutionStart:
			if l.ws.readOnlyIDs[id] {
				l.violate(ev.At, CheckReadOnlyStarted, "execution_start on read-only profile %s", id)
			}
		case wire.WorkspaceWrite:
			l.coreWriteStep(ev, id, p)
		}
	case ev.Kind == WireDelivered && ev.To == CoreNode:
		if r, ok := ev.Frame.Payload.(wire.WorkspaceWriteResult); ok {
			m := l.ws.commits[id]
			if m != nil && m.commit && r.Outcome == wire.OutcomeRejected && r.ErrorCode == wire.WriteInvalidRequest {
				l.reach(MarkWriteCommitRefused)
			}
			if m != nil && m.commit && !m.settled && r.Outcome == wire.OutcomeUnknown && !ev.Hostile() && !l.ws.answeredUnknown[id] {
				m.unconfirmed = true
			}
			exact := r.Outcome == wire.OutcomeCompleted && m != nil && r.SizeBytes == m.size ||
				r.Outcome == wire.OutcomeRejected && r.ErrorCode != ""
			// a receipt reaching a Core the lease moved away from (a
			// zombie) settles nothing: its commit can never be durable
			if m != nil && !m.settled && !m.unconfirmed && exact && !l.failover.zombieConn(ev.Conn) {
				m.settled, m.settledAt, m.receipt = true, ev.At, r.Outcome
				if l.ws.answeredUnknown[id] {
					l.reach(MarkWriteSettledLate)
				}
			}
		}
	}
}

// writesMidTransfer marks a connection ending under a write Core began
// and had not committed.
func (l *Ledger) writesMidTransfer(conn uint64) {
	for _, id := range sortedKeys(l.ws.commits) {
		if m := l.ws.commits[id]; m.conn == conn && !m.commit && !m.settled && !m.ended {
			m.ended = true
			l.reach(MarkWriteLostMidTransfer)
		}
	}
}

func (l *Ledger) coreWriteStep(ev WireEvent, id string, p wire.WorkspaceWrite) {
	at := ev.At
	switch p.Step {
	case wire.StepBegin:
		if l.ws.commits[id] != nil {
			l.violate(at, CheckWorkspaceMutationOrder, "write %s began again (a replay)", id)
			return
		}
		for _, m := range l.ws.sessMut[p.SessionID] {
			if m.commit && !m.settled {
				l.violate(at, CheckWorkspaceMutationOrder, "write %s began while write %s of its Session is unsettled", id, m.id)
			}
		}
		m := &wsMut{id: id, conn: ev.Conn, size: p.SizeBytes}
		made(&l.ws.commits)[id] = m
		made(&l.ws.sessMut)[p.SessionID] = append(l.ws.sessMut[p.SessionID], m)
	case wire.StepCommit:
		if m := l.ws.commits[id]; m != nil && !m.commit {
			m.commit, m.commitAt = true, at
		}
	}
}
