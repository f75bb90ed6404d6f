package agent

import (
	"context"
	"fmt"
	"io"

	"github.com/turnstile-sim/turnstile/wire"
)

// ExecutorConfig is the immutable execution configuration an Executor is
// prepared for. It carries no model input.
type ExecutorConfig struct {
	// SessionID is the Core Session the Executor is bound to.
	SessionID string
	// Configuration is execution_prepare.configuration as admitted.
	Configuration wire.ExecutionConfiguration
	// WorkspaceRoot is the workspace directory the Runtime bound for this
	// Session; the native Harness must run in it. Empty for environment none.
	WorkspaceRoot string
	// Installed is the bound Environment's installed-capability snapshot
	// (skills, plugins, files and initializations runtime_prepare
	// completed), loaded before the factory is called; it outlives the
	// Executor (only reclaiming the Environment ends it).
	Installed []InstalledCapability
	// MCP is the Executor's effective MCP binding (ResolveMCPBindings over
	// Configuration and the snapshot's servers). Its tokens are read with
	// MCPBinding.Token to authenticate a connection and never written to a
	// native profile, a file or a log.
	MCP MCPBindings
}

// InstalledCapability is one entry of the installed snapshot.
type InstalledCapability struct {
	Action string // skill, plugin, file, initialize or finalize
	Name   string // skill or plugin name, file path, initialization action
}

// ExecutorFactory prepares Executors. NewExecutor readies native resources
// for cfg without submitting any model input. On error it either released
// everything it created (and returns a nil Executor) or returns the
// Executor together with the error: the caller then owns that cleanup
// (the unused-preparation sequence below, then Close) until it is
// confirmed. It never leaves an unreported native resource behind.
//
// The Executor it returns is an executable preparation until a Turn
// starts on it. An Executor whose preparation owns resources or output of
// its own implements Prepared and PreparedCancellation (both, on the
// Executor), and the Runtime drives them:
//
//   - start: the first StartTurn that returns a Turn consumes the
//     preparation; the Turn owns its output from then on, and the Runtime
//     never calls CancelPrepared or Release on that Executor again.
//   - cancel and unused cleanup: an Executor retired before any Turn
//     started on it (idle expiry, eviction, replacement, shutdown, or a
//     NewExecutor that failed but returned it) gets CancelPrepared, then
//     Release, then Close. Any failure keeps it owned, and the Runtime
//     repeats the sequence serially, so each call is idempotent after
//     success. After CancelPrepared, StartTurn refuses with a nil Turn and
//     ErrExecutorUnavailable, writing nothing.
//
// An Executor that implements neither is retired by Close alone.
type ExecutorFactory interface {
	NewExecutor(ctx context.Context, cfg ExecutorConfig) (Executor, error)
}

// Executor is the reusable native owner of one Session: the native process,
// query or connection, fixed configuration and native session identity.
type Executor interface {
	// StartTurn submits req.Input as one new Turn and returns it.
	//
	// The nil-Turn rule: a nil Turn guarantees that no native input was
	// submitted and that the adapter kept no reference to req.Output; the
	// caller still owns the channel and closes it. Once input may have been
	// submitted, StartTurn returns a non-nil Turn even when it also returns
	// an error: that Turn owns closing req.Output exactly once and must be
	// tracked until AwaitSettlement confirms settlement. A nil Turn is never
	// an "unsupported" marker, and unknown input is never replayed.
	//
	// StartTurn never replaces a healthy native resource. It refuses with
	// ErrExecutorBusy while the previous Turn is unsettled and with
	// ErrExecutorUnavailable after Close or retirement, both with a nil Turn.
	StartTurn(ctx context.Context, req TurnRequest) (Turn, error)

	// Close releases the Executor's native resources and confirms it.
	// It is independent of any Turn outcome, idempotent after success, and
	// on failure (ErrCloseFailed or ctx expiry) keeps the resources owned so
	// that the caller can retry serially. Close never releases the
	// Environment or the workspace.
	Close(ctx context.Context) error
}

// TurnRequest is one Turn's input and output.
type TurnRequest struct {
	// RunID identifies the Turn; every Event carries it.
	RunID string
	// Input is the ordered initial input. Text-only adapters convert it with
	// MessageInput.TextOnly and refuse images; they never drop them.
	Input wire.MessageInput
	// Output receives the Turn's events in order. The caller creates it
	// (bounded, drained by one consumer started before StartTurn); see the
	// nil-Turn rule on Executor.StartTurn for who closes it.
	Output chan<- Event
}

// Validate checks the request's shape; it wraps ErrInvalidRequest.
func (r TurnRequest) Validate() error {
	if r.RunID == "" {
		return fmt.Errorf("%w: blank run ID", ErrInvalidRequest)
	}
	if r.Output == nil {
		return fmt.Errorf("%w: nil output channel", ErrInvalidRequest)
	}
	if err := r.Input.Validate(); err != nil {
		return fmt.Errorf("%w: input: %w", ErrInvalidRequest, err)
	}
	return nil
}

// Session is a cancellable native execution. Every Session declares its
// CancellationOutcome; Turn and the direct-call Factory's results are
// Sessions.
type Session interface {
	// Cancel requests cancellation of exactly this execution and returns
	// without waiting for settlement. It never closes a healthy Executor.
	// Cancelling a settled execution has no effect and returns nil.
	Cancel(ctx context.Context) error
	// CancellationOutcome returns the current snapshot without waiting.
	CancellationOutcome() CancellationOutcome
}

