package harness

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/wire"
)

// Workspace fault kinds (registered with the Harness kinds).
const (
	ReadInterrupted    sim.FaultKind = "harness_workspace_read_interrupted"  // the next workspace read is interrupted: its outcome is unknown
	ReaderCloseFailure sim.FaultKind = "harness_workspace_close_failure"     // the next read-only profile close fails (the retry may succeed)
	WriteReceiptLost   sim.FaultKind = "harness_workspace_write_unconfirmed" // the next workspace install answers unknown (applied or not)
	ExportChunkLost    sim.FaultKind = "harness_workspace_export_chunk_lost" // the daemon's next export chunk is lost in flight: its connection breaks
	WorkspaceStall     sim.FaultKind = "harness_workspace_stall"             // the next native read, install or export answers 10–30 s or 185–250 s later
	// ReadOutOfBounds: the next byte read answers completed (a missing
	// file too) outside its request's bounds: max_bytes+1 bytes, or
	// marked truncated with fewer than max_bytes (the pick alternates).
	// The daemon must answer such a read unknown (wire reference §3.9).
	ReadOutOfBounds sim.FaultKind = "harness_workspace_read_out_of_bounds"
)

// Bounds of a stalled native workspace call: a short stall outlasts
// Core's 17 s read wait, a long one its 180 s export and 195 s write
// waits.
const (
	WorkspaceStallShortMin = 10 * time.Second
	WorkspaceStallShortMax = 30 * time.Second
	WorkspaceStallLongMin  = 185 * time.Second
	WorkspaceStallLongMax  = 250 * time.Second
)

// WorkspaceFiles is the names the simulated workspaces hold (and the
// workload reads and writes): a small set, so operations meet.
var WorkspaceFiles = []string{"a.txt", "b.txt", "dir/c.txt"}

// Workspaces is the file tree of every Environment, shared by the world's
// devices: one Environment is one workspace, whichever device serves it.
// Each Environment's tree is seeded from its own stream on first use.
type Workspaces struct {
	w       *sim.Kernel
	trees   map[string]map[string]string
	applied map[string]bool // mutation IDs installed
}

// NewWorkspaces returns the shared trees of world w.
func NewWorkspaces(w *sim.Kernel) *Workspaces {
	return &Workspaces{w: w, trees: map[string]map[string]string{}, applied: map[string]bool{}}
}

// Tree returns env's files, seeding them on first use: each name exists
// with a drawn value or is absent.
func (s *Workspaces) Tree(env string) map[string]string {
	if t, ok := s.trees[env]; ok {
		return t
	}
	r := s.w.Rand("workspace:" + env)
	t := map[string]string{}
	for _, name := range WorkspaceFiles {
		if r.IntN(3) > 0 {
			t[name] = "seed-" + strconv.Itoa(r.IntN(1000))
		}
	}
	seedBulk(t, r.IntN)
	s.trees[env] = t
	return t
}

// WorkspaceRecorder is an optional extension of Recorder: the native
// workspace facts as they happen.
type WorkspaceRecorder interface {
	// WorkspaceSeeded reports env's initial file at name (present or not).
	WorkspaceSeeded(env, name, value string, present bool)
	// WorkspaceOpened / WorkspaceClosed: a read-only profile's reader for
	// session opened, and its close confirmed (or failed).
	WorkspaceOpened(at int64, device, reader, session, env string)
	WorkspaceClosed(at int64, device, reader string, ok bool)
	// WorkspaceRead: the native read of name in env served value (present
	// or not) through reader ("" for an Executor or Turn target).
	WorkspaceRead(at int64, device, reader, session, env, name, value string, present bool)
	// WorkspaceInstalled: mutation installed value at name in env;
	// digestOK says the body matched its declared digest.
	WorkspaceInstalled(at int64, device, mutation, env, name, value string, digestOK bool)
}

func (h *Harness) wsRecorder() WorkspaceRecorder {
	r, _ := h.dev.Recorder.(WorkspaceRecorder)
	return r
}

// workspaces is the device's shared trees (its own when none is shared).
func (h *Harness) workspaces() *Workspaces {
	if h.dev.Workspaces == nil {
		h.dev.Workspaces = NewWorkspaces(h.w)
	}
	return h.dev.Workspaces
}

// tree returns env's files and reports the seed the first time.
func (h *Harness) tree(env string) map[string]string {
	ws := h.workspaces()
	_, seen := ws.trees[env]
	t := ws.Tree(env)
	if rec := h.wsRecorder(); rec != nil && !seen {
		for _, name := range WorkspaceFiles {
			v, ok := t[name]
			rec.WorkspaceSeeded(env, name, v, ok)
		}
	}
	return t
}

// hReader is an open read-only profile.
type hReader struct {
	session, env string
	closed       bool
}

