package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/wire"
)

// Workspaces binds Environments to the local workspace owners that serve
// them (adapters/localworkspace.Binding; cmd/turnstile installs it).
type Workspaces = agent.WorkspaceBinding

// ErrUnboundEnvironment reports an Environment without a local workspace.
var ErrUnboundEnvironment = errors.New("runner: environment has no local workspace")

// preparationRegistry is the part of *agent.Registry that finds a kind's
// read-only preparation factory.
type preparationRegistry interface {
	Preparations(kind string) (agent.PreparationFactory, bool, bool)
}

// Workspace call reasons (fixed text).
const (
	reasonNoPreparation = "kind has no workspace read preparation installed"
	reasonUnbound       = "environment has no local workspace"
	reasonDirectory     = "workspace_directory is not this environment's binding"
	reasonCreate        = "environment workspace directory cannot be created"
)

// SetWorkspaces installs the Environment binding; nil binds none.
func (n *Native) SetWorkspaces(w Workspaces) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.workspaces = w
}

func (n *Native) root(env string) (string, error) {
	n.mu.Lock()
	w := n.workspaces
	n.mu.Unlock()
	if w == nil {
		return "", ErrUnboundEnvironment
	}
	return w.Root(env)
}

// errUnboundWorkspace and errWorkspaceDirectory are the refusals of an
// executable preparation whose Environment the Runtime cannot serve.
var (
	errUnboundWorkspace   = errors.New(reasonUnbound)
	errWorkspaceDirectory = errors.New(reasonDirectory)
	errWorkspaceCreate    = errors.New(reasonCreate)
)

// executorRoot is the workspace directory an executable preparation of
// local Environment le runs in: the Runtime's own binding of le.ID,
// created when it does not exist yet. A workspace_directory Core sent
// must be that binding, as for the read-only profile; nil (environment
// none) binds none.
func (n *Native) executorRoot(le *wire.LocalEnvironment) (string, error) {
	if le == nil {
		return "", nil
	}
	root, err := n.root(le.ID)
	if err != nil {
		return "", errUnboundWorkspace
	}
	if le.WorkspaceDirectory != "" && filepath.Clean(le.WorkspaceDirectory) != filepath.Clean(root) {
		return "", errWorkspaceDirectory
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		n.log.Warn("workspace directory not created", "environment", le.ID, "err", err.Error())
		return "", errWorkspaceCreate
	}
	return root, nil
}

// workspaceOp runs one workspace-family call; ok is false for other ops.
func (n *Native) workspaceOp(op daemon.Op) (daemon.Result, bool) {
	switch op := op.(type) {
	case daemon.OpenWorkspace:
		return n.openWorkspace(op), true
	case daemon.CloseWorkspace:
		return n.closeWorkspace(op), true
	case daemon.ReadWorkspace:
		return daemon.ReadWorkspaceResult{Result: n.readWorkspace(op)}, true
	case daemon.WriteWorkspace:
		return n.writeWorkspace(op), true
	case daemon.ExportWorkspace:
		return n.exportWorkspace(op), true
	}
	return nil, false
}

// workspacePanic is the result a panicking workspace call reports.
func workspacePanic(op daemon.Op) (daemon.Result, bool) {
	switch op.(type) {
	case daemon.OpenWorkspace:
		return daemon.OpenWorkspaceResult{Err: reasonPanic, Retained: true}, true
	case daemon.CloseWorkspace:
		return daemon.CloseResult{Err: reasonPanic}, true
	case daemon.ReadWorkspace:
		return daemon.ReadWorkspaceResult{Result: wire.WorkspaceReadResult{Outcome: wire.OutcomeUnknown, ErrorCode: wire.ReadUnconfirmed}}, true
	case daemon.WriteWorkspace:
		return daemon.WriteWorkspaceResult{Outcome: wire.OutcomeUnknown}, true
	case daemon.ExportWorkspace:
		return daemon.ExportWorkspaceResult{Err: reasonPanic}, true
	}
	return nil, false
}

func (n *Native) openWorkspace(op daemon.OpenWorkspace) daemon.Result {
	reg, ok := n.reg.(preparationRegistry)
	if !ok {
		return daemon.OpenWorkspaceResult{Err: reasonNoPreparation}
	}
	f, qualifies, ok := reg.Preparations(op.Kind)
	if !ok || !qualifies {
		return daemon.OpenWorkspaceResult{Err: reasonNoPreparation}
	}
	root, err := n.root(op.Environment)
	if err != nil {
		return daemon.OpenWorkspaceResult{Err: reasonUnbound}
	}
	if op.Directory != "" && filepath.Clean(op.Directory) != filepath.Clean(root) {
		return daemon.OpenWorkspaceResult{Err: reasonDirectory}
	}
	p, err := f.Prepare(n.ctx, agent.ExecutorConfig{SessionID: op.Session, WorkspaceRoot: root})
	if err != nil {
		if p != nil {
			n.keepReader(op.Reader, p) // the factory left a resource: it is still ours to close
			return daemon.OpenWorkspaceResult{Err: err.Error(), Retained: true}
		}
		return daemon.OpenWorkspaceResult{Err: err.Error()}
	}
	if p == nil {
		return daemon.OpenWorkspaceResult{Err: reasonNilExecutor}
	}
	n.keepReader(op.Reader, p)
	return daemon.OpenWorkspaceResult{}
}

func (n *Native) keepReader(id string, p agent.Prepared) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.readers == nil {
		n.readers = map[string]agent.Prepared{}
	}
	n.readers[id] = p
}

func (n *Native) reader(id string) agent.Prepared {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.readers[id]
}

