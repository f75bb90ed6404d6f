package check

import (
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/sim/linearize"
)

// Workspace checks (Rules).
const (
	CheckWorkspaceTruth         = "workspace_truth"
	CheckWorkspaceMutationOrder = "workspace_mutation_order" // workspace_wire.go
	CheckReadOnlyStarted        = "read_only_started"        // workspace_wire.go
	CheckTimingWorkspace        = "timing_workspace"
)

// workspaceAPISlack is the slack for the API's own latency on both legs.
const workspaceAPISlack = time.Second

// checkWorkspaceWait judges an answered call against Core's documented
// wait, timer (timing_workspace).
func (l *Ledger) checkWorkspaceWait(what string, call, ret int64, outcome, code, timer string) {
	took, wait := time.Duration(ret-call), DocumentedTimer(timer)
	switch {
	case outcome == "lost" || outcome == "refused":
	case took > wait+workspaceAPISlack:
		l.violate(ret, CheckTimingWorkspace, "%s answered %s after its call, beyond Core's %s wait", what, took, wait)
	case code == "timeout" && took < wait:
		l.violate(ret, CheckTimingWorkspace, "%s timed out %s after its call, before Core's %s wait", what, took, wait)
	}
}

// Workspace marks.
const (
	MarkReadWhileWriteUnsettled   Mark = "workspace_read_while_write_unsettled" // a read call while a write of its Session was unsettled
	MarkCleanupUnconfirmedRelease Mark = "workspace_cleanup_unconfirmed_then_release"
	MarkDirectoryTruncated        Mark = "workspace_directory_truncated"     // a listing answered truncated
	MarkReadTruncated             Mark = "workspace_read_truncated"          // a byte read answered truncated through Core's API
	MarkWriteSettledLate          Mark = "workspace_write_settled_late"      // the exact receipt of a write Core answered unknown reached it
	MarkWriteCommitRefused        Mark = "workspace_write_commit_refused"    // a commit refused invalid_request (digest mismatch, transfer expired)
	MarkWriteLostMidTransfer      Mark = "workspace_write_lost_mid_transfer" // a begun write's connection ended before its commit
)

// WorkspaceWriteOp is one workspace write through Core's API: the call
// and return instants, the file and value, and Core's public outcome
// ("completed", "rejected", "unavailable", "unknown"; "lost" when no
// answer came; "refused" for an API error).
type WorkspaceWriteOp struct {
	Call, Return int64
	Session, Env string
	Path, Value  string
	Outcome      string
	Code         string
	Mutation     string // Core's mutation ID, when it answered one
	// Overlapping: another write of the Session was unanswered at the call
	Overlapping bool
}

// WriteRefusedPending is the Code of a write Core refused because an
// earlier write of its Session is not settled.
const WriteRefusedPending = "mutation_pending"

// WorkspaceReadOp is one byte read through Core's API.
type WorkspaceReadOp struct {
	Call, Return int64
	Session, Env string
	Path         string
	MaxBytes     int
	Outcome      string // completed, rejected, unavailable, refused, lost
	Code         string
	Value        string
	Truncated    bool
}

type nativeRead struct {
	at              int64
	reader, session string
	path, value     string
	present         bool
}

type workspaceState struct {
	writes      []WorkspaceWriteOp
	reads       []WorkspaceReadOp
	seeded      map[string]linearize.File // env\x00path: the initial file
	native      []nativeRead
	opened      map[string]string   // device\x00reader → session
	closed      map[string]int64    // device\x00reader → confirmed close instant
	failed      map[string]bool     // device\x00reader → a close failed
	applied     map[string]int      // mutation → installs
	commits     map[string]*wsMut   // mutation → Core's view on the wire
	sessMut     map[string][]*wsMut // the wire's session UUID → its writes in order
	readOnlyIDs map[string]bool     // request IDs of the read-only profiles Core sent
	// The native exports, the completed API exports, the exchanges on the
	// wire by export ID (workspace_export.go).
	exports       []nativeExport
	exported      []exportedTree
	exportsOnWire map[string]*exportWire // by connection and export ID
	// The mutations Core answered unknown, and the same by API Session in
	// answer order (workspace_settlement.go).
	answeredUnknown map[string]bool
	unknownBySess   map[string][]wsUnknownWrite
	lostSess        map[string]bool          // Sessions with a write never answered (its outcome unknown to the ledger)
	installs        map[string]installAnswer // device\x00mutation: installer answers not receipted yet (workspace_receipts.go)
}

type wsMut struct {
	id        string
	conn      uint64 // the connection its begin left on
	ended     bool   // that connection ended before the commit
	commit    bool   // Core sent its commit
	settled   bool   // Core received a completed or rejected receipt (or nothing left)
	commitAt  int64  // when Core sent the commit
	settledAt int64  // when that receipt reached Core
	receipt   string // its outcome
	size      int64  // its begin's size_bytes: a completed receipt must carry it
	// unconfirmed: the Runtime's own receipt for the commit, reaching Core
	// before Core answered the write, was unknown; no later result is a
	// receipt of that commit, so nothing settles it
	unconfirmed bool
	// awaiting: Core sent a step of it and no receipt of its ID reached
	// Core on its connection since (workspace_one_per_conn); a receipt
	// either ends the write for Core or makes it send the next step in
	// the same instant. gone: its connection or Core ended. waitEnd: the
	// end of Core's write wait, which runs from the begin.
	awaiting, gone bool
	waitEnd        int64
}

