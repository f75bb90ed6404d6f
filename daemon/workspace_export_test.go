package daemon

import (
	"bytes"
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
	eq(t, op.Reader, reader, "export reader")
	r.recv("ro-1", wire.ExecutionRelease{Handle: st.Handle})
	noCall[CloseWorkspace](r)
	archive := bytes.Repeat([]byte{7}, wire.ChunkBytesMax+100)
	r.result(c, ExportWorkspaceResult{Archive: archive})
	callOf[CloseWorkspace](r)
	var got []byte
	res := oneExportResult(r)
	for res.Outcome == wire.OutcomeChunk {
		if err := res.ValidateAgainst(int64(len(got))); err != nil {
			t.Fatalf("chunk invalid: %v", err)
		}
		got = append(got, res.Data...)
		r.recv("x-1", wire.WorkspaceExport{Step: wire.StepNext, Offset: int64(len(got))})
		res = oneExportResult(r)
	}
	eq(t, res.Outcome, wire.OutcomeCompleted, "end")
	eq(t, res.Offset, int64(len(archive)), "total")
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
	eq(t, oneExportResult(r).ErrorCode, wire.ReadUnsupported, "kind without export")

	r = newWorkspaceRig(t)
	st, _ = r.openReader("ro-1")
	r.recv("x-1", wire.WorkspaceExport{Step: wire.StepBegin, Handle: st.Handle, EnvironmentID: "other"})
	eq(t, oneExportResult(r).ErrorCode, wire.ReadInvalidRequest, "other environment")
	r.recv("x-2", wire.WorkspaceExport{Step: wire.StepBegin, Handle: "h-99", EnvironmentID: wsEnv})
	eq(t, oneExportResult(r).ErrorCode, wire.ReadResourceUnavail, "unknown handle")

	r.recv("x-3", wire.WorkspaceExport{Step: wire.StepBegin, Handle: st.Handle, EnvironmentID: wsEnv})
	c, _ := callOf[ExportWorkspace](r)
	r.recv("x-4", wire.WorkspaceExport{Step: wire.StepBegin, Handle: st.Handle, EnvironmentID: wsEnv})
	eq(t, oneExportResult(r).ErrorCode, wire.ReadCapacity, "second export on the connection")
	r.result(c, ExportWorkspaceResult{Archive: bytes.Repeat([]byte{1}, wire.ChunkBytesMax+1)})
	oneExportResult(r)
	r.recv("x-3", wire.WorkspaceExport{Step: wire.StepNext, Offset: 5})
	eq(t, oneExportResult(r).ErrorCode, wire.ReadInvalidRequest, "wrong offset")

	r.recv("x-5", wire.WorkspaceExport{Step: wire.StepBegin, Handle: st.Handle, EnvironmentID: wsEnv})
	c, _ = callOf[ExportWorkspace](r)
	r.result(c, ExportWorkspaceResult{Err: "walk failed"})
	res := oneExportResult(r)
	eq(t, res.Outcome, wire.OutcomeFailed, "failed export")
	eq(t, res.ErrorCode, CodeExportFailed, "failed export code")
	if err := res.Validate(); err != nil {
		t.Fatalf("failure frame invalid: %v", err)
	}

	r.recv("x-6", wire.WorkspaceExport{Step: wire.StepBegin, Handle: st.Handle, EnvironmentID: wsEnv})
	c, _ = callOf[ExportWorkspace](r)
	r.recv("x-6", wire.WorkspaceExport{Step: wire.StepCancel})
	require.Truef(t, len(r.sent()) == 0, "cancel is answered")
	r.result(c, ExportWorkspaceResult{Archive: []byte{1}})
	require.Truef(t, len(r.sent()) == 0, "a cancelled export sent a chunk")
}
