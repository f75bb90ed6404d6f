package core

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/turnstile-sim/turnstile/wire"
)

// WriteWorkspace writes one file (at most 5 MiB, checked before any
// Runtime work) into a Session's workspace. The write is reserved durably
// under the Session (MutationRecord) before anything is sent, and a later
// write of the Session is refused until it settled exactly: a completed or
// rejected receipt settles it; a write whose commit may have reached the
// Runtime without a receipt stays unknown, is never replayed, and keeps
// blocking later writes (across restarts). Result: *WorkspaceResult.
type WriteWorkspace struct {
	Call    CallID
	Session string
	Path    string
	Data    []byte
}

func (WriteWorkspace) isEvent() {}
func (e WriteWorkspace) Describe() string {
	return fmt.Sprintf("write-workspace call=%s session=%s path=%q bytes=%d", e.Call, e.Session, e.Path, len(e.Data))
}

// MutationRecord is a Session's workspace write reserved durably.
type MutationRecord struct {
	ID         string // canonical UUID: the wire's mutation ID
	Path       string
	SizeBytes  int64
	SHA256     string
	Device     string
	CommitSent bool // the commit may have reached the Runtime's installer
}

// wsWrite is a write in flight.
type wsWrite struct {
	call   CallID
	seq    uint64
	sess   *session
	conn   *conn
	mut    MutationRecord
	data   []byte
	offset int64 // bytes acknowledged
	step   string
}

func (m *Machine) onWriteWorkspace(e WriteWorkspace) {
	fail := func(err error) { m.result(APIResult{Call: e.Call, Err: err}) }
	s := m.sessions[e.Session]
	switch {
	case s == nil:
		fail(ErrUnknownSession)
		return
	case s.rec.Agent.Environment == EnvNone:
		fail(ErrNoWorkspace)
		return
	}
	if err := checkWrite(s.rec, e); err != nil {
		fail(fmt.Errorf("%w: %v", ErrInvalidWorkspaceRequest, err))
		return
	}
	if mu := s.rec.Mutation; mu != nil {
		if mu.CommitSent || m.ws.writes[mu.ID] != nil {
			fail(ErrWorkspaceMutationPending)
			return
		}
		// Reserved before a crash, before its commit could leave: it
		// never reached the installer, so it settled as not applied.
		m.settleMutation(s)
	}
	if m.sessionActive(s) || m.workspaceReserved(s) {
		fail(ErrWorkspaceBusy)
		return
	}
	c, atLimit := m.writeConn(s)
	if c == nil && atLimit {
		fail(ErrWorkspaceConnBusy) // nothing reserved: the caller may try again
		return
	}
	if c == nil {
		m.result(APIResult{Call: e.Call, Value: &WorkspaceResult{Outcome: WorkspaceUnavailable, Code: wsNoDevice}})
		return
	}
	m.beginWrite(e, s, c)
}

// reservedWorkspaceDir is the top-level directory of an Environment's
// workspace where the Runtime keeps its own state: installed
// capabilities and transfer staging. The public API never writes into it.
const reservedWorkspaceDir = ".turnstile"

// inReservedWorkspaceDir reports whether the clean relative path p is
// reservedWorkspaceDir or below it; the name is compared without case, as
// a case-insensitive file system would.
func inReservedWorkspaceDir(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return strings.EqualFold(first, reservedWorkspaceDir)
}

// checkWrite applies the public and wire rules before any Runtime work.
func checkWrite(s SessionRecord, e WriteWorkspace) error {
	switch {
	case len(e.Data) > WorkspaceInlineWriteMax:
		return fmt.Errorf("body of %d bytes over %d", len(e.Data), WorkspaceInlineWriteMax)
	case wire.ValidWorkspacePath(e.Path) != nil:
		return wire.ValidWorkspacePath(e.Path)
	case inReservedWorkspaceDir(e.Path):
		return fmt.Errorf("path %q is inside the Environment's reserved %s directory (installed capabilities)", e.Path, reservedWorkspaceDir)
	case !wire.CanonicalUUID(s.Agent.EnvironmentID):
		return fmt.Errorf("environment ID is not a canonical UUID")
	}
	return nil
}

// writeConn picks the connection of the device with the Session's kind
// available, fewest preparations and Runs, ties by device ID. A device
// with an unresolved suspension serves no write (its Runtime may be
// quiesced), and a connection with a write in flight takes no second one
// (wire reference §6.1: one write per connection). atLimit reports that
// no connection was picked only because each admissible one has its
// write in flight.
func (m *Machine) writeConn(s *session) (best *conn, atLimit bool) {
	for _, id := range m.sortedDeviceIDs() {
		c := m.conns[m.devices[id].conn]
		if v, _, _ := checkConn(c, s.rec.Agent.Kind, reqNone); v != admitOK || m.deviceFenced(id) {
			continue
		}
		if m.writesInFlight(c) >= WorkspaceWritesPerConn {
			atLimit = true
			continue
		}
		if best == nil || c.preps+c.runs < best.preps+best.runs {
			best = c
		}
	}
	return best, atLimit && best == nil
}

// writesInFlight counts Core's writes in flight on c.
func (m *Machine) writesInFlight(c *conn) int {
	n := 0
	for _, w := range m.ws.writes { //tidy:sorted counts only
		if w.conn == c {
			n++
		}
	}
	return n
}

