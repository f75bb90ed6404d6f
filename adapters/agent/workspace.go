package agent

import (
	"context"
	"errors"
	"io"
)

// ErrWriteRejected reports a workspace write the owner refused before it
// changed anything; a *WriteRejection carries the reason. Any other write
// error proves nothing: the file may have changed.
var ErrWriteRejected = errors.New("agent: workspace write rejected")

// Workspace write rejection reasons (workspace_write_result.reason).
const (
	WriteReasonDestinationDirectory = "destination_directory"
	WriteReasonUnsafeDestination    = "unsafe_destination"
)

// WriteRejection is a write refused before any change, with its reason
// (empty: a generic rejection, such as a body that does not match its
// declared size or digest).
type WriteRejection struct{ Reason string }

func (e *WriteRejection) Error() string {
	if e.Reason == "" {
		return ErrWriteRejected.Error()
	}
	return ErrWriteRejected.Error() + ": " + e.Reason
}

// Unwrap makes errors.Is(err, ErrWriteRejected) hold.
func (e *WriteRejection) Unwrap() error { return ErrWriteRejected }

// WorkspaceExporter archives the authorised workspace as one tar stream
// written to w; it returns the bytes written. An error means the archive
// is incomplete and must not be used.
type WorkspaceExporter interface {
	ExportWorkspace(ctx context.Context, w io.Writer) (int64, error)
}

// WorkspaceOwner serves one bound workspace directory with the daemon's
// own code: reads, listings, installs and exports. Close releases it.
type WorkspaceOwner interface {
	WorkspaceReader
	WorkspaceDirectoryLister
	WorkspaceWriter
	WorkspaceExporter
	Close() error
}

// WorkspaceBinding binds Environment identities to local workspace
// directories: the workspace the Runtime serves for an Environment,
// never a path Core sent. Both methods fail for an unbound Environment.
type WorkspaceBinding interface {
	Root(environment string) (string, error)
	Open(environment string) (WorkspaceOwner, error)
}
