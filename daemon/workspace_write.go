package daemon

import (
	"bytes"

	"github.com/turnstile-sim/turnstile/wire"
)

// workspace_write (wire-reference §3.10): begin → ready, chunk →
// received (new end offset) for each acknowledged chunk, commit →
// completed once the native installer ran. One write per connection. The
// machine holds the whole body, checks its size and the declared SHA-256
// before the installer runs, and excludes execution in the Environment
// from begin until the installer answered: a prepare bound to it is
// refused with resource_unavailable, and a begin while an executor bound
// to it executes (or is prepared to) is refused the same way. A begin
// while the Runtime is quiesced (fencing.go) is refused
// resource_unavailable: a quiesced Runtime takes no new work, whatever
// connection the begin came on. A malformed, incomplete or
// expired transfer is dropped and never reaches the installer. An unknown
// installer answer is reported as unknown write_unconfirmed: it may have
// changed the file, and it is never retried.

// transfer is the current connection's write.
type transfer struct {
	gen      ConnID
	id       string
	begin    wire.WorkspaceWrite
	body     bytes.Buffer
	applying bool // commit accepted; the native installer is running
}

func (m *Machine) writeReply(gen ConnID, id string, r wire.WorkspaceWriteResult) {
	m.send(gen, wire.Frame{ID: id, Payload: r}, m.cfg.Limits.ReceiptSendBudget)
}

func (m *Machine) writeRefused(id, code string) {
	m.writeReply(m.conn.gen, id, wire.WorkspaceWriteResult{Outcome: wire.OutcomeRejected, ErrorCode: code})
}

// onWorkspaceWrite handles one step of workspace_write.
func (m *Machine) onWorkspaceWrite(id string, w wire.WorkspaceWrite) {
	if id == "" {
		return
	}
	if !m.cfg.Workspace.Writes {
		m.writeRefused(id, wire.WriteUnsupported)
		return
	}
	t := m.ws.write
	if t != nil && t.id != id {
		m.writeRefused(id, wire.WriteCapacity) // one write per connection
		return
	}
	if t != nil && t.applying {
		// The installer's receipt answers this ID; any other answer now
		// (a repeated or forged frame of the same transfer) would
		// contradict it, so a frame while it applies is not answered.
		return
	}
	if w.Validate() != nil {
		m.dropTransfer(t)
		m.writeRefused(id, wire.WriteInvalidRequest)
		return
	}
	switch w.Step {
	case wire.StepBegin:
		m.writeBegin(id, w, t)
	case wire.StepChunk:
		m.writeChunk(id, w, t)
	case wire.StepCommit:
		m.writeCommit(id, t)
	}
}

func (m *Machine) writeBegin(id string, w wire.WorkspaceWrite, t *transfer) {
	switch {
	case t != nil && (t.applying || t.body.Len() > 0 || !sameBegin(t.begin, w)):
		m.dropTransfer(t) // a begin in the middle of its own transfer
		m.writeRefused(id, wire.WriteInvalidRequest)
		return
	case t != nil:
		m.writeReply(t.gen, id, wire.WorkspaceWriteResult{Outcome: wire.OutcomeReady}) // repeated begin
		return
	case m.shutdown || m.quiesced() || m.environmentExecuting(w.EnvironmentID) || m.ws.applying[w.EnvironmentID] > 0:
		m.writeRefused(id, wire.WriteResourceUnavail)
		return
	}
	t = &transfer{gen: m.conn.gen, id: id, begin: w}
	m.ws.write = t
	m.setTimer(transferTimer(t.gen, id), &timer{kind: timerTransfer, at: m.now.Add(m.cfg.Workspace.TransferExpiry),
		gen: t.gen, input: id})
	m.writeReply(t.gen, id, wire.WorkspaceWriteResult{Outcome: wire.OutcomeReady})
}