func (m *Machine) sortedDeviceIDs() []string {
	ids := make([]string, 0, len(m.devices))
	for id, d := range m.devices {
		if d.conn != 0 {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// beginWrite reserves the mutation durably, then sends begin.
func (m *Machine) beginWrite(e WriteWorkspace, s *session, c *conn) {
	s.rec.Mutations++
	mu := MutationRecord{
		ID: derivedUUID("mutation", fmt.Sprintf("%s/%d", s.rec.ID, s.rec.Mutations)), Path: e.Path,
		SizeBytes: int64(len(e.Data)), SHA256: wire.SHA256Hex(e.Data), Device: c.device,
	}
	s.rec.Mutation = &mu
	m.saveSession(s)
	w := &wsWrite{call: e.Call, sess: s, conn: c, mut: mu, data: bytes.Clone(e.Data), step: wire.StepBegin}
	m.ws.seq++
	w.seq = m.ws.seq
	m.ws.writes[mu.ID] = w
	m.holdWorkspace(s, 1)
	m.setTimer(timerID(timerWorkspaceWrite, mu.ID), m.now.Add(WorkspaceWriteWait))
	m.send(c.id, mu.ID, wire.WorkspaceWrite{Step: wire.StepBegin, EnvironmentID: s.rec.Agent.EnvironmentID,
		SessionID: derivedUUID("session", s.rec.ID), Path: mu.Path, SizeBytes: mu.SizeBytes, SHA256: mu.SHA256})
}

// onWriteReceipt advances the transfer: ready and received send the next
// chunk (or the commit); completed settles the write; a refusal settles
// it as not applied; unknown, or a receipt that does not match, leaves it
// unsettled.
func (m *Machine) onWriteReceipt(w *wsWrite, r wire.WorkspaceWriteResult) {
	switch {
	case r.Outcome == wire.OutcomeRejected && r.Validate() == nil:
		m.endWrite(w, WorkspaceResult{Outcome: WorkspaceRejected, Code: codeOr(r.Reason, r.ErrorCode), Mutation: w.mut.ID}, true)
		return
	case r.Outcome == wire.OutcomeUnknown:
		m.writeLost(w, r.ErrorCode)
		return
	}
	expected, offset := wire.OutcomeReady, int64(0)
	switch w.step {
	case wire.StepChunk:
		expected, offset = wire.OutcomeReceived, w.offset+chunkLen(w)
	case wire.StepCommit:
		expected, offset = wire.OutcomeCompleted, 0
	}
	if r.ValidateAgainst(expected, offset, w.mut.SizeBytes) != nil {
		// an ambiguous receipt keeps the uncertainty: the exact one may
		// still come and settles the mutation (workspace_settle.go)
		m.awaitLateReceipt(w)
		m.writeLost(w, "invalid_receipt")
		return
	}
	if w.step == wire.StepCommit {
		m.endWrite(w, WorkspaceResult{Outcome: WorkspaceCompleted, SizeBytes: w.mut.SizeBytes, Mutation: w.mut.ID}, true)
		return
	}
	w.offset = offset
	m.sendNextStep(w)
}

func chunkLen(w *wsWrite) int64 {
	return min(int64(wire.ChunkBytesMax), w.mut.SizeBytes-w.offset)
}

// sendNextStep sends the next chunk, or the commit once every byte is
// acknowledged; CommitSent is durable before the commit leaves.
func (m *Machine) sendNextStep(w *wsWrite) {
	if w.offset < w.mut.SizeBytes {
		w.step = wire.StepChunk
		n := chunkLen(w)
		m.send(w.conn.id, w.mut.ID, wire.WorkspaceWrite{Step: wire.StepChunk, Offset: w.offset,
			Data: w.data[w.offset : w.offset+n]})
		return
	}
	w.step = wire.StepCommit
	w.mut.CommitSent = true
	mu := w.mut
	w.sess.rec.Mutation = &mu
	m.saveSession(w.sess)
	m.send(w.conn.id, w.mut.ID, wire.WorkspaceWrite{Step: wire.StepCommit})
}

// writeLost: the receipt is missing or ambiguous. Before the commit left
// nothing can have been installed: the write settles as not applied.
// After it, the write stays unknown and keeps its reservation.
func (m *Machine) writeLost(w *wsWrite, code string) {
	if !w.mut.CommitSent {
		m.endWrite(w, WorkspaceResult{Outcome: WorkspaceUnavailable, Code: code, Mutation: w.mut.ID}, true)
		return
	}
	m.endWrite(w, WorkspaceResult{Outcome: WorkspaceUnknown, Code: codeOr(code, wire.WriteUnconfirmed), Mutation: w.mut.ID}, false)
}

// writeTimedOut: no receipt within 195 s. After the commit left, the
// receipt may still come on the same connection (workspace_settle.go).
func (m *Machine) writeTimedOut(w *wsWrite) {
	m.awaitLateReceipt(w)
	m.writeLost(w, wsTimeout)
}

// endWrite answers the call and, when settled, clears the reservation.
func (m *Machine) endWrite(w *wsWrite, out WorkspaceResult, settled bool) {
	delete(m.ws.writes, w.mut.ID)
	m.holdWorkspace(w.sess, -1)
	m.cancelTimer(timerID(timerWorkspaceWrite, w.mut.ID))
	if settled {
		m.settleMutation(w.sess)
	}
	m.result(APIResult{Call: w.call, Value: &out})
}

func (m *Machine) settleMutation(s *session) {
	s.rec.Mutation = nil
	m.saveSession(s)
}

// derivedUUID is a deterministic canonical UUID (version 8) naming
// subject within space.
func derivedUUID(space, subject string) string {
	h := []byte(wire.SHA256Hex([]byte("turnstile/" + space + "/" + subject))[:32])
	h[12] = '8'                                                    // version 8
	h[16] = "89ab"[strings.IndexByte("0123456789abcdef", h[16])%4] // RFC 9562 variant
	return string(h[0:8]) + "-" + string(h[8:12]) + "-" + string(h[12:16]) + "-" + string(h[16:20]) + "-" + string(h[20:32])
}
