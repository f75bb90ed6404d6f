package daemon

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/wire"
)

// TestWorkspaceExportPullsChunks: begin answers the first chunk at offset
// 0; each next with the consumed total answers the following chunk, then
// completed at the total; the reader's close waits for the export.
func TestWorkspaceExportPullsChunks(t *testing.T) {
	r := newWorkspaceRig(t)
	st, reader := r.openReader("ro-1")
	r.recv("x-1", wire.WorkspaceExport{Step: wire.StepBegin, Handle: st.Handle, EnvironmentID: wsEnv})
	c, op := callOf[ExportWorkspace](r)
	require.Equal(t, reader, op.Reader, "export reader")
	r.recv("ro-1", wire.ExecutionRelease{Handle: st.Handle})
	noCall[CloseWorkspace](r)
	archive := bytes.Repeat([]byte{7}, wire.ChunkBytesMax+100)
	r.result(c, ExportWorkspaceResult{Archive: archive})
	callOf[CloseWorkspace](r)
	var got []byte
	res := oneExportResult(r)
	for res.Outcome == wire.OutcomeChunk {
		err := res.ValidateAgainst(int64(len(got)))
		require.NoErrorf(t, err, "chunk invalid: %v", err)
		got = append(got, res.Data...)
		r.recv("x-1", wire.WorkspaceExport{Step: wire.StepNext, Offset: int64(len(got))})
		res = oneExportResult(r)
	}
	require.Equal(t, wire.OutcomeCompleted, res.Outcome, "end")
	require.Equal(t, int64(len(archive)), res.Offset, "total")
	require.Truef(t, bytes.Equal(got, archive), "archive differs")
}

// TestWorkspaceExportRefusals: unsupported kinds, wrong environments,
// unknown handles, a second export and a wrong offset are refused.
func TestWorkspaceExportRefusals(t *testing.T) {
	cfg := workspaceConfig()
	cfg.Kinds[0].Capabilities.WorkspaceOutputExport = wire.CapabilityUnsupported
	r := newRigWith(t, cfg)
	st, _ := r.openReader("ro-1")
	r.recv("x-1", wire.WorkspaceExport{Step: wire.StepBegin, Handle: st.Handle, EnvironmentID: wsEnv})
	require.Equal(t, wire.ReadUnsupported, oneExportResult(r).ErrorCode, "kind without export")

	r = newWorkspaceRig(t)
	st, _ = r.openReader("ro-1")
	r.recv("x-1", wire.WorkspaceExport{Step: wire.StepBegin, Handle: st.Handle, EnvironmentID: "other"})
	require.Equal(t, wire.ReadInvalidRequest, oneExportResult(r).ErrorCode, "other environment")
	r.recv("x-2", wire.WorkspaceExport{Step: wire.StepBegin, Handle: "h-99", EnvironmentID: wsEnv})
	require.Equal(t, wire.ReadResourceUnavail, oneExportResult(r).ErrorCode, "unknown handle")

	r.recv("x-3", wire.WorkspaceExport{Step: wire.StepBegin, Handle: st.Handle, EnvironmentID: wsEnv})
	c, _ := callOf[ExportWorkspace](r)
	r.recv("x-4", wire.WorkspaceExport{Step: wire.StepBegin, Handle: st.Handle, EnvironmentID: wsEnv})
	require.Equal(t, wire.ReadCapacity, oneExportResult(r).ErrorCode, "second export on the connection")
	r.result(c, ExportWorkspaceResult{Archive: bytes.Repeat([]byte{1}, wire.ChunkBytesMax+1)})
	oneExportResult(r)
	r.recv("x-3", wire.WorkspaceExport{Step: wire.StepNext, Offset: 5})
	require.Equal(t, wire.ReadInvalidRequest, oneExportResult(r).ErrorCode, "wrong offset")

	r.recv("x-5", wire.WorkspaceExport{Step: wire.StepBegin, Handle: st.Handle, EnvironmentID: wsEnv})
	c, _ = callOf[ExportWorkspace](r)
	r.result(c, ExportWorkspaceResult{Err: "walk failed"})
	res := oneExportResult(r)
	require.Equal(t, wire.OutcomeFailed, res.Outcome, "failed export")
	require.Equal(t, CodeExportFailed, res.ErrorCode, "failed export code")
	if err := res.Validate(); err != nil {
		require.Fail(t, fmt.Sprintf("failure frame invalid: %v", err))
	}

	r.recv("x-6", wire.WorkspaceExport{Step: wire.StepBegin, Handle: st.Handle, EnvironmentID: wsEnv})
	c, _ = callOf[ExportWorkspace](r)
	r.recv("x-6", wire.WorkspaceExport{Step: wire.StepCancel})
	require.Truef(t, len(r.sent()) == 0, "cancel is answered")
	r.result(c, ExportWorkspaceResult{Archive: []byte{1}})
	require.Truef(t, len(r.sent()) == 0, "a cancelled export sent a chunk")
}
