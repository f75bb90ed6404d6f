package core

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// Workspace errors of the public API. A call answered with one of them
// changed nothing and sent nothing to a Runtime.
var (
	ErrNoWorkspace              = errors.New("core: session has no workspace (environment none)")
	ErrInvalidWorkspaceRequest  = errors.New("core: invalid workspace request")
	ErrWorkspaceBusy            = errors.New("core: workspace busy")
	ErrWorkspaceMutationPending = errors.New("core: an earlier workspace write is not settled")
	// ErrWorkspaceConnBusy: every connection that could serve a write (or
	// an export) has its one write (export) in flight (wire reference
	// §6.1); nothing was reserved, and the call may be made again.
	ErrWorkspaceConnBusy = fmt.Errorf("%w: every admissible connection has its workspace write or export in flight", ErrWorkspaceBusy)
)

// Workspace operation timers and limits (wire reference §3.9–§3.11).
const (
	WorkspaceReadWait       = 17 * time.Second
	WorkspaceWriteWait      = 195 * time.Second
	WorkspaceReadsPerConn   = 4
	WorkspaceWritesPerConn  = 1
	WorkspaceExportsPerConn = 1
	WorkspaceInlineWriteMax = 5 << 20 // public decoded inline body
)

// Public outcomes of a workspace operation.
const (
	WorkspaceCompleted   = "completed"   // the Runtime confirmed it (reads: data after the confirmed close)
	WorkspaceRejected    = "rejected"    // the Runtime refused safely; nothing was read or changed
	WorkspaceUnavailable = "unavailable" // not completed: incomplete read, uncertain cleanup, no device; no data
	WorkspaceUnknown     = "unknown"     // a write that may or may not have been applied
)

// WorkspaceResult answers ReadWorkspace and WriteWorkspace.
type WorkspaceResult struct {
	Outcome string
	// Code names why an operation is not completed (the Runtime's code,
	// or one of Core's: timeout, connection_lost, no_device, cleanup_unconfirmed).
	Code      string
	Data      []byte // completed byte read
	Truncated bool   // completed byte read: data stops at max_bytes
	// Entries is the completed listing; EntriesTruncated says there are more.
	Entries          []wire.DirectoryEntry
	EntriesTruncated bool
	SizeBytes        int64  // completed write
	Mutation         string // write: Core's durable mutation ID
	Archive          []byte // completed export: the tar stream
}

// Core's own reasons for an operation that did not complete.
const (
	wsTimeout            = "timeout"
	wsConnectionLost     = "connection_lost"
	wsNoDevice           = "no_device"
	wsCleanupUnconfirmed = "cleanup_unconfirmed"
)

// coreWorkspace is the machine's volatile workspace state: reads in
// flight (by preparation request ID and by operation ID) and writes in
// flight by mutation ID.
type coreWorkspace struct {
	seq    uint64
	byPrep map[string]*wsRead
	byOp   map[string]*wsRead
	writes map[string]*wsWrite
	late   map[string]*wsLate // unknown writes whose receipt may still arrive (workspace_settle.go)
}

func newCoreWorkspace() coreWorkspace {
	return coreWorkspace{byPrep: map[string]*wsRead{}, byOp: map[string]*wsRead{}, writes: map[string]*wsWrite{},
		late: map[string]*wsLate{}}
}

const (
	timerWorkspaceRead  = "ws-read"
	timerWorkspaceWrite = "ws-write"
)

func (m *Machine) mintOp(prefix string) string {
	m.ws.seq++
	return prefix + "-" + strconv.FormatUint(m.ws.seq, 10)
}

// onWorkspaceTimer handles the workspace family's timers; it reports
// whether kind was one of them.
func (m *Machine) onWorkspaceTimer(kind, subject string) bool {
	switch kind {
	case timerWorkspaceRead:
		if r := m.ws.byOp[subject]; r != nil {
			if r.export != nil && r.sent && !r.export.done {
				m.sendExportCancel(r)
			}
			m.finishRead(r, WorkspaceResult{Outcome: WorkspaceUnavailable, Code: wsTimeout})
		}
	case timerWorkspaceWrite:
		if w := m.ws.writes[subject]; w != nil {
			m.writeTimedOut(w)
		}
	default:
		return false
	}
	return true
}

