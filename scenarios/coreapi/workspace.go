package coreapi

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/scenarios"
	"github.com/turnstile-sim/turnstile/wire"
)

// Workspace call defaults: a listing of up to 1,024 entries, a byte read
// of up to 1 MiB (wire-reference §3.9).
const (
	DefaultMaxEntries = 1024
	DefaultMaxBytes   = 1 << 20
)

// WorkspaceSession is the configuration of the Session a workspace call
// creates when the scenario has none yet: kind contract, the step's
// Environment, self-hosted.
func WorkspaceSession(st scenarios.Step, kind string) core.AgentConfig {
	return core.AgentConfig{Kind: kind, Model: "model", Environment: core.EnvSelfHosted, EnvironmentID: st.Args["environment"]}
}

// Workspace returns the event of a workspace call on Session session.
func Workspace(st scenarios.Step, session string) (func(core.CallID) core.Event, error) {
	e := core.ReadWorkspace{Session: session, Path: st.Args["path"]}
	switch st.Action {
	case "read-directory":
		e.Directory, e.MaxEntries = true, limit(st.Args["max_entries"], DefaultMaxEntries)
	case "read-file":
		e.MaxBytes = limit(st.Args["max_bytes"], DefaultMaxBytes)
	case "export":
		x := core.ExportWorkspace{Session: session}
		return func(c core.CallID) core.Event { x.Call = c; return x }, nil
	case "write-file":
		w := core.WriteWorkspace{Session: session, Path: st.Args["path"], Data: []byte(st.Input)}
		return func(c core.CallID) core.Event { w.Call = c; return w }, nil
	default:
		return nil, fmt.Errorf("api %s: not a workspace call", st.Action)
	}
	return func(c core.CallID) core.Event { e.Call = c; return e }, nil
}

func limit(s string, def int) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	return def
}

// Entries renders a listing as core-workspace's entries= shows it: the
// names in order, comma-separated, a directory's with a trailing slash.
func Entries(es []wire.DirectoryEntry) string {
	names := make([]string, len(es))
	for i, e := range es {
		names[i] = e.Name
		if e.Kind == "directory" {
			names[i] += "/"
		}
	}
	return strings.Join(names, ",")
}

// Pending is what core-workspace sees while Core has not answered the
// call: outcome=pending.
var Pending = map[string]string{"outcome": "pending"}

// WorkspaceFields are the members core-workspace asserts.
func WorkspaceFields(w *core.WorkspaceResult) map[string]string {
	return map[string]string{"outcome": w.Outcome, "code": w.Code, "entries": Entries(w.Entries),
		"data": string(w.Data), "truncated": strconv.FormatBool(w.Truncated || w.EntriesTruncated),
		"archive": strconv.Itoa(len(w.Archive))}
}

// CheckWorkspace compares the listed core-workspace members with what
// was answered (have: WorkspaceFields, or the public API's answer read
// the same way); it returns the line the machine runner prints.
func CheckWorkspace(args, have map[string]string) (string, []error) {
	line := "core-workspace"
	return compareFields(line, "workspace answer", []string{"outcome", "code", "entries", "data", "truncated", "archive"}, args, have)
}
