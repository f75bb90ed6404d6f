package core

import (
	"fmt"
	"slices"
	"strings"

	"github.com/turnstile-sim/turnstile/wire"
)

// ReadWorkspace reads one file (at most MaxBytes) or lists one directory
// (at most MaxEntries) of a Session's workspace. While the Session's Run
// runs, the read targets that exact Run. Otherwise it runs on the
// Session's scheduling reservation: a read-only preparation is prepared on
// an admissible device, read, released, and the data is returned only
// after the Runtime confirmed the release; no Turn of the Session is
// prepared meanwhile. Result: *WorkspaceResult.
type ReadWorkspace struct {
	Call       CallID
	Session    string
	Path       string
	Directory  bool
	MaxBytes   int // byte reads: 1..1 MiB
	MaxEntries int // listings: 1..1024
}

func (ReadWorkspace) isEvent() {}
func (e ReadWorkspace) Describe() string {
	if e.Directory {
		return fmt.Sprintf("read-workspace call=%s session=%s list=%q max_entries=%d", e.Call, e.Session, e.Path, e.MaxEntries)
	}
	return fmt.Sprintf("read-workspace call=%s session=%s path=%q max_bytes=%d", e.Call, e.Session, e.Path, e.MaxBytes)
}

// wsRead is one read in flight.
type wsRead struct {
	call    CallID
	seq     uint64
	sess    *session
	conn    *conn
	idle    bool // on the Session's reservation (a read-only preparation)
	req     wire.WorkspaceRead
	prepID  string // idle: the preparation's request ID
	prepSeq uint64 // idle: the preparation's request number
	handle  string
	lastRev uint64
	opID    string
	sent    bool                      // workspace_read left
	ended   bool                      // the profile's stream reached a terminal state
	result  *wire.WorkspaceReadResult // the Runtime's answer, awaiting the release
	export  *wsExport                 // an export riding on the reservation
}

// readOnlyMaxHandle is the longest handle a request may carry: the
// request's size is checked with it before anything is sent.
var readOnlyMaxHandle = strings.Repeat("h", wire.IDBytesMax)

func (m *Machine) onReadWorkspace(e ReadWorkspace) {
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
	req := wire.WorkspaceRead{Handle: readOnlyMaxHandle, EnvironmentID: s.rec.Agent.EnvironmentID, Path: e.Path, MaxBytes: e.MaxBytes}
	if e.Directory {
		req.Operation, req.MaxBytes, req.MaxEntries = wire.ReadOperationDirectory, 0, e.MaxEntries
	}
	if err := req.Validate(); err != nil {
		fail(fmt.Errorf("%w: %v", ErrInvalidWorkspaceRequest, err))
		return
	}
	if e.Path != "" || !e.Directory {
		// a clean workspace-relative path (the root only for listings),
		// refused before any Runtime work
		if err := wire.ValidWorkspacePath(e.Path); err != nil {
			fail(fmt.Errorf("%w: %v", ErrInvalidWorkspaceRequest, err))
			return
		}
	}
	req.Handle = ""
	if t := m.runningTurn(s); t != nil {
		m.readRun(e.Call, s, t, req)
		return
	}
	if m.sessionActive(s) || m.workspaceReserved(s) {
		fail(ErrWorkspaceBusy)
		return
	}
	m.readIdle(e.Call, s, req)
}

// runningTurn is the Session's Turn whose Run is routed and running.
func (m *Machine) runningTurn(s *session) *turn {
	if len(s.queue) == 0 {
		return nil
	}
	t := s.queue[0]
	if t.conn == nil || t.rec.RunID == "" || t.rec.State != TurnRunning {
		return nil
	}
	return t
}

// sessionActive: the Session's head Turn is being prepared or claimed.
func (m *Machine) sessionActive(s *session) bool {
	return s.prep != nil || len(s.queue) > 0 && s.queue[0].rec.State != TurnQueued
}

func (m *Machine) readsInFlight(c *conn) int {
	n := 0
	for _, r := range m.ws.byOp {
		if r.conn == c {
			n++
		}
	}
	return n
}

