package core_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/store"
	"github.com/turnstile-sim/turnstile/wire"
)

const wsEnv = "6f1c1e1a-8d1b-4c2a-9f3e-2b7d5a0c4e11"

func workspaceAgent() core.AgentConfig {
	a := defaultAgent()
	a.Environment, a.EnvironmentID = core.EnvSelfHosted, wsEnv
	return a
}

func workspaceCaps() wire.AgentKindCapabilities {
	c := with(baseCaps(), "local_environment", wire.CapabilitySupported)
	c = with(c, "workspace_read_preparation", wire.CapabilitySupported)
	return with(c, "workspace_output_export", wire.CapabilitySupported)
}

func (h *rig) workspaceSession() string {
	h.t.Helper()
	h.connect("d1", 1, workspaceCaps())
	return h.session(workspaceAgent())
}

func apiResultOf(t *testing.T, effs []core.Effect) *core.APIResult {
	t.Helper()
	for _, e := range effs {
		if r, ok := e.(core.APIResult); ok {
			return &r
		}
	}
	return nil
}

func roStatus(state string, rev uint64, code string) wire.PreparationStatus {
	return wire.PreparationStatus{Handle: "h-ro", Revision: rev, State: state, ErrorCode: code, ExpiresAt: 1}
}

// TestIdleReadReturnsDataOnlyAfterConfirmedRelease: an idle read prepares
// the read-only profile (no execution options, no Run input), reads with
// its handle, releases it, and answers only once released arrived; no
// Turn of the Session is prepared meanwhile.
func TestIdleReadReturnsDataOnlyAfterConfirmedRelease(t *testing.T) {
	h := newRig(t)
	sid := h.workspaceSession()
	call := h.nextCall()
	prep := one[wire.ExecutionPrepare](t, h.step(core.ReadWorkspace{Call: call, Session: sid, Path: "a.txt", MaxBytes: 16}))
	cfg := prep.P.Configuration
	require.True(t, cfg.WorkspaceReadOnly && cfg.ReleaseOnCompletion)
	require.NoError(t, prep.P.Validate(), "the profile breaks the read-only validator")
	require.Nil(t, cfg.AgentOptions)
	require.Nil(t, cfg.ExecutionControls)
	require.Equal(t, wsEnv, cfg.LocalEnvironment.ID)

	h.submit(sid, "queued behind the read")
	require.Empty(t, sends[wire.ExecutionPrepare](h.last), "a Turn was prepared during the read")
	read := one[wire.WorkspaceRead](t, h.frame(1, prep.ID, roStatus(wire.StateReady, 2, "")))
	require.Equal(t, "h-ro", read.P.Handle)
	require.Equal(t, wsEnv, read.P.EnvironmentID)
	rel := one[wire.ExecutionRelease](t, h.frame(1, read.ID, wire.WorkspaceReadResult{Outcome: wire.OutcomeCompleted,
		Data: []byte("abc"), CloseAcknowledged: true}))
	require.Equal(t, "h-ro", rel.P.Handle)
	require.Nil(t, apiResultOf(t, h.last), "answered before the release was confirmed")
	effs := h.frame(1, prep.ID, roStatus(wire.StateReleased, 3, ""))
	res := apiResultOf(t, effs)
	require.NotNil(t, res)
	require.Equal(t, core.WorkspaceCompleted, res.Value.(*core.WorkspaceResult).Outcome)
	require.Equal(t, "abc", string(res.Value.(*core.WorkspaceResult).Data))
	require.Len(t, sends[wire.ExecutionPrepare](effs), 1, "the queued Turn is prepared once the reservation is free")
}