// onWorkspaceFrame routes a frame of the workspace family; it reports
// whether the frame was one.
func (m *Machine) onWorkspaceFrame(c *conn, f wire.Frame) bool {
	switch p := f.Payload.(type) {
	case wire.PreparationStatus:
		r := m.ws.byPrep[f.ID]
		if r == nil || r.conn != c {
			return false
		}
		m.onReadStatus(r, p)
	case wire.WorkspaceReadResult:
		if r := m.ws.byOp[f.ID]; r != nil && r.conn == c && r.export == nil {
			m.onReadResult(r, p)
		}
	case wire.WorkspaceExportResult:
		if r := m.ws.byOp[f.ID]; r != nil && r.conn == c && r.export != nil {
			m.onExportResult(r, p)
		}
	case wire.WorkspaceWriteResult:
		if w := m.ws.writes[f.ID]; w != nil && w.conn == c {
			m.onWriteReceipt(w, p)
		} else if l := m.ws.late[f.ID]; l != nil && l.conn == c {
			m.onLateReceipt(l, p)
		}
	default:
		return false
	}
	return true
}

// workspaceConnLost ends every operation of a lost connection: reads are
// unavailable; a write in flight stays unsettled (its receipt is lost).
func (m *Machine) workspaceConnLost(c *conn) {
	for _, r := range m.readsOn(c) {
		m.finishRead(r, WorkspaceResult{Outcome: WorkspaceUnavailable, Code: wsConnectionLost})
	}
	for _, w := range m.writesOn(c) {
		m.writeLost(w, wsConnectionLost)
	}
	m.lateReceiptsConnLost(c)
}

func (m *Machine) readsOn(c *conn) []*wsRead {
	var out []*wsRead
	for _, r := range m.ws.byOp {
		if r.conn == c {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *wsRead) int { return compareSeq(a.seq, b.seq) })
	return out
}

func (m *Machine) writesOn(c *conn) []*wsWrite {
	var out []*wsWrite
	for _, w := range m.ws.writes {
		if w.conn == c {
			out = append(out, w)
		}
	}
	slices.SortFunc(out, func(a, b *wsWrite) int { return compareSeq(a.seq, b.seq) })
	return out
}

// workspaceReserved reports whether an idle read or a write in flight
// holds the Session's scheduling reservation (no Turn is prepared
// meanwhile). An unknown write that is no longer in flight blocks later
// writes only. s.wsHeld counts them (holdWorkspace; checkWorkspaceHeld
// holds it to m.ws.byOp and m.ws.writes).
func (m *Machine) workspaceReserved(s *session) bool {
	return s.wsHeld > 0
}

// holdWorkspace adds delta to s.wsHeld, its only writer: +1 when an idle
// read enters m.ws.byOp or a write enters m.ws.writes, -1 when it leaves.
func (m *Machine) holdWorkspace(s *session, delta int) {
	s.wsHeld += delta
}

// checkWorkspaceHeld: every Session's wsHeld is the number of idle reads
// of m.ws.byOp and writes of m.ws.writes that are its. held is the sum of
// wsHeld over all Sessions (checkSessions).
func (m *Machine) checkWorkspaceHeld(held int) {
	n := 0
	for _, r := range m.ws.byOp { //tidy:sorted counts only
		if r.idle {
			r.sess.wsSeen++
			n++
		}
	}
	for _, w := range m.ws.writes { //tidy:sorted counts only
		w.sess.wsSeen++
		n++
	}
	if !(n == held) {
		panicf("%d idle reads and writes in flight vs %d reservations held", n, held)
	}
	for _, r := range m.ws.byOp { //tidy:sorted any failure panics
		if r.idle {
			m.checkHeld(r.sess)
		}
	}
	for _, w := range m.ws.writes { //tidy:sorted any failure panics
		m.checkHeld(w.sess)
	}
}

// checkHeld compares s.wsHeld with the count checkWorkspaceHeld took and
// clears the count.
func (m *Machine) checkHeld(s *session) {
	if s.wsSeen == 0 {
		return // already compared
	}
	if !(s.wsSeen == s.wsHeld) {
		panicf("session %s holds %d workspace reservations, %d in flight", s.rec.ID, s.wsHeld, s.wsSeen)
	}
	s.wsSeen = 0
}

func describeWorkspace(r *WorkspaceResult) string {
	return fmt.Sprintf(" workspace=%s code=%s bytes=%d truncated=%t entries=%d size=%d mutation=%s archive=%d",
		r.Outcome, r.Code, len(r.Data), r.Truncated || r.EntriesTruncated, len(r.Entries), r.SizeBytes, r.Mutation, len(r.Archive))
}