func (m *Machine) newRead(call CallID, s *session, c *conn, req wire.WorkspaceRead) *wsRead {
	r := &wsRead{call: call, sess: s, conn: c, req: req, opID: m.mintOp("r")}
	r.seq = m.ws.seq
	m.ws.byOp[r.opID] = r
	m.setTimer(timerID(timerWorkspaceRead, r.opID), m.now.Add(WorkspaceReadWait))
	return r
}

func (m *Machine) readRun(call CallID, s *session, t *turn, req wire.WorkspaceRead) {
	if m.readsInFlight(t.conn) >= WorkspaceReadsPerConn {
		m.result(APIResult{Call: call, Err: ErrWorkspaceBusy})
		return
	}
	req.RunID = t.rec.RunID
	r := m.newRead(call, s, t.conn, req)
	r.sent = true
	m.send(r.conn.id, r.opID, r.req)
}

// readIdle reserves the Session and prepares a read-only profile on the
// admissible connection with the fewest open preparations and Runs.
func (m *Machine) readIdle(call CallID, s *session, req wire.WorkspaceRead) {
	c := m.readConn(s)
	if c == nil {
		m.result(APIResult{Call: call, Value: &WorkspaceResult{Outcome: WorkspaceUnavailable, Code: wsNoDevice}})
		return
	}
	r := m.newRead(call, s, c, req)
	r.idle = true
	m.holdWorkspace(s, 1)
	r.prepID = m.mint("p", &m.ctr.Preparations)
	r.prepSeq = m.ctr.Preparations
	m.ws.byPrep[r.prepID] = r
	c.preps++
	m.send(c.id, r.prepID, wire.ExecutionPrepare{SessionID: s.rec.ID, Configuration: readOnlyConfig(s.rec)})
}