// TestIdleReadUncertainCleanupIsUnavailable: a failed release
// (cleanup_unconfirmed) returns unavailable with no data, even though the
// read itself completed.
func TestIdleReadUncertainCleanupIsUnavailable(t *testing.T) {
	h := newRig(t)
	sid := h.workspaceSession()
	prep := one[wire.ExecutionPrepare](t, h.step(core.ReadWorkspace{Call: h.nextCall(), Session: sid, Path: "", Directory: true, MaxEntries: 4}))
	read := one[wire.WorkspaceRead](t, h.frame(1, prep.ID, roStatus(wire.StateReady, 2, "")))
	require.Equal(t, wire.ReadOperationDirectory, read.P.Operation)
	h.frame(1, read.ID, wire.WorkspaceReadResult{Outcome: wire.OutcomeCompleted, CloseAcknowledged: true,
		Directory: &wire.WorkspaceDirectoryResult{Entries: []wire.DirectoryEntry{}}})
	res := apiResultOf(t, h.frame(1, prep.ID, roStatus(wire.StateFailed, 3, "cleanup_unconfirmed")))
	require.Equal(t, core.WorkspaceUnavailable, res.Value.(*core.WorkspaceResult).Outcome)
	require.Equal(t, "cleanup_unconfirmed", res.Value.(*core.WorkspaceResult).Code)
	require.Nil(t, res.Value.(*core.WorkspaceResult).Data)
	require.Nil(t, res.Value.(*core.WorkspaceResult).Entries)
}

// TestIdleReadTimeoutAndConnectionLoss: no answer within 17 s, or a lost
// connection, is unavailable; the profile is released best effort.
func TestIdleReadTimeoutAndConnectionLoss(t *testing.T) {
	h := newRig(t)
	sid := h.workspaceSession()
	call := h.nextCall()
	prep := one[wire.ExecutionPrepare](t, h.step(core.ReadWorkspace{Call: call, Session: sid, Path: "a", MaxBytes: 1}))
	read := one[wire.WorkspaceRead](t, h.frame(1, prep.ID, roStatus(wire.StateReady, 2, "")))
	var timer core.TimerID
	for _, tv := range h.m.Timers() {
		if strings.HasPrefix(string(tv.Timer), "ws-read:") {
			timer = tv.Timer
			require.Equal(t, h.now.Add(core.WorkspaceReadWait), tv.At)
		}
	}
	effs := h.fire(timer)
	require.Equal(t, "timeout", apiResultOf(t, effs).Value.(*core.WorkspaceResult).Code)
	one[wire.ExecutionRelease](t, effs)
	require.Nil(t, apiResultOf(t, h.frame(1, read.ID, wire.WorkspaceReadResult{Outcome: wire.OutcomeCompleted,
		Data: []byte("x"), CloseAcknowledged: true})), "a late result answered again")

	prep = one[wire.ExecutionPrepare](t, h.step(core.ReadWorkspace{Call: h.nextCall(), Session: sid, Path: "a", MaxBytes: 1}))
	res := apiResultOf(t, h.step(core.ConnClosed{Conn: 1}))
	require.Equal(t, core.WorkspaceUnavailable, res.Value.(*core.WorkspaceResult).Outcome)
	require.Equal(t, "connection_lost", res.Value.(*core.WorkspaceResult).Code)
}

// TestIdleReadTimeoutBeforeHandleKeepsTheStream: an idle read that
// times out before any status named its handle answers timeout, but its
// preparation stream stays open on the connection: it counts against
// the connection's preparation streams (a Turn waits for the slot) until
// the first status names the handle, which Core then releases.
func TestIdleReadTimeoutBeforeHandleKeepsTheStream(t *testing.T) {
	h := newRigCfg(t, core.Config{PreparationsPerConnMax: 1})
	sid := h.workspaceSession()
	prep := one[wire.ExecutionPrepare](t, h.step(core.ReadWorkspace{Call: h.nextCall(), Session: sid, Path: "a", MaxBytes: 1}))
	var timer core.TimerID
	for _, tv := range h.m.Timers() {
		if strings.HasPrefix(string(tv.Timer), "ws-read:") {
			timer = tv.Timer
		}
	}
	effs := h.fire(timer)
	require.Equal(t, "timeout", apiResultOf(t, effs).Value.(*core.WorkspaceResult).Code)
	require.Empty(t, sends[wire.ExecutionRelease](effs), "released with no handle known")
	ps := h.m.Preparations()
	require.Len(t, ps, 1, "the timed-out read's stream was forgotten while still open")
	require.Equal(t, prep.ID, ps[0].RequestID)
	require.Empty(t, ps[0].Turn)

	h.submit(h.session(workspaceAgent()), "waits for the stream")
	require.Empty(t, sends[wire.ExecutionPrepare](h.last), "a second stream opened on a connection limited to one")

	effs = h.frame(1, prep.ID, roStatus(wire.StatePreparing, 1, ""))
	rel := one[wire.ExecutionRelease](t, effs)
	require.Equal(t, prep.ID, rel.ID)
	require.Equal(t, "h-ro", rel.P.Handle)
	require.Len(t, sends[wire.ExecutionPrepare](effs), 1, "the waiting Turn is prepared once the stream is released")
	for _, p := range h.m.Preparations() {
		require.NotEqual(t, prep.ID, p.RequestID, "the released stream still counts")
	}
}

