package core

import (
	"fmt"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// WorkspaceExportWait bounds an export from its admission (wire
// reference §3.11).
const WorkspaceExportWait = 180 * time.Second

// ExportCancelSendBudget bounds the write of an export's cancel (wire
// reference §3.11 step 4 and §6.2: best effort, 2 s): the shell drops the
// cancel, without closing the connection, when it could not be written
// within this long of being queued.
const ExportCancelSendBudget = 2 * time.Second

// ExportWorkspace archives a Session's workspace as one tar stream, on the
// Session's scheduling reservation like an idle read: a read-only profile
// is prepared on a device declaring workspace_read_preparation and
// workspace_output_export, the archive is pulled chunk by chunk (each
// next carries the bytes received so far), the profile is released, and
// the archive is answered once released arrived. Anything else (a result
// Core does not accept, a refusal, a lost connection, no completion
// within 180 s) answers unavailable without data; a cancel is sent best
// effort. Result: *WorkspaceResult (Archive).
//
// With Stream set the archive is not kept: each accepted chunk is handed
// to the caller as an ExportChunk effect and the next chunk is pulled
// only after the caller reported ExportChunkTaken, so at most one chunk
// is held on the caller's behalf (workspace_export_stream.go). The
// result then carries SizeBytes (the archive's length) and no Archive.
type ExportWorkspace struct {
	Call    CallID
	Session string
	Stream  bool
}

func (ExportWorkspace) isEvent() {}
func (e ExportWorkspace) Describe() string {
	if e.Stream {
		return fmt.Sprintf("export-workspace call=%s session=%s stream", e.Call, e.Session)
	}
	return fmt.Sprintf("export-workspace call=%s session=%s", e.Call, e.Session)
}

// wsExport is an export in flight; it rides on a read's reservation and
// preparation (its req is unused).
type wsExport struct {
	archive  []byte
	received int64 // bytes accepted so far (the offset of the next chunk)
	done     bool  // completed arrived
	stream   bool  // chunks go to the caller (ExportChunk), not into archive
	held     bool  // stream: a chunk is with the caller, next not yet sent
}

func (m *Machine) onExportWorkspace(e ExportWorkspace) {
	s := m.sessions[e.Session]
	switch {
	case s == nil:
		m.result(APIResult{Call: e.Call, Err: ErrUnknownSession})
		return
	case s.rec.Agent.Environment == EnvNone:
		m.result(APIResult{Call: e.Call, Err: ErrNoWorkspace})
		return
	case m.sessionActive(s) || m.workspaceReserved(s):
		m.result(APIResult{Call: e.Call, Err: ErrWorkspaceBusy})
		return
	}
	c, atLimit := m.exportConn(s)
	if c == nil && atLimit {
		m.result(APIResult{Call: e.Call, Err: ErrWorkspaceConnBusy}) // nothing reserved
		return
	}
	if c == nil {
		m.result(APIResult{Call: e.Call, Value: &WorkspaceResult{Outcome: WorkspaceUnavailable, Code: wsNoDevice}})
		return
	}
	r := m.newRead(e.Call, s, c, wire.WorkspaceRead{})
	m.setTimer(timerID(timerWorkspaceRead, r.opID), m.now.Add(WorkspaceExportWait))
	r.idle, r.export = true, &wsExport{stream: e.Stream}
	m.holdWorkspace(s, 1)
	r.prepID = m.mint("p", &m.ctr.Preparations)
	r.prepSeq = m.ctr.Preparations
	m.ws.byPrep[r.prepID] = r
	c.preps++
	m.send(c.id, r.prepID, wire.ExecutionPrepare{SessionID: s.rec.ID, Configuration: readOnlyConfig(s.rec)})
}

// exportConn is readConn with workspace_output_export required too, and
// a connection with an export in flight takes no second one (wire
// reference §6.1: one export per connection). atLimit reports that no
// connection was picked only because each otherwise admissible one has
// its export in flight.
func (m *Machine) exportConn(s *session) (best *conn, atLimit bool) {
	for _, id := range m.sortedDeviceIDs() {
		c := m.conns[m.devices[id].conn]
		v, _, _ := checkConn(c, s.rec.Agent.Kind, reqExport)
		if v != admitOK || m.deviceFenced(id) || c.preps >= m.cfg.PreparationsPerConnMax ||
			m.readsInFlight(c) >= WorkspaceReadsPerConn {
			continue
		}
		if m.exportsInFlight(c) >= WorkspaceExportsPerConn {
			atLimit = true
			continue
		}
		if best == nil || c.preps+c.runs < best.preps+best.runs {
			best = c
		}
	}
	return best, atLimit && best == nil
}

// exportsInFlight counts Core's exports in flight on c, from their
// admission to their end.
func (m *Machine) exportsInFlight(c *conn) int {
	n := 0
	for _, r := range m.ws.byOp { //tidy:sorted counts only
		if r.conn == c && r.export != nil {
			n++
		}
	}
	return n
}

// exportReady begins the pull once the profile is ready.
func (m *Machine) exportReady(r *wsRead) {
	m.send(r.conn.id, r.opID, wire.WorkspaceExport{Step: wire.StepBegin, Handle: r.handle,
		EnvironmentID: r.sess.rec.Agent.EnvironmentID})
}

// onExportResult consumes one answer: a chunk at the bytes received so
// far asks for the next; completed releases the profile; anything else
// ends the export as incomplete.
func (m *Machine) onExportResult(r *wsRead, res wire.WorkspaceExportResult) {
	x := r.export
	if x.done || !r.sent {
		return
	}
	if x.held {
		// the Runtime answered before Core asked for the next chunk
		m.sendExportCancel(r)
		m.finishRead(r, WorkspaceResult{Outcome: WorkspaceUnavailable, Code: "incomplete_export"})
		return
	}
	if res.ValidateAgainst(x.received) != nil || (res.Outcome != wire.OutcomeChunk && res.Outcome != wire.OutcomeCompleted) {
		m.sendExportCancel(r)
		m.finishRead(r, WorkspaceResult{Outcome: WorkspaceUnavailable, Code: codeOr(res.ErrorCode, "incomplete_export")})
		return
	}
	if res.Outcome == wire.OutcomeChunk {
		at := x.received
		x.received += int64(len(res.Data))
		if x.stream {
			x.held = true
			m.emit(ExportChunk{Call: r.call, Offset: at, Data: res.Data})
			return
		}
		x.archive = append(x.archive, res.Data...)
		m.send(r.conn.id, r.opID, wire.WorkspaceExport{Step: wire.StepNext, Offset: x.received})
		return
	}
	x.done = true
	done := wire.WorkspaceReadResult{Outcome: wire.OutcomeCompleted, CloseAcknowledged: true}
	r.result = &done
	m.send(r.conn.id, r.prepID, wire.ExecutionRelease{Handle: r.handle})
}

// sendExportCancel tells the Runtime, best effort, that Core stopped
// export r early: the frame carries ExportCancelSendBudget.
func (m *Machine) sendExportCancel(r *wsRead) {
	m.sendBestEffort(r.conn.id, r.opID, wire.WorkspaceExport{Step: wire.StepCancel}, ExportCancelSendBudget)
}