// WorkspaceSeeded records an Environment's initial file.
func (l *Ledger) WorkspaceSeeded(env, name, value string, present bool) {
	made(&l.ws.seeded)[pairKey(env, name)] = linearize.File{Value: value, Present: present}
}

// WorkspaceOpened records a read-only profile's reader opening.
func (l *Ledger) WorkspaceOpened(at int64, device, reader, session, env string) {
	made(&l.ws.opened)[pairKey(device, reader)] = session
}

// WorkspaceClosed records a read-only profile's close: confirmed or
// failed. A confirmed close after a failed one is the retry the
// cleanup_unconfirmed mark names.
func (l *Ledger) WorkspaceClosed(at int64, device, reader string, ok bool) {
	l.advance(at)
	l.readerCloseAnswered(at, device, reader, ok)
	k := pairKey(device, reader)
	if !ok {
		made(&l.ws.failed)[k] = true
		return
	}
	made(&l.ws.closed)[k] = at
	if l.ws.failed[k] {
		l.reach(MarkCleanupUnconfirmedRelease)
	}
}

// WorkspaceRead records a native read.
func (l *Ledger) WorkspaceRead(at int64, device, reader, session, env, name, value string, present bool) {
	if reader != "" {
		reader = pairKey(device, reader)
	}
	l.ws.native = append(l.ws.native, nativeRead{at: at, reader: reader, session: session, path: name, value: value, present: present})
}

// WorkspaceInstalled records a native install.
func (l *Ledger) WorkspaceInstalled(at int64, device, mutation, env, name, value string, digestOK bool) {
	made(&l.ws.applied)[mutation]++
	if l.ws.applied[mutation] > 1 {
		l.violate(at, CheckWorkspaceTruth, "mutation %s installed %d times", mutation, l.ws.applied[mutation])
	}
	if !digestOK {
		l.violate(at, CheckWorkspaceTruth, "mutation %s installed on %s without a matching digest", mutation, device)
	}
}

// WorkspaceWriteCalled records a workspace write the workload made.
func (l *Ledger) WorkspaceWriteCalled(op WorkspaceWriteOp) {
	l.ws.writes = append(l.ws.writes, op)
	if op.Outcome == "unknown" && op.Mutation != "" {
		made(&l.ws.answeredUnknown)[op.Mutation] = true
	}
	l.judgeWriteSettlement(op)
	l.checkWorkspaceWait("write of "+op.Path+" in session "+op.Session, op.Call, op.Return, op.Outcome, op.Code, TimerWorkspaceWrite)
}

// WorkspaceReadCalled records a workspace byte read the workload made; a
// completed answer is judged against its Session's native reads inside the
// call (workspace_truth).
func (l *Ledger) WorkspaceReadCalled(op WorkspaceReadOp) {
	l.ws.reads = append(l.ws.reads, op)
	l.checkWorkspaceWait("read of "+op.Path+" in session "+op.Session, op.Call, op.Return, op.Outcome, op.Code, TimerWorkspaceRead)
	if op.Outcome != "completed" {
		return
	}
	if op.Truncated {
		l.reach(MarkReadTruncated)
	}
	for _, n := range l.ws.native {
		if n.session != op.Session || n.path != op.Path || n.at < op.Call || n.at > op.Return ||
			!n.present || !readServes(n.value, op) {
			continue
		}
		if c, ok := l.ws.closed[n.reader]; n.reader == "" || ok && c <= op.Return {
			return // a Run read has no profile to close
		}
	}
	l.violate(op.Return, CheckWorkspaceTruth, "read of %s in session %s answered %q (truncated %v, max_bytes %d): no native read in [%s, %s] "+
		"served it with its profile closed before the answer", op.Path, op.Session, op.Value, op.Truncated, op.MaxBytes, vtime(op.Call), vtime(op.Return))
}

// readServes: a completed byte read answers the whole file, or (flagged
// truncated) exactly max_bytes of a longer one (wire reference §3.9:
// truncated only when len(data) = max_bytes; the data is the file's first
// bytes).
func readServes(file string, op WorkspaceReadOp) bool {
	if op.Truncated {
		return len(op.Value) == op.MaxBytes && len(file) > op.MaxBytes && strings.HasPrefix(file, op.Value)
	}
	return file == op.Value
}

// WorkspaceListed records a listing's answer (marks only).
func (l *Ledger) WorkspaceListed(truncated bool) {
	if truncated {
		l.reach(MarkDirectoryTruncated)
	}
}

// WorkspaceReadWhileUnsettled records the workload issuing a read while
// one of its Session's writes was unsettled.
func (l *Ledger) WorkspaceReadWhileUnsettled() { l.reach(MarkReadWhileWriteUnsettled) }
