package daemon

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/wire"
)

const (
	wsEnv     = "6f1c1e1a-8d1b-4c2a-9f3e-2b7d5a0c4e11"
	wsSession = "0b9e7c55-3a4d-4e6f-8a1b-9c2d3e4f5a6b"
)

func workspaceCaps() wire.AgentKindCapabilities {
	c := testCaps()
	c.LocalEnvironment = wire.CapabilitySupported
	c.WorkspaceReadPreparation = wire.CapabilitySupported
	c.WorkspaceOutputExport = wire.CapabilitySupported
	return c
}

func workspaceConfig() Config {
	cfg := testConfig()
	cfg.Kinds[0].Capabilities = workspaceCaps()
	cfg.Workspace.Writes = true
	return cfg
}

func newWorkspaceRig(t testing.TB) *rig { return newRigWith(t, workspaceConfig()) }

// readOnlyPrepare is a valid read-only profile request for session.
func readOnlyPrepare(session string) wire.ExecutionPrepare {
	return wire.ExecutionPrepare{
		SessionID: session,
		Configuration: wire.ExecutionConfiguration{
			AgentKind:           "contract",
			AgentStateKey:       "agents-api-" + session,
			StrictResume:        true,
			WorkspaceReadOnly:   true,
			ReleaseOnCompletion: true,
			LocalEnvironment:    &wire.LocalEnvironment{ID: wsEnv},
		},
	}
}

// localPrepare is an executable preparation bound to the local
// environment.
func localPrepare(session string) wire.ExecutionPrepare {
	p := prepareFor(session)
	p.Configuration.DisableExecutionEnvironment = false
	p.Configuration.LocalEnvironment = &wire.LocalEnvironment{ID: wsEnv}
	return p
}

// openReader prepares a read-only profile under req, opens its reader and
// returns the ready status and the reader ID.
func (r *rig) openReader(req string) (wire.PreparationStatus, string) {
	r.t.Helper()
	r.recv(req, readOnlyPrepare(wsSession))
	if st := oneStatus(r); st.State != wire.StatePreparing {
		require.Fail(r.t, fmt.Sprintf("read-only prepare: %+v", st))
	}
	c, op := callOf[OpenWorkspace](r)
	r.result(c, OpenWorkspaceResult{})
	st := oneStatus(r)
	require.Equalf(r.t, wire.StateReady, st.State, "read-only prepare: want ready at revision 2, got %+v", st)
	require.Equalf(r.t, uint64(2), st.Revision, "read-only prepare: want ready at revision 2, got %+v", st)
	return st, op.Reader
}

func byteRead(handle, path string, max int) wire.WorkspaceRead {
	return wire.WorkspaceRead{Handle: handle, EnvironmentID: wsEnv, Path: path, MaxBytes: max}
}

func readResults(r *rig) []wire.WorkspaceReadResult {
	return payloadsOf[wire.WorkspaceReadResult](r.sent())
}

func oneReadResult(r *rig, id string) wire.WorkspaceReadResult {
	r.t.Helper()
	var out []wire.WorkspaceReadResult
	for _, f := range r.sent() {
		if p, ok := f.Payload.(wire.WorkspaceReadResult); ok {
			require.Equalf(r.t, id, f.ID, "read result on %q, want %q", f.ID, id)
			out = append(out, p)
		}
	}
	if len(out) != 1 {
		require.Fail(r.t, fmt.Sprintf("want one read result, got %d: %s", len(out), describeAll(r.out)))
	}
	return out[0]
}

func oneWriteResult(r *rig) wire.WorkspaceWriteResult {
	r.t.Helper()
	out := payloadsOf[wire.WorkspaceWriteResult](r.sent())
	if len(out) != 1 {
		require.Fail(r.t, fmt.Sprintf("want one write result, got %d: %s", len(out), describeAll(r.out)))
	}
	return out[0]
}

func oneExportResult(r *rig) wire.WorkspaceExportResult {
	r.t.Helper()
	out := payloadsOf[wire.WorkspaceExportResult](r.sent())
	if len(out) != 1 {
		require.Fail(r.t, fmt.Sprintf("want one export result, got %d: %s", len(out), describeAll(r.out)))
	}
	return out[0]
}

func digestOf(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func writeBegin(path string, body []byte) wire.WorkspaceWrite {
	return wire.WorkspaceWrite{Step: wire.StepBegin, EnvironmentID: wsEnv, SessionID: wsSession, Path: path,
		SizeBytes: int64(len(body)), SHA256: digestOf(body)}
}

func writeChunk(offset int64, data []byte) wire.WorkspaceWrite {
	return wire.WorkspaceWrite{Step: wire.StepChunk, Offset: offset, Data: data}
}

var writeCommit = wire.WorkspaceWrite{Step: wire.StepCommit}

func fileResult(data string) ReadWorkspaceResult {
	return ReadWorkspaceResult{Result: wire.WorkspaceReadResult{Outcome: wire.OutcomeCompleted, Data: []byte(data), CloseAcknowledged: true}}
}