func (m *Machine) writeChunk(id string, w wire.WorkspaceWrite, t *transfer) {
	switch {
	case t == nil, t.applying:
		m.writeRefused(id, wire.WriteInvalidRequest)
		return
	case w.Offset != int64(t.body.Len()), w.Offset+int64(len(w.Data)) > t.begin.SizeBytes:
		m.dropTransfer(t) // out of order or beyond the declared size
		m.writeRefused(id, wire.WriteInvalidRequest)
		return
	}
	t.body.Write(w.Data)
	m.writeReply(t.gen, id, wire.WorkspaceWriteResult{Outcome: wire.OutcomeReceived, Offset: int64(t.body.Len())})
}

func (m *Machine) writeCommit(id string, t *transfer) {
	switch {
	case t == nil, t.applying:
		m.writeRefused(id, wire.WriteInvalidRequest)
		return
	case int64(t.body.Len()) != t.begin.SizeBytes, !digestMatches(t.body.Bytes(), t.begin.SHA256):
		m.dropTransfer(t) // incomplete, or not the declared body
		m.writeRefused(id, wire.WriteInvalidRequest)
		return
	}
	t.applying = true
	m.cancelTimer(transferTimer(t.gen, t.id))
	b := t.begin
	m.ws.applying[b.EnvironmentID]++
	m.nativeCall(&call{kind: callWriteWorkspace, op: id, transfer: t}, WriteWorkspace{
		Mutation: id, Session: b.SessionID, Environment: b.EnvironmentID, Path: b.Path,
		SizeBytes: b.SizeBytes, SHA256: b.SHA256, Data: bytes.Clone(t.body.Bytes()),
	})
	t.body = bytes.Buffer{}
}

func sameBegin(a, b wire.WorkspaceWrite) bool {
	return a.EnvironmentID == b.EnvironmentID && a.SessionID == b.SessionID && a.Path == b.Path &&
		a.SizeBytes == b.SizeBytes && a.SHA256 == b.SHA256
}

func digestMatches(body []byte, want string) bool { return wire.SHA256Hex(body) == want }

// environmentExecuting: an executor bound to env is being prepared,
// reserved by an admission or running a Turn (or closing for one).
func (m *Machine) environmentExecuting(env string) bool {
	for _, ex := range m.executors { //tidy:sorted any match gives the same answer
		if ex.env != env {
			continue
		}
		switch {
		case ex.phase == phasePreparing, ex.phase == phaseReserved, ex.phase == phaseBusy:
			return true
		case ex.phase == phaseClosing && (ex.turn != "" || ex.startFail != nil):
			return true
		}
	}
	return false
}

// dropTransfer forgets a transfer that is not applying.
func (m *Machine) dropTransfer(t *transfer) {
	if t == nil || t.applying || m.ws.write != t {
		return
	}
	m.cancelTimer(transferTimer(t.gen, t.id))
	m.ws.write = nil
}

// transferExpired drops a transfer that did not commit in time.
func (m *Machine) transferExpired(gen ConnID, id string) {
	t := m.ws.write
	if t == nil || t.gen != gen || t.id != id || t.applying {
		return
	}
	m.ws.write = nil
	m.writeRefused(id, wire.WriteInvalidRequest)
}

// writeFileDone answers the commit with the installer's receipt and ends
// the Session's exclusion.
func (m *Machine) writeFileDone(c *call, res WriteWorkspaceResult) {
	t := c.transfer
	env := t.begin.EnvironmentID
	if m.ws.applying[env]--; m.ws.applying[env] <= 0 {
		delete(m.ws.applying, env)
	}
	var r wire.WorkspaceWriteResult
	switch res.Outcome {
	case wire.OutcomeCompleted:
		r = wire.WorkspaceWriteResult{Outcome: wire.OutcomeCompleted, SizeBytes: t.begin.SizeBytes}
	case wire.OutcomeRejected:
		r = wire.WorkspaceWriteResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.WriteRejected, Reason: res.Reason}
	default:
		r = wire.WorkspaceWriteResult{Outcome: wire.OutcomeUnknown, ErrorCode: wire.WriteUnconfirmed}
	}
	if m.ws.write == t {
		m.ws.write = nil
		m.writeReply(t.gen, t.id, r)
	}
}