// TestIdleReadRefusedPrepareEndsTheStream: a refused read-only prepare
// answers unavailable and leaves no stream open: no handle will come.
func TestIdleReadRefusedPrepareEndsTheStream(t *testing.T) {
	h := newRig(t)
	sid := h.workspaceSession()
	prep := one[wire.ExecutionPrepare](t, h.step(core.ReadWorkspace{Call: h.nextCall(), Session: sid, Path: "a", MaxBytes: 1}))
	effs := h.frame(1, prep.ID, wire.PreparationStatus{State: wire.StateRejected, ErrorCode: "resource_unavailable",
		Operation: wire.TypeExecutionPrepare})
	require.Equal(t, "resource_unavailable", apiResultOf(t, effs).Value.(*core.WorkspaceResult).Code)
	require.Empty(t, sends[wire.ExecutionRelease](effs))
	require.Empty(t, h.m.Preparations(), "the refused prepare's stream still counts")
}

// TestRunReadTargetsTheExactRun: while the Run runs, the read carries its
// Run ID and answers with the Runtime's result directly.
func TestRunReadTargetsTheExactRun(t *testing.T) {
	h := newRig(t)
	sid := h.workspaceSession()
	h.step(core.SubmitTurn{Call: h.nextCall(), Session: sid, Input: wire.TextInput("go")})
	_, run := h.startedOn(1, h.last)
	read := one[wire.WorkspaceRead](t, h.step(core.ReadWorkspace{Call: h.nextCall(), Session: sid, Path: "a", MaxBytes: 8}))
	require.Equal(t, run, read.P.RunID)
	require.Empty(t, read.P.Handle)
	res := apiResultOf(t, h.frame(1, read.ID, wire.WorkspaceReadResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.ReadNotFound}))
	require.Equal(t, core.WorkspaceRejected, res.Value.(*core.WorkspaceResult).Outcome)
	require.Equal(t, wire.ReadNotFound, res.Value.(*core.WorkspaceResult).Code)
	for range core.WorkspaceReadsPerConn {
		one[wire.WorkspaceRead](t, h.step(core.ReadWorkspace{Call: h.nextCall(), Session: sid, Path: "a", MaxBytes: 8}))
	}
	require.ErrorIs(t, h.api(core.ReadWorkspace{Call: h.nextCall(), Session: sid, Path: "a", MaxBytes: 8}).Err, core.ErrWorkspaceBusy)
}

