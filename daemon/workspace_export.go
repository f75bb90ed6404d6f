package daemon

import "github.com/turnstile-sim/turnstile/wire"

// workspace_export (wire-reference §3.11): a pull protocol driven by
// Core, one export per connection, against the handle of a ready
// read-only profile. begin answers the first chunk (or completed for an
// empty archive); each next, carrying the bytes Core consumed so far,
// answers the following chunk or completed at the total; cancel ends the
// export without an answer. The archive is one tar stream produced by
// the local owner before the first chunk is sent.

// exportStream is the current connection's export.
type exportStream struct {
	gen     ConnID
	id      string
	reader  string
	env     string
	archive []byte
	ready   bool // the native export answered
	sent    int64
}

func (m *Machine) exportReply(gen ConnID, id string, r wire.WorkspaceExportResult) {
	m.send(gen, wire.Frame{ID: id, Payload: r}, m.cfg.Limits.ReceiptSendBudget)
}

func (m *Machine) exportRefused(id string, offset int64, code string) {
	m.exportReply(m.conn.gen, id, wire.WorkspaceExportResult{Outcome: wire.OutcomeRejected, Offset: offset, ErrorCode: code})
}

// onWorkspaceExport handles one step of workspace_export.
func (m *Machine) onWorkspaceExport(id string, e wire.WorkspaceExport) {
	if id == "" {
		return
	}
	x := m.ws.export
	switch {
	case x != nil && x.id != id:
		m.exportRefused(id, 0, wire.ReadCapacity) // one export per connection
	case e.Validate() != nil:
		m.endExport(x)
		m.exportRefused(id, 0, wire.ReadInvalidRequest)
	case e.Step == wire.StepBegin && x == nil:
		m.exportBegin(id, e)
	case e.Step == wire.StepCancel && x != nil:
		m.endExport(x) // best effort: nothing is answered
	case e.Step == wire.StepNext && x != nil && x.ready && e.Offset == x.sent:
		m.exportNext(x)
	case e.Step == wire.StepCancel:
	default:
		m.endExport(x)
		m.exportRefused(id, 0, wire.ReadInvalidRequest)
	}
}

func (m *Machine) exportBegin(id string, e wire.WorkspaceExport) {
	a := m.conn.byHandle[e.Handle]
	if a != nil {
		m.expireIfDue(a)
	}
	var r *reader
	if a != nil {
		r = m.ws.readers[a.reader]
	}
	switch {
	case m.shutdown || r == nil || a.state != wire.StateReady || r.releasing || r.blocked:
		m.exportRefused(id, 0, wire.ReadResourceUnavail)
		return
	case r.env != e.EnvironmentID:
		m.exportRefused(id, 0, wire.ReadInvalidRequest)
		return
	case !r.caps.WorkspaceOutputExport.IsSupported():
		m.exportRefused(id, 0, wire.ReadUnsupported)
		return
	}
	x := &exportStream{gen: m.conn.gen, id: id, reader: r.id, env: r.env}
	m.ws.export = x
	r.ops++
	m.nativeCall(&call{kind: callExportWorkspace, op: id, reader: r.id, export: x},
		ExportWorkspace{Reader: r.id, Environment: r.env})
}

// exportDone stores the archive and answers the begin with its first
// chunk; a failed export ends it with export_failed.
func (m *Machine) exportDone(c *call, res ExportWorkspaceResult) {
	if r := m.ws.readers[c.reader]; r != nil {
		m.readerOpDone(r)
	}
	x := c.export
	if m.ws.export != x {
		return // cancelled, or its connection is gone
	}
	if res.Err != "" || int64(len(res.Archive)) > wire.ExportBytesMax {
		m.ws.export = nil
		m.exportReply(x.gen, x.id, wire.WorkspaceExportResult{Outcome: wire.OutcomeFailed, ErrorCode: CodeExportFailed})
		return
	}
	x.archive, x.ready = res.Archive, true
	m.exportNext(x)
}

// exportNext sends the chunk after the bytes sent so far, or completed.
func (m *Machine) exportNext(x *exportStream) {
	rest := int64(len(x.archive)) - x.sent
	if rest == 0 {
		m.ws.export = nil
		m.exportReply(x.gen, x.id, wire.WorkspaceExportResult{Outcome: wire.OutcomeCompleted, Offset: x.sent})
		return
	}
	n := min(rest, int64(wire.ChunkBytesMax))
	data := x.archive[x.sent : x.sent+n]
	m.exportReply(x.gen, x.id, wire.WorkspaceExportResult{Outcome: wire.OutcomeChunk, Offset: x.sent, Data: data})
	x.sent += n
}

// endExport forgets the connection's export (a native export still
// running is awaited by its reader's close).
func (m *Machine) endExport(x *exportStream) {
	if x != nil && m.ws.export == x {
		m.ws.export = nil
	}
}