// readConn picks the connection for an idle read: the kind declared
// available with workspace_read_preparation, fewest preparations and
// Runs, ties by device ID. A device with an unresolved suspension is
// skipped (its Runtime may be quiesced).
func (m *Machine) readConn(s *session) *conn {
	ids := make([]string, 0, len(m.devices))
	for id, d := range m.devices {
		if d.conn != 0 {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	var best *conn
	for _, id := range ids {
		c := m.conns[m.devices[id].conn]
		v, _, _ := checkConn(c, s.rec.Agent.Kind, reqWorkspaceRead)
		if v != admitOK || m.deviceFenced(id) || c.preps >= m.cfg.PreparationsPerConnMax || m.readsInFlight(c) >= WorkspaceReadsPerConn {
			continue
		}
		if best == nil || c.preps+c.runs < best.preps+best.runs {
			best = c
		}
	}
	return best
}

// readOnlyConfig is the read-only profile: the bound Environment and the
// resource identity only.
func readOnlyConfig(s SessionRecord) wire.ExecutionConfiguration {
	return wire.ExecutionConfiguration{
		AgentKind:           s.Agent.Kind,
		AgentStateKey:       wire.AgentStateKey(s.ID),
		StrictResume:        true,
		WorkspaceReadOnly:   true,
		ReleaseOnCompletion: true,
		LocalEnvironment:    &wire.LocalEnvironment{ID: s.Agent.EnvironmentID},
	}
}

// onReadStatus follows the read-only profile's stream with the gateway's
// rules: the first handle, strictly increasing revisions.
func (m *Machine) onReadStatus(r *wsRead, st wire.PreparationStatus) {
	if st.State == wire.StateRejected {
		if r.result == nil && (st.Operation == "" || st.Operation == wire.TypeExecutionPrepare) {
			r.ended = r.handle == "" // the prepare was refused: no handle will come
			m.finishRead(r, WorkspaceResult{Outcome: WorkspaceUnavailable, Code: codeOr(st.ErrorCode, st.State)})
		}
		return
	}
	if !resourceState(st.State) || st.Handle == "" || st.Revision == 0 ||
		(r.handle != "" && st.Handle != r.handle) || st.Revision <= r.lastRev {
		return
	}
	r.handle, r.lastRev = st.Handle, st.Revision
	switch st.State {
	case wire.StateReady:
		switch {
		case r.sent:
		case r.export != nil:
			r.sent = true
			m.exportReady(r)
		default:
			r.sent = true
			r.req.Handle = r.handle
			m.send(r.conn.id, r.opID, r.req)
		}
	case wire.StateReleased:
		r.ended = true
		switch {
		case r.result != nil && r.export != nil:
			m.finishRead(r, r.export.completed())
			return
		case r.result != nil:
			m.finishRead(r, publicRead(*r.result))
			return
		}
		m.stopExport(r)
		m.finishRead(r, WorkspaceResult{Outcome: WorkspaceUnavailable, Code: st.State})
	case wire.StateExpired, wire.StateFailed, wire.StateStarted, wire.StateStarting:
		r.ended = st.State != wire.StateStarting
		code := codeOr(st.ErrorCode, st.State)
		if st.ErrorCode == wsCleanupUnconfirmed {
			code = wsCleanupUnconfirmed
		}
		m.stopExport(r)
		m.finishRead(r, WorkspaceResult{Outcome: WorkspaceUnavailable, Code: code})
	}
}

// stopExport cancels, best effort, an export whose profile ended before
// the exchange did (wire reference §3.11: Core stopping early sends
// cancel; the Runtime may still be producing or streaming it).
func (m *Machine) stopExport(r *wsRead) {
	if r.export != nil && r.sent && !r.export.done {
		m.sendExportCancel(r)
	}
}

// onReadResult takes the Runtime's answer. A run read answers now; an
// idle one releases its profile and answers once the release is
// confirmed. An answer the request does not allow is unknown.
func (m *Machine) onReadResult(r *wsRead, res wire.WorkspaceReadResult) {
	if !r.sent || r.result != nil {
		return
	}
	if res.ValidateAgainst(r.req) != nil {
		res = wire.WorkspaceReadResult{Outcome: wire.OutcomeUnknown, ErrorCode: wire.ReadUnconfirmed}
	}
	if !r.idle {
		m.finishRead(r, publicRead(res))
		return
	}
	r.result = &res
	m.send(r.conn.id, r.prepID, wire.ExecutionRelease{Handle: r.handle})
}

// publicRead is the public answer of a Runtime read result.
func publicRead(res wire.WorkspaceReadResult) WorkspaceResult {
	switch res.Outcome {
	case wire.OutcomeCompleted:
		out := WorkspaceResult{Outcome: WorkspaceCompleted, Data: slices.Clone(res.Data), Truncated: res.Truncated}
		if d := res.Directory; d != nil {
			out.Entries, out.EntriesTruncated = slices.Clone(d.Entries), d.Truncated
			if out.Entries == nil {
				out.Entries = []wire.DirectoryEntry{}
			}
		}
		return out
	case wire.OutcomeRejected:
		return WorkspaceResult{Outcome: WorkspaceRejected, Code: res.ErrorCode}
	}
	return WorkspaceResult{Outcome: WorkspaceUnavailable, Code: codeOr(res.ErrorCode, res.Outcome)}
}

// finishRead answers the call, frees the reservation and forgets the
// read. An idle profile whose release was not asked yet is released
// (best effort: its stream is no longer followed). One whose handle has
// not appeared yet (the read timed out first) stays an open stream of
// its connection, an abandoned preparation: it counts against the
// connection's preparation streams until a status names its handle
// (then it is released), ends it, or the connection closes.
func (m *Machine) finishRead(r *wsRead, out WorkspaceResult) {
	delete(m.ws.byOp, r.opID)
	m.cancelTimer(timerID(timerWorkspaceRead, r.opID))
	if r.idle {
		m.holdWorkspace(r.sess, -1)
		delete(m.ws.byPrep, r.prepID)
		live := r.result == nil && !r.ended && m.conns[r.conn.id] == r.conn
		switch {
		case live && r.handle == "":
			m.addPrep(&preparation{reqID: r.prepID, seq: r.prepSeq, sess: r.sess, conn: r.conn})
		case live:
			r.conn.preps--
			m.send(r.conn.id, r.prepID, wire.ExecutionRelease{Handle: r.handle})
		default:
			r.conn.preps--
		}
	}
	m.result(APIResult{Call: r.call, Value: &out})
}
