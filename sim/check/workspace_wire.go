package check

import "github.com/turnstile-sim/turnstile/wire"

// observeWorkspace judges honest workspace frames: workspace_mutation_order,
// read_only_started and workspace_export (rules.go).
func (l *Ledger) observeWorkspace(ev WireEvent) {
	if ev.Kind == WireClosed || ev.Kind == WireLost {
		l.writesMidTransfer(ev.Conn)
		l.exportsClosed(ev.Conn)
	}
	l.observeExport(ev)
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
			if m != nil && m.commit && !m.settled && r.Outcome == wire.OutcomeUnknown && !l.ws.answeredUnknown[id] {
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
		m := l.ws.commits[id]
		if m.conn == conn {
			m.gone = true
		}
		if m.conn == conn && !m.commit && !m.settled && !m.ended {
			m.ended = true
			l.reach(MarkWriteLostMidTransfer)
		}
	}
}

// CheckWorkspaceOnePerConn is rule workspace_one_per_conn (rules.go). A
// write or an export is in flight from its begin until its connection or
// Core ended or Core's wait from the begin passed: a write while Core
// awaits a receipt of it (wsMut.awaiting), an export until an answer
// other than a chunk reached Core or Core sent cancel. The checker can
// only miss, never invent, a second operation in flight.
const CheckWorkspaceOnePerConn = "workspace_one_per_conn"

// observeWorkspaceAtCore sees the workspace answers reaching Core, forged
// ones too (workspace_one_per_conn): any receipt of a write, and the
// forged answers of an export that observeExport, judging honest
// traffic, skips.
func (l *Ledger) observeWorkspaceAtCore(ev WireEvent) {
	if ev.Kind != WireDelivered || ev.To != CoreNode || !ev.HasFrame() {
		return
	}
	switch p := ev.Frame.Payload.(type) {
	case wire.WorkspaceWriteResult:
		if m := l.ws.commits[ev.Frame.ID]; m != nil && m.conn == ev.Conn {
			m.awaiting = false
		}
	case wire.WorkspaceExportResult:
		if x := l.ws.exportsOnWire[connFrameKey(ev.Conn, ev.Frame.ID)]; x != nil && ev.Hostile() && p.Outcome != wire.OutcomeChunk {
			x.answered = true
		}
	}
}

// writeInFlight reports whether Core's write m still awaits a receipt at.
func (m *wsMut) writeInFlight(at int64) bool { return m.awaiting && !m.gone && at < m.waitEnd }

// judgeOneWritePerConn: Core begins write id on conn at; no other write
// of it may be in flight there.
func (l *Ledger) judgeOneWritePerConn(at int64, conn uint64, id string) {
	for _, other := range sortedKeys(l.ws.commits) {
		if m := l.ws.commits[other]; other != id && m.conn == conn && m.writeInFlight(at) {
			l.violate(at, CheckWorkspaceOnePerConn, "Core begins write %s on %s while its write %s is in flight there", id, connKey(conn), other)
			return
		}
	}
}

// writesCoreDown: every write died with Core.
func (l *Ledger) writesCoreDown() {
	for _, m := range l.ws.commits { //tidy:sorted each entry is set alone
		m.gone = true
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
		l.judgeOneWritePerConn(at, ev.Conn, id)
		m := &wsMut{id: id, conn: ev.Conn, size: p.SizeBytes, awaiting: true, waitEnd: at + l.timer(CoreNode, TimerWorkspaceWrite)}
		made(&l.ws.commits)[id] = m
		made(&l.ws.sessMut)[p.SessionID] = append(l.ws.sessMut[p.SessionID], m)
	case wire.StepCommit:
		if m := l.ws.commits[id]; m != nil && !m.commit {
			m.commit, m.commitAt = true, at
		}
	}
	if m := l.ws.commits[id]; m != nil && m.conn == ev.Conn {
		m.awaiting = true
	}
}
