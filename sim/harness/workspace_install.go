package harness

import (
	"slices"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// The simulated installer refuses, as a real one on a file tree does, a
// destination that is a directory (destination_directory: some file lies
// below it) or that lies below a regular file (unsafe_destination);
// nothing is installed then.

// WorkspaceInstallRecorder is an optional extension of Recorder: the
// installer's answer to a mutation (completed, rejected with its reason,
// or unknown), at the instant the daemon gets it.
type WorkspaceInstallRecorder interface {
	WorkspaceInstallAnswered(at int64, device, mutation, outcome, reason string)
}

// installRefusal is the installer's reason to refuse path in tree t, or "".
func installRefusal(t map[string]string, path string) string {
	names := make([]string, 0, len(t))
	for name := range t {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		switch {
		case strings.HasPrefix(name, path+"/"):
			return wire.WriteReasonDestinationDirectory
		case strings.HasPrefix(path, name+"/"):
			return wire.WriteReasonUnsafeDestination
		}
	}
	return ""
}

func (h *Harness) installAnswered(now time.Time, mutation, outcome, reason string) {
	if rec, ok := h.dev.Recorder.(WorkspaceInstallRecorder); ok {
		rec.WorkspaceInstallAnswered(at(now), string(h.dev.ID), mutation, outcome, reason)
	}
}
