package daemon

import (
	"fmt"

	"github.com/turnstile-sim/turnstile/wire"
)

// Native operations of the workspace family. Every workspace operation is
// served from the bound local directory by the daemon's own code (the
// local workspace owner); the machine only decides who may run what and
// what Core is told.

// OpenWorkspace opens the read-only preparation profile Reader for
// Session on the bound Environment: no Harness process, no model input.
// Result: OpenWorkspaceResult.
type OpenWorkspace struct {
	Reader      string
	Kind        string
	Session     string
	Environment string
	// Directory is local_environment.workspace_directory as Core sent it
	// (the shell checks it against its own binding); may be empty.
	Directory string
}

// CloseWorkspace closes read-only profile Reader and confirms the local
// close. Result: CloseResult (Err set: not confirmed, still owned).
type CloseWorkspace struct{ Reader string }

// ReadTarget names the owner a read runs against: exactly one of Reader
// (a read-only profile), Executor (a ready executable preparation) or
// Turn (the Run a preparation was transferred to) is set.
type ReadTarget struct {
	Reader   string
	Executor string
	Turn     TurnID
}

func (t ReadTarget) String() string {
	switch {
	case t.Reader != "":
		return "reader=" + t.Reader
	case t.Executor != "":
		return "executor=" + t.Executor
	}
	return "turn=" + string(t.Turn)
}

// ReadWorkspace reads one file or lists one directory of Environment
// through Target. Result: ReadWorkspaceResult.
type ReadWorkspace struct {
	Target      ReadTarget
	Environment string
	Request     wire.WorkspaceRead
}

// WriteWorkspace installs one complete file whose size and SHA-256 the
// machine already checked. Result: WriteWorkspaceResult.
type WriteWorkspace struct {
	Mutation    string // Core's durable mutation ID
	Session     string
	Environment string
	Path        string
	SizeBytes   int64
	SHA256      string
	Data        []byte
}

// ExportWorkspace archives the workspace of read-only profile Reader as
// one tar stream. Result: ExportWorkspaceResult.
type ExportWorkspace struct {
	Reader      string
	Environment string
}

func (OpenWorkspace) isOp()   {}
func (CloseWorkspace) isOp()  {}
func (ReadWorkspace) isOp()   {}
func (WriteWorkspace) isOp()  {}
func (ExportWorkspace) isOp() {}

func (o OpenWorkspace) Describe() string {
	return fmt.Sprintf("open-workspace reader=%s kind=%s session=%s env=%s", o.Reader, o.Kind, o.Session, o.Environment)
}
func (o CloseWorkspace) Describe() string { return "close-workspace reader=" + o.Reader }
func (o ReadWorkspace) Describe() string {
	r := o.Request
	if r.Operation == wire.ReadOperationDirectory {
		return fmt.Sprintf("read-workspace %s env=%s list=%q max_entries=%d", o.Target, o.Environment, r.Path, r.MaxEntries)
	}
	return fmt.Sprintf("read-workspace %s env=%s path=%q max_bytes=%d", o.Target, o.Environment, r.Path, r.MaxBytes)
}
func (o WriteWorkspace) Describe() string {
	return fmt.Sprintf("write-workspace mutation=%s session=%s env=%s path=%q size=%d sha256=%s",
		o.Mutation, o.Session, o.Environment, o.Path, o.SizeBytes, shortFP(o.SHA256))
}
func (o ExportWorkspace) Describe() string {
	return fmt.Sprintf("export-workspace reader=%s env=%s", o.Reader, o.Environment)
}

// OpenWorkspaceResult reports OpenWorkspace. Err empty: the profile is
// open. Err set with Retained: the open failed but left a resource whose
// cleanup is not confirmed; the machine keeps it and closes it.
type OpenWorkspaceResult struct {
	Err      string
	Retained bool
}

// ReadWorkspaceResult reports ReadWorkspace as the owner answered it. A
// result the request does not allow is taken for an ambiguous read.
type ReadWorkspaceResult struct {
	Result wire.WorkspaceReadResult
}

// WriteWorkspaceResult reports WriteWorkspace: Outcome is
// wire.OutcomeCompleted (installed), wire.OutcomeRejected (nothing
// changed; Reason says why) or wire.OutcomeUnknown (it may have changed).
type WriteWorkspaceResult struct {
	Outcome string
	Reason  string
}

// ExportWorkspaceResult reports ExportWorkspace: the complete archive, or
// Err when it could not be produced.
type ExportWorkspaceResult struct {
	Archive []byte
	Err     string
}

func (OpenWorkspaceResult) isResult()   {}
func (ReadWorkspaceResult) isResult()   {}
func (WriteWorkspaceResult) isResult()  {}
func (ExportWorkspaceResult) isResult() {}

func (r OpenWorkspaceResult) Describe() string {
	return fmt.Sprintf("open-workspace err=%q retained=%t", r.Err, r.Retained)
}
func (r ReadWorkspaceResult) Describe() string {
	return "read-workspace " + wire.DescribePayload(r.Result)
}
func (r WriteWorkspaceResult) Describe() string {
	return fmt.Sprintf("write-workspace outcome=%s reason=%q", r.Outcome, r.Reason)
}
func (r ExportWorkspaceResult) Describe() string {
	return fmt.Sprintf("export-workspace bytes=%d err=%q", len(r.Archive), r.Err)
}
