package daemon

import (
	"testing"

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
	eq(t, oneStatus(r).State, wire.StatePreparing, "the Runtime owns the preparation")
	noCall[Prepare](r)
	eq(t, r.m.HeldPrepares(), 1, "held behind the installation")

	r.result(install, InstallResult{Outcome: InstallCompleted})
	xferReply(t, r, "x1", wire.OutcomeCompleted, 0, 0)
	c, op := callOf[Prepare](r)
	eq(t, len(op.Installed), 1, "the factory receives the snapshot the installation loaded")
	eq(t, op.Installed[0].Action, wire.PrepareActionInitialize, "installed setup")
	eq(t, r.m.HeldPrepares(), 0, "released")
	r.result(c, PrepareResult{})
	eq(t, oneStatus(r).State, wire.StateReady, "ready once the native Prepare answered")
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
	eq(t, oneStatus(r).State, wire.StatePreparing, "preparing")
	noCall[Prepare](r)

	r.result(install, InstallResult{Outcome: InstallFailed, ExitCode: 3})
	_, op := callOf[Prepare](r)
	eq(t, len(op.Installed), 0, "nothing installed")
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
	eq(t, r.m.HeldPrepares(), 0, "staging holds nothing")
}