// Turn owns one input execution, its output stream and its cancellation.
type Turn interface {
	Session
	DurableSteerer
	// AwaitSettlement waits until the Turn settled, after natural completion
	// or cancellation alike. Success means the output channel is closed and
	// the Turn's native events, inputs, functions, interactions and
	// background work are settled. An error (ErrNotSettled, wrapping the
	// context error) proves nothing: ownership and capacity stay held.
	AwaitSettlement(ctx context.Context) (TurnSettlement, error)
}

// SteerInput is one active-Turn input with its retry identity.
type SteerInput struct {
	InputID string
	Input   wire.MessageInput
}

// Validate checks the identity and input; it wraps ErrInvalidRequest.
func (s SteerInput) Validate() error {
	if s.InputID == "" || len(s.InputID) > wire.InputIDBytesMax {
		return fmt.Errorf("%w: input ID blank or too long", ErrInvalidRequest)
	}
	if err := s.Input.Validate(); err != nil {
		return fmt.Errorf("%w: input: %w", ErrInvalidRequest, err)
	}
	return nil
}

// DurableSteerer is required on every Turn.
type DurableSteerer interface {
	// SteerDurable writes in to the native Turn and returns once the write
	// completed: a nil error is the "written" stage, not consumption. The
	// returned receipt reports native application. A repeat of a known
	// InputID with identical input returns the same receipt without writing
	// again; different input fails with ErrInputConflict.
	SteerDurable(ctx context.Context, in SteerInput) (AppliedReceipt, error)
}

// AppliedReceipt reports whether a written input was applied natively.
type AppliedReceipt interface {
	// AwaitApplied returns nil once the native side applied the input,
	// ErrTurnInactive when the Turn ended without applying it, or the
	// context error when the outcome is still unknown.
	AwaitApplied(ctx context.Context) error
}

// Steerer submits non-durable active-Turn input. Implement it or refuse
// with ErrUnsupportedOperation.
type Steerer interface {
	Steer(ctx context.Context, in SteerInput) error
}

// FunctionResultSubmitter applies a public function result to the exact
// native call it answers. Implement it or refuse with ErrUnsupportedOperation.
type FunctionResultSubmitter interface {
	SubmitFunctionResult(ctx context.Context, result wire.FunctionResult) error
}

// PermissionResponder answers the exact permission request the Turn emitted.
// Unknown or expired IDs fail with ErrNotPending, distinct from
// ErrUnsupportedOperation.
type PermissionResponder interface {
	RespondPermission(ctx context.Context, interactionID string, d wire.PermissionDecision) error
}

// UserChoiceResponder answers the exact user-choice prompt the Turn emitted,
// binding answers by question ID only. Unknown or expired IDs fail with
// ErrNotPending.
type UserChoiceResponder interface {
	RespondUserChoice(ctx context.Context, interactionID string, d wire.UserChoiceDecision) error
}

// WorkspaceReader reads one file of the authorised workspace.
type WorkspaceReader interface {
	ReadWorkspaceFile(ctx context.Context, req wire.WorkspaceRead) (wire.WorkspaceReadResult, error)
}

// WorkspaceDirectoryLister lists one directory of the authorised workspace.
type WorkspaceDirectoryLister interface {
	ListWorkspaceDirectory(ctx context.Context, req wire.WorkspaceRead) (wire.WorkspaceReadResult, error)
}

// WorkspaceFile is one complete file to commit into the workspace.
type WorkspaceFile struct {
	Path      string
	SizeBytes int64
	SHA256    string
	Data      io.Reader
}

// WorkspaceWriter commits one file into the authorised workspace.
type WorkspaceWriter interface {
	WriteWorkspaceFile(ctx context.Context, f WorkspaceFile) error
}

// Factory is the direct-call path: it prepares an Executor for cfg, starts
// one execution and returns it as a Session. It delegates to the same
// Executor implementation and follows the nil-Turn rule: a nil Session
// means nothing was submitted and req.Output is still the caller's. The
// Session's output closing signals that teardown began.
type Factory interface {
	StartSession(ctx context.Context, cfg ExecutorConfig, req TurnRequest) (Session, error)
}

// PreparationFactory creates preparations that hold resources between
// prepare and their start or release: the read-only workspace profile
// (Registry.RegisterPreparation). Executable preparations are the
// Executors an ExecutorFactory returns (see ExecutorFactory).
type PreparationFactory interface {
	Prepare(ctx context.Context, cfg ExecutorConfig) (Prepared, error)
}

// Prepared owns a preparation's resources and output until it is started
// or released.
type Prepared interface {
	// Release abandons an unused preparation and confirms local cleanup.
	// It is idempotent after success; an error keeps the resources owned.
	Release(ctx context.Context) error
}

// PreparedCancellation cancels an executable preparation's work. It
// inherits the Session's CancellationOutcome declaration: for a
// preparation no Turn started on, what the preparation itself observed
// (never Turn output it did not produce).
type PreparedCancellation interface {
	// CancelPrepared returns after local cleanup finished and output writes
	// stopped. It does not replace Release, AwaitSettlement or
	// Executor.Close, and it is idempotent after success.
	CancelPrepared(ctx context.Context) error
	CancellationOutcome() CancellationOutcome
}
