package daemon

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/wire"
)

// TestPrepareWaitsForTheInstallation: an execution_prepare arriving while
// a setup step installs answers preparing, and its native Prepare is
// issued only once the installer answered, with the snapshot that
// installation produced.
func TestPrepareWaitsForTheInstallation(t *testing.T) {
	r := newRig(t)
	r.recv("x1", setupBegin())
	r.recv("x1", commit)
	install, _ := callOf[InstallTransfer](r)

	r.recv("p1", prepareFor("s1"))
	require.Equal(t, wire.StatePreparing, oneStatus(r).State, "the Runtime owns the preparation")
	noCall[Prepare](r)
	require.Equal(t, 1, r.m.HeldPrepares(), "held behind the installation")

	r.result(install, InstallResult{Outcome: InstallCompleted})
	xferReply(t, r, "x1", wire.OutcomeCompleted, 0, 0)
	c, op := callOf[Prepare](r)
	require.Len(t, op.Installed, 1, "the factory receives the snapshot the installation loaded")
	require.Equal(t, wire.PrepareActionInitialize, op.Installed[0].Action, "installed setup")
	require.Equal(t, 0, r.m.HeldPrepares(), "released")
	r.result(c, PrepareResult{})
	require.Equal(t, wire.StateReady, oneStatus(r).State, "ready once the native Prepare answered")
}

// TestPrepareWaitsForAnOrphanedInstallation: an installation a lost
// connection orphaned still holds a later connection's prepare; a failed
// installation releases it with the snapshot unchanged.
func TestPrepareWaitsForAnOrphanedInstallation(t *testing.T) {
	r := newRig(t)
	r.recv("x1", setupBegin())
	r.recv("x1", commit)
	install, _ := callOf[InstallTransfer](r)
	r.step(ConnClosed{Conn: r.gen})
	r.connect()

	r.recv("p1", prepareFor("s1"))
	require.Equal(t, wire.StatePreparing, oneStatus(r).State, "preparing")
	noCall[Prepare](r)

	r.result(install, InstallResult{Outcome: InstallFailed, ExitCode: 3})
	_, op := callOf[Prepare](r)
	require.Empty(t, op.Installed, "nothing installed")
}

// TestPrepareIsNotHeldByStaging: only an installation holds a new
// executor's Prepare; staging a chunk does not.
func TestPrepareIsNotHeldByStaging(t *testing.T) {
	r := newRig(t)
	r.recv("x1", fileBegin(3))
	r.recv("x1", chunk(0, []byte("abc")))
	callOf[StageChunk](r)
	r.recv("p1", prepareFor("s1"))
	callOf[Prepare](r)
	require.Equal(t, 0, r.m.HeldPrepares(), "staging holds nothing")
}

// TestPrepareDuringEnvironmentPreparationRefused: an execution_prepare
// bound to an Environment whose runtime preparation is in progress — from
// its begin to its terminal result, staging or installing, read-only
// profiles included — is refused resource_unavailable before any native
// call (wire-reference §3.3); another Environment's prepare is not, and
// the same prepare is admitted once the transfer ended.
func TestPrepareDuringEnvironmentPreparationRefused(t *testing.T) {
	local := func(session, env string, readOnly bool) wire.ExecutionPrepare {
		p := localPrepare(session)
		if readOnly {
			p = readOnlyPrepare(session)
		}
		p.Configuration.LocalEnvironment = &wire.LocalEnvironment{ID: env}
		return p
	}
	refusedNow := func(r *rig, req string, p wire.ExecutionPrepare) {
		t.Helper()
		r.recv(req, p)
		st := oneStatus(r)
		require.Equal(t, wire.StateRejected, st.State, "refused")
		require.Equal(t, CodeResourceUnavailable, st.ErrorCode, "resource_unavailable")
		require.Equal(t, wire.TypeExecutionPrepare, st.Operation, "the refused operation")
		require.Empty(t, st.Handle, "no handle")
		noCall[Prepare](r)
		noCall[OpenWorkspace](r)
		require.Zero(t, r.m.HeldPrepares(), "nothing held")
	}
	r := newWorkspaceRig(t)
	r.recv("x1", fileBegin(3))
	refusedNow(r, "p1", local("s1", envID, false))
	refusedNow(r, "p2", local("s2", envID, true))
	r.recv("x1", chunk(0, []byte("abc")))
	callOf[StageChunk](r)
	refusedNow(r, "p3", local("s3", envID, false))

	r.recv("p4", local("s4", wsEnv, false))
	require.Equal(t, wire.StatePreparing, oneStatus(r).State, "another Environment's prepare is admitted")
	callOf[Prepare](r)

	r.recv("x1", wire.RuntimePrepare{Step: wire.StepChunk, Offset: 9, Data: []byte("x")})
	xferReply(t, r, "x1", wire.OutcomeRejected, 0, 0)
	r.recv("p5", local("s5", envID, false))
	require.Equal(t, wire.StatePreparing, oneStatus(r).State, "admitted once the transfer ended")
}