// workspaceCall answers one call of the workspace family; it reports
// whether op was one.
func (h *Harness) workspaceCall(now time.Time, c daemon.CallID, op daemon.Op) bool {
	switch op := op.(type) {
	case daemon.OpenWorkspace:
		h.later(now, h.latency(), func(now time.Time) {
			h.readers()[op.Reader] = &hReader{session: op.Session, env: op.Environment}
			h.tree(op.Environment)
			if rec := h.wsRecorder(); rec != nil {
				rec.WorkspaceOpened(at(now), string(h.dev.ID), op.Reader, op.Session, op.Environment)
			}
			h.result(now, c, daemon.OpenWorkspaceResult{})
		})
	case daemon.CloseWorkspace:
		h.closeReader(now, c, op)
	case daemon.ReadWorkspace:
		h.readWorkspace(now, c, op)
	case daemon.WriteWorkspace:
		h.writeWorkspace(now, c, op)
	case daemon.ExportWorkspace:
		h.exportWorkspace(now, c, op)
	default:
		return false
	}
	return true
}

func (h *Harness) readers() map[string]*hReader {
	if h.wsReaders == nil {
		h.wsReaders = map[string]*hReader{}
	}
	return h.wsReaders
}

// WorkspaceCloseRecorder is an optional extension of Recorder: a
// read-only profile's close arriving at the Harness (the close-retry
// backoff oracle times the retries from it).
type WorkspaceCloseRecorder interface {
	WorkspaceCloseCalled(at int64, device, reader string)
}

func (h *Harness) closeReader(now time.Time, c daemon.CallID, op daemon.CloseWorkspace) {
	if rec, ok := h.dev.Recorder.(WorkspaceCloseRecorder); ok {
		rec.WorkspaceCloseCalled(at(now), string(h.dev.ID), op.Reader)
	}
	fail := h.take(ReaderCloseFailure)
	h.later(now, h.latency(), func(now time.Time) {
		rd := h.readers()[op.Reader]
		if rd == nil || rd.closed {
			h.truth.violate("close of unknown or closed reader %s", op.Reader)
		}
		if rec := h.wsRecorder(); rec != nil {
			rec.WorkspaceClosed(at(now), string(h.dev.ID), op.Reader, !fail)
		}
		if fail {
			h.result(now, c, daemon.CloseResult{Err: "simulated workspace close failure"})
			return
		}
		if rd != nil {
			rd.closed = true
		}
		h.result(now, c, daemon.CloseResult{})
	})
}

// readTarget resolves a read's session and checks its owner is live.
func (h *Harness) readOwner(t daemon.ReadTarget) (session string, ok bool) {
	switch {
	case t.Reader != "":
		rd := h.readers()[t.Reader]
		return sessionOf(rd), rd != nil && !rd.closed
	case t.Executor != "":
		ex := h.execs[t.Executor]
		return sessionOfExec(ex), ex != nil && !ex.truth.Closed
	}
	tu := h.turns[t.Turn]
	if tu == nil {
		return "", false
	}
	ex := h.execs[tu.exec]
	return sessionOfExec(ex), ex != nil
}

func sessionOf(r *hReader) string {
	if r == nil {
		return ""
	}
	return r.session
}

func sessionOfExec(ex *hExec) string {
	if ex == nil {
		return ""
	}
	return ex.session
}

func (h *Harness) readWorkspace(now time.Time, c daemon.CallID, op daemon.ReadWorkspace) {
	interrupted := h.take(ReadInterrupted)
	outOfBounds := !interrupted && op.Request.Operation != wire.ReadOperationDirectory && h.take(ReadOutOfBounds)
	session, live := h.readOwner(op.Target)
	if !live {
		h.truth.violate("workspace read through %s, which is not open", op.Target)
	}
	h.later(now, h.wsLatency(wsRead), func(now time.Time) {
		// A dispatched read may outlive its Turn or Executor (the seed
		// keeps its waiter after a transfer or release), but a read-only
		// profile is closed only after its reads answered.
		if _, live := h.readOwner(op.Target); !live && op.Target.Reader != "" {
			h.truth.violate("workspace read through %s, closed before the read answered", op.Target)
		}
		if interrupted {
			h.result(now, c, daemon.ReadWorkspaceResult{Result: wire.WorkspaceReadResult{Outcome: wire.OutcomeUnknown, ErrorCode: wire.ReadUnconfirmed}})
			return
		}
		t := h.tree(op.Environment)
		req := op.Request
		if req.Operation == wire.ReadOperationDirectory {
			h.result(now, c, daemon.ReadWorkspaceResult{Result: listing(t, req)})
			return
		}
		v, ok := t[req.Path]
		if rec := h.wsRecorder(); rec != nil {
			rec.WorkspaceRead(at(now), string(h.dev.ID), op.Target.Reader, session, op.Environment, req.Path, v, ok)
		}
		if !ok && !outOfBounds {
			h.result(now, c, daemon.ReadWorkspaceResult{Result: wire.WorkspaceReadResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.ReadNotFound}})
			return
		}
		data := []byte(v)
		res := wire.WorkspaceReadResult{Outcome: wire.OutcomeCompleted, CloseAcknowledged: true, Data: data}
		if len(data) > req.MaxBytes {
			res.Data, res.Truncated = data[:req.MaxBytes], true
		}
		if outOfBounds {
			h.outOfBoundsRead(&res, req)
			if rec, ok := h.dev.Recorder.(WorkspaceBoundsRecorder); ok {
				rec.WorkspaceReadOutOfBounds(at(now), string(h.dev.ID))
			}
		}
		h.result(now, c, daemon.ReadWorkspaceResult{Result: res})
	})
}

