package daemonmachine

import (
	"path"
	"slices"
	"strings"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/wire"
)

// tree is one Environment's workspace, in memory: file contents by
// slash-separated path relative to the root. Directories are implied.
type tree map[string][]byte

// putFile lays a file into an Environment's workspace (harness file).
func (h *harness) putFile(env, p string, content []byte) {
	if h.files == nil {
		h.files = map[string]tree{}
	}
	if h.files[env] == nil {
		h.files[env] = tree{}
	}
	h.files[env][path.Clean(p)] = content
}

// workspaceCall answers the workspace family's native calls the way the
// local workspace owner does on a directory: profiles open and close at
// once, a listing is sorted, a byte read is truncated at max_bytes.
func (h *harness) workspaceCall(c daemon.NativeCall) ([]daemon.Event, bool) {
	switch op := c.Op.(type) {
	case daemon.OpenWorkspace:
		return []daemon.Event{result(c.Call, daemon.OpenWorkspaceResult{})}, true
	case daemon.CloseWorkspace:
		return []daemon.Event{result(c.Call, daemon.CloseResult{})}, true
	case daemon.ReadWorkspace:
		return []daemon.Event{result(c.Call, daemon.ReadWorkspaceResult{Result: h.files[op.Environment].read(op.Request)})}, true
	case daemon.ExportWorkspace:
		b, err := h.files[op.Environment].export()
		if err != nil {
			return []daemon.Event{result(c.Call, daemon.ExportWorkspaceResult{Err: err.Error()})}, true
		}
		return []daemon.Event{result(c.Call, daemon.ExportWorkspaceResult{Archive: b})}, true
	case daemon.WriteWorkspace:
		h.putFile(op.Environment, op.Path, op.Data) // the machine checked size and digest
		return []daemon.Event{result(c.Call, daemon.WriteWorkspaceResult{Outcome: wire.OutcomeCompleted})}, true
	}
	return nil, false
}

func (t tree) read(req wire.WorkspaceRead) wire.WorkspaceReadResult {
	if req.Operation == wire.ReadOperationDirectory {
		return t.list(req)
	}
	b, ok := t[path.Clean(req.Path)]
	if !ok {
		return wire.WorkspaceReadResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.ReadNotFound}
	}
	n := min(len(b), req.MaxBytes)
	return wire.WorkspaceReadResult{Outcome: wire.OutcomeCompleted, Data: b[:n], Truncated: len(b) > n, CloseAcknowledged: true}
}

func (t tree) list(req wire.WorkspaceRead) wire.WorkspaceReadResult {
	dir := path.Clean(req.Path)
	prefix := dir + "/"
	if dir == "." || req.Path == "" {
		prefix = ""
	}
	kinds := map[string]wire.DirectoryEntry{}
	for p, b := range t {
		rest, ok := strings.CutPrefix(p, prefix)
		if !ok || rest == "" {
			continue
		}
		if name, _, sub := strings.Cut(rest, "/"); sub {
			kinds[name] = wire.DirectoryEntry{Name: name, Kind: wire.EntryDirectory}
		} else {
			size := int64(len(b))
			kinds[name] = wire.DirectoryEntry{Name: name, Kind: wire.EntryFile, SizeBytes: &size}
		}
	}
	if len(kinds) == 0 && prefix != "" {
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
		out.Entries = append(out.Entries, kinds[n])
	}
	return wire.WorkspaceReadResult{Outcome: wire.OutcomeCompleted, CloseAcknowledged: true, Directory: &out}
}