func (n *Native) closeWorkspace(op daemon.CloseWorkspace) daemon.Result {
	p := n.reader(op.Reader)
	if p == nil {
		return daemon.CloseResult{} // never opened: nothing is held
	}
	if err := p.Release(n.ctx); err != nil {
		return daemon.CloseResult{Err: err.Error()}
	}
	n.mu.Lock()
	delete(n.readers, op.Reader)
	n.mu.Unlock()
	return daemon.CloseResult{}
}

// readTarget is the object a read targets: the profile's Prepared, the
// Executor, or the Turn.
func (n *Native) readTarget(t daemon.ReadTarget) any {
	switch {
	case t.Reader != "":
		return n.reader(t.Reader)
	case t.Executor != "":
		return n.executor(t.Executor)
	}
	if nt := n.turn(t.Turn); nt != nil && !nt.broken {
		return nt.turn
	}
	return nil
}

// readWorkspace asks the target; an owner that does not serve the
// operation natively is served by the public local owner on the
// Environment's bound directory.
func (n *Native) readWorkspace(op daemon.ReadWorkspace) wire.WorkspaceReadResult {
	res, served, err := readVia(n.ctx, n.readTarget(op.Target), op.Request)
	if !served || errors.Is(err, agent.ErrUnsupportedOperation) {
		res, err = n.readLocal(op)
	}
	switch {
	case errors.Is(err, agent.ErrUnsupportedOperation):
		return wire.WorkspaceReadResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.ReadUnsupported}
	case err != nil:
		return wire.WorkspaceReadResult{Outcome: wire.OutcomeUnknown, ErrorCode: wire.ReadUnconfirmed}
	}
	return res
}

func readVia(ctx context.Context, target any, req wire.WorkspaceRead) (wire.WorkspaceReadResult, bool, error) {
	if req.Operation == wire.ReadOperationDirectory {
		if l, ok := target.(agent.WorkspaceDirectoryLister); ok {
			res, err := l.ListWorkspaceDirectory(ctx, req)
			return res, true, err
		}
		return wire.WorkspaceReadResult{}, false, nil
	}
	if r, ok := target.(agent.WorkspaceReader); ok {
		res, err := r.ReadWorkspaceFile(ctx, req)
		return res, true, err
	}
	return wire.WorkspaceReadResult{}, false, nil
}

func (n *Native) readLocal(op daemon.ReadWorkspace) (wire.WorkspaceReadResult, error) {
	o, err := n.localOwner(op.Environment)
	if err != nil {
		return wire.WorkspaceReadResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.ReadResourceUnavail}, nil
	}
	res, _, _ := readVia(n.ctx, o, op.Request)
	if err := o.Close(); err != nil && res.Outcome == wire.OutcomeCompleted {
		return wire.WorkspaceReadResult{}, err // the access is not settled
	}
	return res, nil
}

func (n *Native) localOwner(env string) (agent.WorkspaceOwner, error) {
	n.mu.Lock()
	w := n.workspaces
	n.mu.Unlock()
	if w == nil {
		return nil, ErrUnboundEnvironment
	}
	return w.Open(env)
}

// stateDirName is the top-level workspace directory the daemon keeps its
// own state in (Installer: installed capabilities, staging).
const stateDirName = ".turnstile"

// writeWorkspace installs the checked body with the local owner; a path
// into stateDirName is refused (unsafe_destination) before anything.
func (n *Native) writeWorkspace(op daemon.WriteWorkspace) daemon.Result {
	if first, _, _ := strings.Cut(op.Path, "/"); strings.EqualFold(first, stateDirName) {
		// The workspace's .turnstile directory holds the installed
		// capabilities and staging: no workspace write reaches it.
		n.log.Warn("workspace write into the reserved state directory refused", "mutation", op.Mutation, "path", op.Path)
		return daemon.WriteWorkspaceResult{Outcome: wire.OutcomeRejected, Reason: agent.WriteReasonUnsafeDestination}
	}
	o, err := n.localOwner(op.Environment)
	if err != nil {
		return daemon.WriteWorkspaceResult{Outcome: wire.OutcomeRejected, Reason: agent.WriteReasonUnsafeDestination}
	}
	defer func() { _ = o.Close() }()
	err = o.WriteWorkspaceFile(n.ctx, agent.WorkspaceFile{Path: op.Path, SizeBytes: op.SizeBytes, SHA256: op.SHA256,
		Data: bytes.NewReader(op.Data)})
	var rej *agent.WriteRejection
	switch {
	case err == nil:
		return daemon.WriteWorkspaceResult{Outcome: wire.OutcomeCompleted}
	case errors.As(err, &rej):
		return daemon.WriteWorkspaceResult{Outcome: wire.OutcomeRejected, Reason: rej.Reason}
	}
	n.log.Warn("workspace write outcome unknown", "mutation", op.Mutation, "err", err.Error())
	return daemon.WriteWorkspaceResult{Outcome: wire.OutcomeUnknown}
}

// exportWorkspace archives through the profile when it exports, else
// through the local owner on the bound directory.
func (n *Native) exportWorkspace(op daemon.ExportWorkspace) daemon.Result {
	var buf bytes.Buffer
	var err error
	served := false
	if x, ok := n.reader(op.Reader).(agent.WorkspaceExporter); ok {
		_, err = x.ExportWorkspace(n.ctx, &buf)
		served = !errors.Is(err, agent.ErrUnsupportedOperation)
	}
	if !served {
		buf.Reset()
		var o agent.WorkspaceOwner
		if o, err = n.localOwner(op.Environment); err == nil {
			_, err = o.ExportWorkspace(n.ctx, &buf)
			_ = o.Close()
		}
	}
	if err != nil {
		return daemon.ExportWorkspaceResult{Err: fmt.Sprintf("export failed: %v", err)}
	}
	return daemon.ExportWorkspaceResult{Archive: buf.Bytes()}
}