// TestWorkspaceRequestRefusals: bad requests are refused before any
// Runtime work and change nothing.
func TestWorkspaceRequestRefusals(t *testing.T) {
	h := newRig(t)
	sid := h.workspaceSession()
	none := h.session(defaultAgent())
	cases := []struct {
		ev   core.Event
		want error
	}{
		{core.ReadWorkspace{Session: "s-99", Path: "a", MaxBytes: 1}, core.ErrUnknownSession},
		{core.ReadWorkspace{Session: none, Path: "a", MaxBytes: 1}, core.ErrNoWorkspace},
		{core.ReadWorkspace{Session: sid, Path: "a", MaxBytes: wire.ReadResultBytesMax + 1}, core.ErrInvalidWorkspaceRequest},
		{core.ReadWorkspace{Session: sid, Directory: true, MaxEntries: 0}, core.ErrInvalidWorkspaceRequest},
		{core.ReadWorkspace{Session: sid, Path: strings.Repeat("p", 9000), MaxBytes: 1}, core.ErrInvalidWorkspaceRequest},
		{core.ReadWorkspace{Session: sid, Path: "../other/a", MaxBytes: 1}, core.ErrInvalidWorkspaceRequest},
		{core.ReadWorkspace{Session: sid, Path: "", MaxBytes: 1}, core.ErrInvalidWorkspaceRequest},
		{core.ReadWorkspace{Session: sid, Path: "a/..", Directory: true, MaxEntries: 1}, core.ErrInvalidWorkspaceRequest},
		{core.WriteWorkspace{Session: sid, Path: "../a", Data: []byte("x")}, core.ErrInvalidWorkspaceRequest},
		{core.WriteWorkspace{Session: sid, Path: ".turnstile/capabilities/skill.md", Data: []byte("x")}, core.ErrInvalidWorkspaceRequest},
		{core.WriteWorkspace{Session: sid, Path: ".turnstile", Data: []byte("x")}, core.ErrInvalidWorkspaceRequest},
		{core.WriteWorkspace{Session: sid, Path: ".TurnStile/x", Data: []byte("x")}, core.ErrInvalidWorkspaceRequest},
		{core.WriteWorkspace{Session: sid, Path: "a", Data: make([]byte, core.WorkspaceInlineWriteMax+1)}, core.ErrInvalidWorkspaceRequest},
		{core.WriteWorkspace{Session: none, Path: "a", Data: []byte("x")}, core.ErrNoWorkspace},
	}
	for _, c := range cases {
		before, _ := h.st.Session(sid)
		effs := h.step(c.ev)
		r := apiResultOf(t, effs)
		require.ErrorIs(t, r.Err, c.want, c.ev.Describe())
		require.Empty(t, sends[wire.Payload](effs), "%s sent a frame", c.ev.Describe())
		after, _ := h.st.Session(sid)
		require.Equal(t, before, after)
	}
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestWriteIsReservedDurablyAndSettledByItsReceipt: the mutation is in the
// store before begin leaves; chunks follow acknowledged offsets; the
// completed receipt settles it.
func TestWriteIsReservedDurablyAndSettledByItsReceipt(t *testing.T) {
	h := newRig(t)
	sid := h.workspaceSession()
	body := bytes.Repeat([]byte("w"), wire.ChunkBytesMax+5)
	begin := one[wire.WorkspaceWrite](t, h.step(core.WriteWorkspace{Call: h.nextCall(), Session: sid, Path: "d/f.txt", Data: body}))
	rec, _ := h.st.Session(sid)
	require.NotNil(t, rec.Mutation, "not reserved durably before begin")
	require.Equal(t, begin.ID, rec.Mutation.ID)
	require.NoError(t, begin.P.Validate())
	require.Equal(t, digest(body), begin.P.SHA256)
	require.ErrorIs(t, h.api(core.WriteWorkspace{Call: h.nextCall(), Session: sid, Path: "g", Data: []byte("y")}).Err, core.ErrWorkspaceMutationPending)

	c1 := one[wire.WorkspaceWrite](t, h.frame(1, begin.ID, wire.WorkspaceWriteResult{Outcome: wire.OutcomeReady}))
	require.Equal(t, int64(0), c1.P.Offset)
	c2 := one[wire.WorkspaceWrite](t, h.frame(1, begin.ID, wire.WorkspaceWriteResult{Outcome: wire.OutcomeReceived, Offset: wire.ChunkBytesMax}))
	require.Equal(t, int64(wire.ChunkBytesMax), c2.P.Offset)
	commit := one[wire.WorkspaceWrite](t, h.frame(1, begin.ID, wire.WorkspaceWriteResult{Outcome: wire.OutcomeReceived, Offset: int64(len(body))}))
	require.Equal(t, wire.StepCommit, commit.P.Step)
	rec, _ = h.st.Session(sid)
	require.True(t, rec.Mutation.CommitSent, "commit left before it was recorded")
	res := apiResultOf(t, h.frame(1, begin.ID, wire.WorkspaceWriteResult{Outcome: wire.OutcomeCompleted, SizeBytes: int64(len(body))}))
	require.Equal(t, core.WorkspaceCompleted, res.Value.(*core.WorkspaceResult).Outcome)
	rec, _ = h.st.Session(sid)
	require.Nil(t, rec.Mutation)
}

// TestUnknownWriteBlocksSuccessorsAcrossRestart: a write whose commit
// left without a receipt stays unknown and blocks later writes, also after
// a restart; one lost before its commit settles as not applied.
func TestUnknownWriteBlocksSuccessorsAcrossRestart(t *testing.T) {
	h := newRig(t)
	sid := h.workspaceSession()
	begin := one[wire.WorkspaceWrite](t, h.step(core.WriteWorkspace{Call: h.nextCall(), Session: sid, Path: "f", Data: []byte("1")}))
	h.frame(1, begin.ID, wire.WorkspaceWriteResult{Outcome: wire.OutcomeReady})
	h.frame(1, begin.ID, wire.WorkspaceWriteResult{Outcome: wire.OutcomeReceived, Offset: 1})
	res := apiResultOf(t, h.step(core.ConnClosed{Conn: 1}))
	require.Equal(t, core.WorkspaceUnknown, res.Value.(*core.WorkspaceResult).Outcome)

	m2 := core.Restart(testConfig(), h.st)
	h.m = m2
	h.connect("d1", 2, workspaceCaps())
	require.ErrorIs(t, h.api(core.WriteWorkspace{Call: h.nextCall(), Session: sid, Path: "f", Data: []byte("2")}).Err,
		core.ErrWorkspaceMutationPending)

	st := store.NewMemory()
	h2 := &rig{t: t, m: core.New(testConfig(), st), st: st, now: t0}
	sid2 := h2.workspaceSession()
	begin = one[wire.WorkspaceWrite](t, h2.step(core.WriteWorkspace{Call: h2.nextCall(), Session: sid2, Path: "f", Data: []byte("1")}))
	res = apiResultOf(t, h2.step(core.ConnClosed{Conn: 1}))
	require.Equal(t, core.WorkspaceUnavailable, res.Value.(*core.WorkspaceResult).Outcome, "lost before commit")
	rec, _ := st.Session(sid2)
	require.Nil(t, rec.Mutation)
	_ = begin
}

// TestWriteRejectedSettles: a rejected receipt settles the write as not
// applied and frees the Session.
func TestWriteRejectedSettles(t *testing.T) {
	h := newRig(t)
	sid := h.workspaceSession()
	begin := one[wire.WorkspaceWrite](t, h.step(core.WriteWorkspace{Call: h.nextCall(), Session: sid, Path: "f", Data: []byte("1")}))
	res := apiResultOf(t, h.frame(1, begin.ID, wire.WorkspaceWriteResult{Outcome: wire.OutcomeRejected,
		ErrorCode: wire.WriteRejected, Reason: wire.WriteReasonDestinationDirectory}))
	require.Equal(t, core.WorkspaceRejected, res.Value.(*core.WorkspaceResult).Outcome)
	require.Equal(t, wire.WriteReasonDestinationDirectory, res.Value.(*core.WorkspaceResult).Code)
	rec, _ := h.st.Session(sid)
	require.Nil(t, rec.Mutation)
	one[wire.WorkspaceWrite](t, h.step(core.WriteWorkspace{Call: h.nextCall(), Session: sid, Path: "f", Data: []byte("2")}))
}

// TestExportPullsChunksThenReleases: the archive is pulled with next at
// the bytes received so far and answered only once released arrived; a
// chunk at the wrong offset ends the export unavailable with a cancel.
func TestExportPullsChunksThenReleases(t *testing.T) {
	h := newRig(t)
	sid := h.workspaceSession()
	prep := one[wire.ExecutionPrepare](t, h.step(core.ExportWorkspace{Call: h.nextCall(), Session: sid}))
	require.True(t, prep.P.Configuration.WorkspaceReadOnly)
	begin := one[wire.WorkspaceExport](t, h.frame(1, prep.ID, roStatus(wire.StateReady, 2, "")))
	require.Equal(t, wire.StepBegin, begin.P.Step)
	require.Equal(t, "h-ro", begin.P.Handle)
	require.Equal(t, wsEnv, begin.P.EnvironmentID)
	next := one[wire.WorkspaceExport](t, h.frame(1, begin.ID, wire.WorkspaceExportResult{Outcome: wire.OutcomeChunk, Offset: 0, Data: []byte("tar-")}))
	require.Equal(t, wire.StepNext, next.P.Step)
	require.Equal(t, int64(4), next.P.Offset)
	h.frame(1, begin.ID, wire.WorkspaceExportResult{Outcome: wire.OutcomeChunk, Offset: 4, Data: []byte("body")})
	rel := one[wire.ExecutionRelease](t, h.frame(1, begin.ID, wire.WorkspaceExportResult{Outcome: wire.OutcomeCompleted, Offset: 8}))
	require.Equal(t, "h-ro", rel.P.Handle)
	require.Nil(t, apiResultOf(t, h.last))
	res := apiResultOf(t, h.frame(1, prep.ID, roStatus(wire.StateReleased, 3, "")))
	require.Equal(t, core.WorkspaceCompleted, res.Value.(*core.WorkspaceResult).Outcome)
	require.Equal(t, "tar-body", string(res.Value.(*core.WorkspaceResult).Archive))

	prep = one[wire.ExecutionPrepare](t, h.step(core.ExportWorkspace{Call: h.nextCall(), Session: sid}))
	begin = one[wire.WorkspaceExport](t, h.frame(1, prep.ID, wire.PreparationStatus{Handle: "h-2", Revision: 2, State: wire.StateReady}))
	effs := h.frame(1, begin.ID, wire.WorkspaceExportResult{Outcome: wire.OutcomeChunk, Offset: 9, Data: []byte("x")})
	res = apiResultOf(t, effs)
	require.Equal(t, core.WorkspaceUnavailable, res.Value.(*core.WorkspaceResult).Outcome)
	require.Nil(t, res.Value.(*core.WorkspaceResult).Archive)
	steps := sends[wire.WorkspaceExport](effs)
	require.Len(t, steps, 1)
	require.Equal(t, wire.StepCancel, steps[0].P.Step)
	one[wire.ExecutionRelease](t, effs)

	c := with(workspaceCaps(), "workspace_output_export", wire.CapabilityUnsupported)
	h2 := newRig(t)
	h2.connect("d1", 1, c)
	sid2 := h2.session(workspaceAgent())
	res = apiResultOf(t, h2.step(core.ExportWorkspace{Call: h2.nextCall(), Session: sid2}))
	require.Equal(t, "no_device", res.Value.(*core.WorkspaceResult).Code)
}

// TestExportCancelledWhenItsProfileEnds: an export whose read-only
// profile expires mid-pull is answered unavailable and cancelled on the
// wire (wire reference §3.11: Core stopping early sends cancel).
func TestExportCancelledWhenItsProfileEnds(t *testing.T) {
	h := newRig(t)
	sid := h.workspaceSession()
	prep := one[wire.ExecutionPrepare](t, h.step(core.ExportWorkspace{Call: h.nextCall(), Session: sid}))
	begin := one[wire.WorkspaceExport](t, h.frame(1, prep.ID, roStatus(wire.StateReady, 2, "")))
	effs := h.frame(1, prep.ID, roStatus(wire.StateExpired, 3, ""))
	res := apiResultOf(t, effs)
	require.Equal(t, core.WorkspaceUnavailable, res.Value.(*core.WorkspaceResult).Outcome)
	steps := sends[wire.WorkspaceExport](effs)
	require.Len(t, steps, 1)
	require.Equal(t, wire.StepCancel, steps[0].P.Step)
	require.Equal(t, begin.ID, steps[0].ID)
}

func TestReservedWorkspaceDirIsTopLevelOnly(t *testing.T) {
	for p, want := range map[string]bool{".turnstile": true, ".turnstile/a": true, ".Turnstile/a": true,
		".turnstilex": false, "a/.turnstile/b": false, "turnstile/a": false} {
		require.Equal(t, want, core.InReservedWorkspaceDir(p), p)
	}
}

// TestWorkspaceSkipsFencedDevice: a device with an unresolved suspension
// serves no workspace read, write or export (its Runtime may be
// quiesced): after its reconnect the calls answer no_device and send
// nothing; once the suspension is resumed the device serves them again.
func TestWorkspaceSkipsFencedDevice(t *testing.T) {
	h := newRig(t)
	sid := h.workspaceSession()
	sus, q := h.quiesce("d1", wsEnv)
	h.frame(1, q.ID, quiesced(q, true, ""))
	h.step(core.ConnClosed{Conn: 1, Reason: "quiesced"})
	h.connect("d1", 2, workspaceCaps())
	calls := []core.Event{
		core.WriteWorkspace{Call: h.nextCall(), Session: sid, Path: "f", Data: []byte("x")},
		core.ReadWorkspace{Call: h.nextCall(), Session: sid, Path: "f", MaxBytes: 4},
		core.ExportWorkspace{Call: h.nextCall(), Session: sid},
	}
	for _, ev := range calls {
		effs := h.step(ev)
		res := apiResultOf(t, effs)
		require.NotNilf(t, res, "%s answered at once", ev.Describe())
		require.Equalf(t, core.WorkspaceUnavailable, res.Value.(*core.WorkspaceResult).Outcome, "%s", ev.Describe())
		require.Equalf(t, "no_device", res.Value.(*core.WorkspaceResult).Code, "%s", ev.Describe())
		require.Emptyf(t, sends[wire.WorkspaceWrite](effs), "%s: nothing sent to the fenced device", ev.Describe())
		require.Emptyf(t, sends[wire.ExecutionPrepare](effs), "%s: nothing sent to the fenced device", ev.Describe())
	}
	rec, _ := h.st.Session(sid)
	require.Nil(t, rec.Mutation, "no mutation reserved")

	r := h.api(core.ResumeEnvironment{Call: h.nextCall(), SuspendID: sus})
	require.NoError(t, r.Err)
	res := one[wire.EnvironmentResume](t, h.last)
	h.frame(2, res.ID, wire.EnvironmentResumed{EnvironmentID: wsEnv, SuspendID: sus, Accepted: true})
	one[wire.WorkspaceWrite](t, h.step(core.WriteWorkspace{Call: h.nextCall(), Session: sid, Path: "f", Data: []byte("x")}))
}

// TestWorkspaceOneWriteAndOneExportPerConnection: Core keeps at most one
// write and one export in flight per connection (wire reference §6.1):
// a second Session's write (export) while the first is in flight is
// refused ErrWorkspaceConnBusy, nothing reserved or sent; once the first
// ended the second goes out.
func TestWorkspaceOneWriteAndOneExportPerConnection(t *testing.T) {
	h := newRig(t)
	s1 := h.workspaceSession()
	s2 := h.session(workspaceAgent())
	begin := one[wire.WorkspaceWrite](t, h.step(core.WriteWorkspace{Call: h.nextCall(), Session: s1, Path: "f", Data: []byte("1")}))
	effs := h.step(core.WriteWorkspace{Call: h.nextCall(), Session: s2, Path: "g", Data: []byte("2")})
	res := apiResultOf(t, effs)
	require.ErrorIs(t, res.Err, core.ErrWorkspaceConnBusy)
	require.ErrorIs(t, res.Err, core.ErrWorkspaceBusy, "a kind of busy")
	require.Empty(t, sends[wire.WorkspaceWrite](effs), "no second write on the connection")
	rec, _ := h.st.Session(s2)
	require.Nil(t, rec.Mutation, "nothing reserved on refusal")
	h.frame(1, begin.ID, wire.WorkspaceWriteResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.WriteCapacity})
	one[wire.WorkspaceWrite](t, h.step(core.WriteWorkspace{Call: h.nextCall(), Session: s2, Path: "g", Data: []byte("2")}))

	h2 := newRig(t)
	e1 := h2.workspaceSession()
	e2 := h2.session(workspaceAgent())
	prep := one[wire.ExecutionPrepare](t, h2.step(core.ExportWorkspace{Call: h2.nextCall(), Session: e1}))
	effs = h2.step(core.ExportWorkspace{Call: h2.nextCall(), Session: e2})
	require.ErrorIs(t, apiResultOf(t, effs).Err, core.ErrWorkspaceConnBusy)
	require.Empty(t, sends[wire.ExecutionPrepare](effs), "no second export on the connection")
	one[wire.ExecutionPrepare](t, h2.step(core.ReadWorkspace{Call: h2.nextCall(), Session: e2, Path: "f", MaxBytes: 4}))
	h2.frame(1, prep.ID, roStatus(wire.StateRejected, 1, wire.PrepResourceUnavailable))
	one[wire.ExecutionPrepare](t, h2.step(core.ExportWorkspace{Call: h2.nextCall(), Session: e1}))
}
