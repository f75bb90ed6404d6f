package localworkspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// ErrClosed reports an operation on an Owner after Close.
var ErrClosed = errors.New("localworkspace: owner closed")

// Owner serves one bound workspace directory. Every path is resolved
// through an os.Root, so neither `..` nor a symbolic link can reach
// outside the directory. It is safe for concurrent use.
type Owner struct {
	mu     sync.Mutex
	root   *os.Root
	closed bool
}

var (
	_ agent.WorkspaceReader          = (*Owner)(nil)
	_ agent.WorkspaceDirectoryLister = (*Owner)(nil)
	_ agent.WorkspaceWriter          = (*Owner)(nil)
	_ agent.WorkspaceExporter        = (*Owner)(nil)
)

// Open binds an Owner to dir, which must be an existing directory.
func Open(dir string) (*Owner, error) {
	if dir == "" {
		return nil, fmt.Errorf("localworkspace: no workspace directory bound")
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("localworkspace: open workspace: %w", err)
	}
	return &Owner{root: r}, nil
}

// Close releases the directory handle; it is idempotent after success.
func (o *Owner) Close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return nil
	}
	if err := o.root.Close(); err != nil {
		return fmt.Errorf("%w: %w", agent.ErrCloseFailed, err)
	}
	o.closed = true
	return nil
}

func (o *Owner) handle() (*os.Root, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return nil, ErrClosed
	}
	return o.root, nil
}

func rejected(code string) wire.WorkspaceReadResult {
	return wire.WorkspaceReadResult{Outcome: wire.OutcomeRejected, ErrorCode: code}
}

func unknown() wire.WorkspaceReadResult {
	return wire.WorkspaceReadResult{Outcome: wire.OutcomeUnknown, ErrorCode: wire.ReadUnconfirmed}
}

// openCode classifies a failed lookup: it had no effect, so it is a safe
// refusal without bytes.
func openCode(err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		return wire.ReadNotFound
	}
	return wire.ReadPermissionDenied // permission, or a path that escapes the root
}

// cleanPath maps a workspace-relative path to a root name: "" and "."
// name the root itself (directories only); anything that is not a clean
// relative slash path is refused.
func cleanPath(p string, dir bool) (string, bool) {
	if p == "" && dir {
		return ".", true
	}
	if p == "" || strings.ContainsAny(p, "\\\x00\r\n") || !fs.ValidPath(p) || (p == "." && !dir) {
		return "", false
	}
	return p, true
}

// ReadWorkspaceFile reads at most req.MaxBytes of one regular file. The
// answer is completed only after the file was closed; a longer file is
// truncated explicitly at the limit. A symbolic link is never followed.
func (o *Owner) ReadWorkspaceFile(ctx context.Context, req wire.WorkspaceRead) (wire.WorkspaceReadResult, error) {
	root, err := o.handle()
	if err != nil {
		return rejected(wire.ReadResourceUnavail), nil
	}
	name, ok := cleanPath(req.Path, false)
	if !ok || req.MaxBytes < 1 || req.MaxBytes > wire.ReadResultBytesMax {
		return rejected(wire.ReadInvalidRequest), nil
	}
	if err := ctx.Err(); err != nil {
		return rejected(wire.ReadResourceUnavail), nil
	}
	info, err := root.Lstat(name)
	switch {
	case err != nil:
		return rejected(openCode(err)), nil
	case info.Mode()&fs.ModeSymlink != 0:
		return rejected(wire.ReadPermissionDenied), nil
	case !info.Mode().IsRegular():
		return rejected(wire.ReadInvalidRequest), nil
	}
	f, err := root.Open(name)
	if err != nil {
		return rejected(openCode(err)), nil
	}
	buf := make([]byte, req.MaxBytes+1)
	n, rerr := io.ReadFull(f, buf)
	cerr := f.Close()
	if (rerr != nil && rerr != io.EOF && rerr != io.ErrUnexpectedEOF) || cerr != nil {
		return unknown(), nil // interrupted, or the close is not confirmed
	}
	truncated := n > req.MaxBytes
	return wire.WorkspaceReadResult{Outcome: wire.OutcomeCompleted, Data: buf[:min(n, req.MaxBytes)],
		Truncated: truncated, CloseAcknowledged: true}, nil
}

// ListWorkspaceDirectory lists one directory: names sorted, at most
// req.MaxEntries; truncated says the directory holds more (or names the
// listing cannot carry). The path itself must be a directory, never a
// symbolic link (not_directory otherwise, a missing path included).
func (o *Owner) ListWorkspaceDirectory(ctx context.Context, req wire.WorkspaceRead) (wire.WorkspaceReadResult, error) {
	root, err := o.handle()
	if err != nil {
		return rejected(wire.ReadResourceUnavail), nil
	}
	name, ok := cleanPath(req.Path, true)
	if !ok || req.MaxEntries < 1 || req.MaxEntries > wire.DirectoryEntriesMax {
		return rejected(wire.ReadInvalidRequest), nil
	}
	if err := ctx.Err(); err != nil {
		return rejected(wire.ReadResourceUnavail), nil
	}
	info, err := root.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return rejected(wire.ReadNotDirectory), nil
	case err != nil:
		return rejected(openCode(err)), nil
	case !info.IsDir():
		return rejected(wire.ReadNotDirectory), nil
	}
	d, err := root.Open(name)
	if err != nil {
		return rejected(openCode(err)), nil
	}
	ents, rerr := d.ReadDir(-1)
	cerr := d.Close()
	if rerr != nil || cerr != nil {
		return unknown(), nil
	}
	return completedListing(ents, req.MaxEntries), nil
}

func completedListing(ents []fs.DirEntry, max int) wire.WorkspaceReadResult {
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	out := wire.WorkspaceDirectoryResult{Entries: []wire.DirectoryEntry{}}
	for _, e := range ents {
		if !listable(e.Name()) {
			out.Truncated = true // a name the listing cannot carry
			continue
		}
		if len(out.Entries) == max {
			out.Truncated = true
			break
		}
		out.Entries = append(out.Entries, entryOf(e))
	}
	return wire.WorkspaceReadResult{Outcome: wire.OutcomeCompleted, CloseAcknowledged: true, Directory: &out}
}

func listable(name string) bool {
	return name != "" && len(name) <= wire.DirectoryNameBytes && utf8.ValidString(name) &&
		!strings.ContainsAny(name, "/\\\x00\r\n") && name != "." && name != ".."
}

func entryOf(e fs.DirEntry) wire.DirectoryEntry {
	t := e.Type()
	switch {
	case t&fs.ModeSymlink != 0:
		return wire.DirectoryEntry{Name: e.Name(), Kind: wire.EntrySymlink}
	case t.IsDir():
		return wire.DirectoryEntry{Name: e.Name(), Kind: wire.EntryDirectory}
	case t.IsRegular():
		if info, err := e.Info(); err == nil {
			size := info.Size()
			return wire.DirectoryEntry{Name: e.Name(), Kind: wire.EntryFile, SizeBytes: &size}
		}
	}
	return wire.DirectoryEntry{Name: e.Name(), Kind: wire.EntryOther}
}
