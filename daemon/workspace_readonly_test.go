package daemon

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/wire"
)

// TestReadOnlyProfileReadsAndReleasesAfterConfirmedClose: the profile
// opens a local reader (no executor, no Harness preparation), serves a
// read against its handle, refuses execution_start, and publishes
// released only once the close is confirmed.
func TestReadOnlyProfileReadsAndReleasesAfterConfirmedClose(t *testing.T) {
	r := newWorkspaceRig(t)
	st, reader := r.openReader("ro-1")
	noCall[Prepare](r)
	require.Equal(t, "", st.ExecutorID, "executor of a read-only profile")

	r.recv("ro-1", wire.ExecutionStart{ExecutorID: "ex-1", Handle: st.Handle, RunID: "run-1", Input: wire.TextInput("x")})
	got := oneStatus(r)
	require.Equal(t, wire.StateRejected, got.State, "start state")
	require.Equal(t, CodeReadOnlyPreparation, got.ErrorCode, "start code")

	r.recv("op-1", byteRead(st.Handle, "a.txt", 4))
	c, op := callOf[ReadWorkspace](r)
	require.Equal(t, reader, op.Target.Reader, "read target")
	require.Equal(t, wsEnv, op.Environment, "read environment")
	r.result(c, fileResult("abcd"))
	res := oneReadResult(r, "op-1")
	require.Equal(t, "abcd", string(res.Data), "data")
	require.True(t, res.CloseAcknowledged, "close acknowledged")

	r.recv("ro-1", wire.ExecutionRelease{Handle: st.Handle})
	require.Truef(t, len(statuses(r)) == 0, "released before the close: %s", describeAll(r.out))
	cc, _ := callOf[CloseWorkspace](r)
	r.recv("ro-1", wire.ExecutionRelease{Handle: st.Handle})
	require.Equal(t, wire.StateReady, oneStatus(r).State, "repeated release while closing republishes ready")
	r.result(cc, CloseResult{})
	rel := oneStatus(r)
	require.Equal(t, wire.StateReleased, rel.State, "state after close")
	require.Equal(t, uint64(3), rel.Revision, "revision")
	require.Empty(t, r.m.Owned(), "owned after the confirmed close")
}

// TestReadOnlyCloseFailureKeepsOwnershipUntilRetryReleases: a failed
// close answers failed cleanup_unconfirmed and keeps the reader (and its
// active slot); the serial retry's confirmed close publishes released.
func TestReadOnlyCloseFailureKeepsOwnershipUntilRetryReleases(t *testing.T) {
	cfg := workspaceConfig()
	cfg.Limits.ActiveMax = 1
	cfg.Limits.IdleExecutorsMax = 1
	cfg.Limits.ExecutorsMax = 2
	r := newRigWith(t, cfg)
	st, reader := r.openReader("ro-1")
	r.recv("ro-1", wire.ExecutionRelease{Handle: st.Handle})
	cc, _ := callOf[CloseWorkspace](r)
	r.result(cc, CloseResult{Err: "close failed"})
	failed := oneStatus(r)
	require.Equal(t, wire.StateFailed, failed.State, "state after failed close")
	require.Equal(t, CodeCleanupUnconfirmed, failed.ErrorCode, "code after failed close")

	r.recv("p-2", prepareFor("other"))
	require.Equal(t, CodePreparationCapacity, oneStatus(r).ErrorCode, "an unconfirmed close keeps its active slot")
	r.recv("ro-1", wire.ExecutionRelease{Handle: st.Handle})
	require.Equal(t, wire.StateFailed, oneStatus(r).State, "republished status never claims the release")

	r.fire(readerCloseRetryTimer(reader))
	cc2, op := callOf[CloseWorkspace](r)
	require.Equal(t, reader, op.Reader, "retried reader")
	r.result(cc2, CloseResult{})
	rel := oneStatus(r)
	require.Equal(t, wire.StateReleased, rel.State, "state after retry")
	require.Equal(t, failed.Revision+1, rel.Revision, "release at the next revision")
	require.Empty(t, r.m.Owned(), "owned after the retry")
}

// TestReadOnlyProfileRefusals: each rule of the profile has its code and
// no native work starts.
func TestReadOnlyProfileRefusals(t *testing.T) {
	cases := []struct {
		name string
		caps func(*wire.AgentKindCapabilities)
		edit func(*wire.ExecutionPrepare)
		code string
	}{
		{"capability not declared", func(c *wire.AgentKindCapabilities) { c.WorkspaceReadPreparation = wire.CapabilityUnsupported },
			nil, CodeUnsupportedReadPreparation},
		{"agent options", nil, func(p *wire.ExecutionPrepare) {
			p.Configuration.AgentOptions = map[string]json.RawMessage{wire.AgentOptionModel: json.RawMessage(`"m"`)}
		}, CodeUnsupportedReadPreparation},
		{"native continuation", nil, func(p *wire.ExecutionPrepare) { p.Configuration.AgentSessionID = "n-1" },
			CodeUnsupportedReadPreparation},
		{"no environment", nil, func(p *wire.ExecutionPrepare) {
			p.Configuration.LocalEnvironment = nil
			p.Configuration.DisableExecutionEnvironment = true
		}, CodeUnsupportedReadPreparation},
		{"no release on completion", nil, func(p *wire.ExecutionPrepare) { p.Configuration.ReleaseOnCompletion = false },
			CodeUnsupportedReadPreparation},
		{"blank environment", nil, func(p *wire.ExecutionPrepare) { p.Configuration.LocalEnvironment.ID = " " },
			CodeInvalidConfiguration},
		{"model input", nil, func(p *wire.ExecutionPrepare) { p.Configuration.Input = wire.TextInput("x") },
			CodeInvalidConfiguration},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := workspaceConfig()
			if c.caps != nil {
				c.caps(&cfg.Kinds[0].Capabilities)
			}
			r := newRigWith(t, cfg)
			p := readOnlyPrepare(wsSession)
			if c.edit != nil {
				c.edit(&p)
			}
			r.recv("ro-1", p)
			st := oneStatus(r)
			require.Equal(t, wire.StateRejected, st.State, "state")
			require.Equal(t, c.code, st.ErrorCode, "code")
			require.Truef(t, len(r.calls()) == 0, "native work for a refused profile: %s", describeAll(r.out))
		})
	}
}