// WorkspaceBoundsRecorder is an optional extension of Recorder: a native
// byte read answered outside its request's bounds
// (harness_workspace_read_out_of_bounds).
type WorkspaceBoundsRecorder interface {
	WorkspaceReadOutOfBounds(at int64, device string)
}

// outOfBoundsRead bends a completed byte read out of its request's
// bounds: one byte over max_bytes, or truncated with fewer bytes than
// max_bytes, alternating per device.
func (h *Harness) outOfBoundsRead(res *wire.WorkspaceReadResult, req wire.WorkspaceRead) {
	h.boundsPick++
	data := res.Data
	if h.boundsPick%2 == 1 {
		over := slices.Clone(data[:min(len(data), req.MaxBytes)])
		for len(over) <= req.MaxBytes {
			over = append(over, 'x')
		}
		res.Data, res.Truncated = over, false
		return
	}
	res.Data, res.Truncated = data[:min(len(data), max(req.MaxBytes-1, 0))], true
}

// listing lists the directory req names in tree t, sorted, truncated at
// max_entries.
func listing(t map[string]string, req wire.WorkspaceRead) wire.WorkspaceReadResult {
	prefix := ""
	if req.Path != "" {
		prefix = req.Path + "/"
	}
	kinds := map[string]string{}
	sizes := map[string]int64{}
	for name, v := range t { //tidy:sorted the entries are sorted below
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok {
			continue
		}
		if dir, _, nested := strings.Cut(rest, "/"); nested {
			kinds[dir] = wire.EntryDirectory
		} else {
			kinds[rest], sizes[rest] = wire.EntryFile, int64(len(v))
		}
	}
	if len(kinds) == 0 && req.Path != "" {
		return wire.WorkspaceReadResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.ReadNotDirectory}
	}
	names := make([]string, 0, len(kinds))
	for n := range kinds {
		names = append(names, n)
	}
	slices.Sort(names)
	out := wire.WorkspaceDirectoryResult{Entries: []wire.DirectoryEntry{}}
	for _, n := range names {
		if len(out.Entries) == req.MaxEntries {
			out.Truncated = true
			break
		}
		e := wire.DirectoryEntry{Name: n, Kind: kinds[n]}
		if e.Kind == wire.EntryFile {
			size := sizes[n]
			e.SizeBytes = &size
		}
		out.Entries = append(out.Entries, e)
	}
	return wire.WorkspaceReadResult{Outcome: wire.OutcomeCompleted, CloseAcknowledged: true, Directory: &out}
}

// writeWorkspace installs the body (checking its digest and that the
// mutation is installed once) and answers completed, or unknown under a
// receipt-lost fault (installed or not, drawn).
func (h *Harness) writeWorkspace(now time.Time, c daemon.CallID, op daemon.WriteWorkspace) {
	lost := h.take(WriteReceiptLost)
	apply := !lost || h.r.IntN(2) == 0
	h.later(now, h.wsLatency(wsInstall), func(now time.Time) {
		digestOK := wire.SHA256Hex(op.Data) == op.SHA256 && int64(len(op.Data)) == op.SizeBytes
		ws := h.workspaces()
		if reason := installRefusal(h.tree(op.Environment), op.Path); reason != "" {
			h.installAnswered(now, op.Mutation, wire.OutcomeRejected, reason)
			h.result(now, c, daemon.WriteWorkspaceResult{Outcome: wire.OutcomeRejected, Reason: reason})
			return
		}
		if apply {
			if ws.applied[op.Mutation] {
				h.truth.violate("workspace mutation %s installed twice", op.Mutation)
			}
			if !digestOK {
				h.truth.violate("workspace mutation %s installed without a matching digest", op.Mutation)
			}
			ws.applied[op.Mutation] = true
			h.tree(op.Environment)[op.Path] = string(op.Data)
			if rec := h.wsRecorder(); rec != nil {
				rec.WorkspaceInstalled(at(now), string(h.dev.ID), op.Mutation, op.Environment, op.Path, string(op.Data), digestOK)
			}
		}
		if lost {
			h.installAnswered(now, op.Mutation, wire.OutcomeUnknown, "")
			h.result(now, c, daemon.WriteWorkspaceResult{Outcome: wire.OutcomeUnknown})
			return
		}
		h.installAnswered(now, op.Mutation, wire.OutcomeCompleted, "")
		h.result(now, c, daemon.WriteWorkspaceResult{Outcome: wire.OutcomeCompleted})
	})
}
