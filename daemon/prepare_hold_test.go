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