// TestReadOnlyOpenFailure: a failed open fails the admission with
// preparation_failed and leaves nothing; one that left a resource fails
// with cleanup_unconfirmed and the reader is kept and closed.
func TestReadOnlyOpenFailure(t *testing.T) {
	r := newWorkspaceRig(t)
	r.recv("ro-1", readOnlyPrepare(wsSession))
	c, _ := callOf[OpenWorkspace](r)
	r.result(c, OpenWorkspaceResult{Err: "no such directory"})
	st := oneStatus(r)
	require.Equal(t, CodePreparationFailed, st.ErrorCode, "plain failure")
	require.Empty(t, r.m.Owned(), "owned after a plain failure")

	r.recv("ro-2", readOnlyPrepare(wsSession))
	c, _ = callOf[OpenWorkspace](r)
	r.result(c, OpenWorkspaceResult{Err: "half open", Retained: true})
	st = oneStatus(r)
	require.Equal(t, wire.StateFailed, st.State, "retained failure state")
	require.Equal(t, CodeCleanupUnconfirmed, st.ErrorCode, "retained failure code")
	cc, _ := callOf[CloseWorkspace](r)
	require.Truef(t, len(r.m.Owned()) > 0, "the retained reader is owned")
	r.result(cc, CloseResult{})
	require.Truef(t, len(statuses(r)) == 0, "no release was asked, none is published: %s", describeAll(r.out))
	require.Empty(t, r.m.Owned(), "owned after the close")
}

// TestReadOnlyExpiryAndDisconnectClose: an expired or retired profile's
// reader is closed; nothing is claimed about the close.
func TestReadOnlyExpiryAndDisconnectClose(t *testing.T) {
	r := newWorkspaceRig(t)
	st, _ := r.openReader("ro-1")
	r.fire(expiryTimer(st.Handle))
	require.Equal(t, wire.StateExpired, oneStatus(r).State, "expired")
	cc, _ := callOf[CloseWorkspace](r)
	r.result(cc, CloseResult{})
	require.Truef(t, len(statuses(r)) == 0, "no status after an expired profile's close")

	st, _ = r.openReader("ro-2")
	r.step(ConnClosed{Conn: r.gen})
	cc, _ = callOf[CloseWorkspace](r)
	r.result(cc, CloseResult{})
	require.Empty(t, r.m.Owned(), "owned after the disconnect close")
	_ = st
}

// TestReadOnlyShutdownWaitsForClose: shutdown releases the profile only
// after its close is confirmed, and the report owns the reader until then.
func TestReadOnlyShutdownWaitsForClose(t *testing.T) {
	r := newWorkspaceRig(t)
	r.openReader("ro-1")
	r.step(ShutdownRequested{})
	require.Truef(t, len(statuses(r)) == 0, "released before the close on shutdown")
	cc, _ := callOf[CloseWorkspace](r)
	r.result(cc, CloseResult{})
	require.Equal(t, wire.StateReleased, oneStatus(r).State, "released after the close")
	var last Report
	for _, e := range r.all {
		if rep, ok := e.(Report); ok {
			last = rep
		}
	}
	require.True(t, last.Complete, "report complete after the close")
}

// TestReadOnlyReleaseWhileOpeningClosesOnOpen: a release that arrives
// while the reader is still opening is kept: the successful open never
// makes the admission ready (its expiry was cancelled by the release, so
// a ready record would hold its active slot forever); the reader is
// closed at once and the confirmed close publishes released.
func TestReadOnlyReleaseWhileOpeningClosesOnOpen(t *testing.T) {
	cfg := workspaceConfig()
	cfg.Limits.ActiveMax = 1
	r := newRigWith(t, cfg)
	r.recv("ro-1", readOnlyPrepare(wsSession))
	st := oneStatus(r)
	require.Equal(t, wire.StatePreparing, st.State, "state while opening")
	oc, _ := callOf[OpenWorkspace](r)
	r.recv("ro-1", wire.ExecutionRelease{Handle: st.Handle})
	require.Truef(t, len(statuses(r)) == 0, "released before the open had an outcome: %s", describeAll(r.out))
	noCall[CloseWorkspace](r)

	r.result(oc, OpenWorkspaceResult{})
	require.Truef(t, len(statuses(r)) == 0, "a released profile became ready: %s", describeAll(r.out))
	cc, _ := callOf[CloseWorkspace](r)
	r.result(cc, CloseResult{})
	rel := oneStatus(r)
	require.Equal(t, wire.StateReleased, rel.State, "state after the close")
	require.Equal(t, uint64(2), rel.Revision, "revision")
	require.Empty(t, r.m.Owned(), "owned after the confirmed close")
	r.recv("p-2", prepareFor("other"))
	require.Truef(t, oneStatus(r).ErrorCode != CodePreparationCapacity, "the released profile still holds its active slot")
}
