package core_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

func exportChunks(effs []core.Effect) []core.ExportChunk {
	var out []core.ExportChunk
	for _, e := range effs {
		if c, ok := e.(core.ExportChunk); ok {
			out = append(out, c)
		}
	}
	return out
}

// streamExport starts a streamed export and returns its call and the
// begin frame's operation ID.
func streamExport(t *testing.T, h *rig, sid string) (core.CallID, string, string) {
	t.Helper()
	call := h.nextCall()
	prep := one[wire.ExecutionPrepare](t, h.step(core.ExportWorkspace{Call: call, Session: sid, Stream: true}))
	begin := one[wire.WorkspaceExport](t, h.frame(1, prep.ID, roStatus(wire.StateReady, 2, "")))
	return call, prep.ID, begin.ID
}

// TestStreamedExportPullsAfterEachTaken: every chunk is handed to the
// caller and the next is pulled only once the caller took it; nothing
// is kept, and the result carries the archive's size after the release.
func TestStreamedExportPullsAfterEachTaken(t *testing.T) {
	h := newRig(t)
	sid := h.workspaceSession()
	call, prep, op := streamExport(t, h, sid)
	effs := h.frame(1, op, wire.WorkspaceExportResult{Outcome: wire.OutcomeChunk, Offset: 0, Data: []byte("tar-")})
	require.Empty(t, sends[wire.WorkspaceExport](effs), "no next before the caller took the chunk")
	ch := exportChunks(effs)
	require.Len(t, ch, 1)
	require.Equal(t, core.ExportChunk{Call: call, Offset: 0, Data: []byte("tar-")}, ch[0])

	require.Empty(t, h.step(core.ExportChunkTaken{Call: "api-404"}), "another call's Taken changes nothing")
	next := one[wire.WorkspaceExport](t, h.step(core.ExportChunkTaken{Call: call}))
	require.Equal(t, wire.StepNext, next.P.Step)
	require.Equal(t, int64(4), next.P.Offset)
	require.Empty(t, h.step(core.ExportChunkTaken{Call: call}), "a second Taken pulls nothing")

	ch = exportChunks(h.frame(1, op, wire.WorkspaceExportResult{Outcome: wire.OutcomeChunk, Offset: 4, Data: []byte("body")}))
	require.Equal(t, int64(4), ch[0].Offset)
	one[wire.WorkspaceExport](t, h.step(core.ExportChunkTaken{Call: call}))
	one[wire.ExecutionRelease](t, h.frame(1, op, wire.WorkspaceExportResult{Outcome: wire.OutcomeCompleted, Offset: 8}))
	require.Nil(t, apiResultOf(t, h.last), "no answer before the release is confirmed")
	res := apiResultOf(t, h.frame(1, prep, roStatus(wire.StateReleased, 3, "")))
	require.Equal(t, core.WorkspaceCompleted, res.Value.(*core.WorkspaceResult).Outcome)
	require.Equal(t, int64(8), res.Value.(*core.WorkspaceResult).SizeBytes)
	require.Nil(t, res.Value.(*core.WorkspaceResult).Archive, "a streamed export keeps no archive")
}

// TestStreamedExportEndsHonestly: a chunk the Runtime sends before Core
// asked for it, an abandoning caller, and a caller slower than the 180 s
// wait each end the export unavailable with a cancel and a release.
func TestStreamedExportEndsHonestly(t *testing.T) {
	h := newRig(t)
	sid := h.workspaceSession()
	_, _, op := streamExport(t, h, sid)
	h.frame(1, op, wire.WorkspaceExportResult{Outcome: wire.OutcomeChunk, Offset: 0, Data: []byte("a")})
	effs := h.frame(1, op, wire.WorkspaceExportResult{Outcome: wire.OutcomeChunk, Offset: 1, Data: []byte("b")})
	require.Equal(t, "incomplete_export", apiResultOf(t, effs).Value.(*core.WorkspaceResult).Code)
	require.Equal(t, wire.StepCancel, one[wire.WorkspaceExport](t, effs).P.Step)
	one[wire.ExecutionRelease](t, effs)

	call, _, op := streamExport(t, h, sid)
	h.frame(1, op, wire.WorkspaceExportResult{Outcome: wire.OutcomeChunk, Offset: 0, Data: []byte("a")})
	effs = h.step(core.ExportChunkTaken{Call: call, Abandon: true})
	res := apiResultOf(t, effs)
	require.Equal(t, core.WorkspaceUnavailable, res.Value.(*core.WorkspaceResult).Outcome)
	require.Equal(t, "abandoned", res.Value.(*core.WorkspaceResult).Code)
	require.Equal(t, wire.StepCancel, one[wire.WorkspaceExport](t, effs).P.Step)
	one[wire.ExecutionRelease](t, effs)
	require.Empty(t, h.step(core.ExportChunkTaken{Call: call, Abandon: true}), "an ended export answers once")

	_, _, op = streamExport(t, h, sid)
	h.frame(1, op, wire.WorkspaceExportResult{Outcome: wire.OutcomeChunk, Offset: 0, Data: []byte("a")})
	effs = h.fire(core.TimerID("ws-read:" + op))
	res = apiResultOf(t, effs)
	require.Equal(t, "timeout", res.Value.(*core.WorkspaceResult).Code)
	require.Equal(t, wire.StepCancel, one[wire.WorkspaceExport](t, effs).P.Step)
}

// budgets lists the Budget of every Send in effs, by frame type and step.
func budgets(effs []core.Effect) map[string]time.Duration {
	out := map[string]time.Duration{}
	for _, e := range effs {
		if s, ok := e.(core.Send); ok {
			k := s.Frame.Type()
			if x, ok := s.Frame.Payload.(wire.WorkspaceExport); ok {
				k += " " + x.Step
			}
			out[k] = s.Budget
		}
	}
	return out
}

// TestExportCancelIsBestEffortWithinTwoSeconds: every cancel of an
// export Core stopped early carries ExportCancelSendBudget, so the shell
// drops it rather than block on it past 2 s; the frames Core must not
// lose (begin, next, the release) carry none and keep the shell's own
// write rule.
func TestExportCancelIsBestEffortWithinTwoSeconds(t *testing.T) {
	require.Equal(t, 2*time.Second, core.ExportCancelSendBudget)
	h := newRig(t)
	sid := h.workspaceSession()
	call := h.nextCall()
	prep := one[wire.ExecutionPrepare](t, h.step(core.ExportWorkspace{Call: call, Session: sid, Stream: true}))
	effs := h.frame(1, prep.ID, roStatus(wire.StateReady, 2, ""))
	require.Equal(t, map[string]time.Duration{"workspace_export begin": 0}, budgets(effs))
	op := one[wire.WorkspaceExport](t, effs).ID
	h.frame(1, op, wire.WorkspaceExportResult{Outcome: wire.OutcomeChunk, Offset: 0, Data: []byte("a")})
	require.Equal(t, map[string]time.Duration{"workspace_export next": 0}, budgets(h.step(core.ExportChunkTaken{Call: call})))

	// a result Core does not accept
	effs = h.frame(1, op, wire.WorkspaceExportResult{Outcome: wire.OutcomeChunk, Offset: 0, Data: []byte("b")})
	require.Equal(t, map[string]time.Duration{"workspace_export cancel": core.ExportCancelSendBudget, "execution_release": 0}, budgets(effs))

	// an abandoning caller
	call, _, op = streamExport(t, h, sid)
	h.frame(1, op, wire.WorkspaceExportResult{Outcome: wire.OutcomeChunk, Offset: 0, Data: []byte("a")})
	effs = h.step(core.ExportChunkTaken{Call: call, Abandon: true})
	require.Equal(t, map[string]time.Duration{"workspace_export cancel": core.ExportCancelSendBudget, "execution_release": 0}, budgets(effs))

	// the export wait
	_, _, op = streamExport(t, h, sid)
	effs = h.fire(core.TimerID("ws-read:" + op))
	require.Equal(t, map[string]time.Duration{"workspace_export cancel": core.ExportCancelSendBudget, "execution_release": 0}, budgets(effs))
}
