package daemon

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/wire"
)

const (
	envID     = "6f1c2a34-5b6d-4e7f-8a9b-0c1d2e3f4a5b"
	sessionID = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
	digestHex = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
)

func fileBegin(size int64) wire.RuntimePrepare {
	return wire.RuntimePrepare{Step: wire.StepBegin, EnvironmentID: envID, SessionID: sessionID,
		Action: wire.PrepareActionFile, File: &wire.PrepareFile{Path: "/workspace/a.txt"}, SizeBytes: size, SHA256: digestHex}
}

func setupBegin() wire.RuntimePrepare {
	return wire.RuntimePrepare{Step: wire.StepBegin, EnvironmentID: envID, SessionID: sessionID,
		Action: wire.PrepareActionInitialize, Initialization: &wire.Initialization{Action: "setup", Command: "make", Network: "disabled"}}
}

func chunk(offset int64, data []byte) wire.RuntimePrepare {
	return wire.RuntimePrepare{Step: wire.StepChunk, Offset: offset, Data: data}
}

var commit = wire.RuntimePrepare{Step: wire.StepCommit}

// xferReply returns the single runtime_prepare_result of the last step on
// id and checks it against the expected outcome with the shared validator.
func xferReply(t *testing.T, r *rig, id, outcome string, offset, total int64) wire.RuntimePrepareResult {
	t.Helper()
	var got []wire.RuntimePrepareResult
	for _, f := range r.sent() {
		if p, ok := f.Payload.(wire.RuntimePrepareResult); ok {
			require.Equal(t, id, f.ID, "reply on the transfer ID")
			got = append(got, p)
		}
	}
	if len(got) != 1 {
		require.Fail(t, fmt.Sprintf("want one result, got %d: %s", len(got), describeAll(r.out)))
	}
	if err := got[0].ValidateAgainst(outcome, offset, total); err != nil {
		require.Fail(t, fmt.Sprintf("result %+v fails the shared validator for %s/%d/%d: %v", got[0], outcome, offset, total, err))
	}
	return got[0]
}

func TestTransferBeginChunkCommit(t *testing.T) {
	r := newRig(t)
	data := bytes.Repeat([]byte("x"), 70_000)
	r.recv("x1", fileBegin(int64(len(data))))
	xferReply(t, r, "x1", wire.OutcomeReady, 0, 0)
	require.Empty(t, r.calls(), "begin stages nothing")

	r.recv("x1", chunk(0, data[:wire.ChunkBytesMax]))
	c, op := callOf[StageChunk](r)
	require.Equal(t, int64(0), op.Offset, "stage offset")
	require.Empty(t, r.sent(), "received waits for the staging")
	r.result(c, StageResult{})
	xferReply(t, r, "x1", wire.OutcomeReceived, wire.ChunkBytesMax, 0)

	r.recv("x1", chunk(wire.ChunkBytesMax, data[wire.ChunkBytesMax:]))
	c, _ = callOf[StageChunk](r)
	r.result(c, StageResult{})
	xferReply(t, r, "x1", wire.OutcomeReceived, int64(len(data)), 0)

	r.recv("x1", commit)
	c, inst := callOf[InstallTransfer](r)
	require.Equal(t, digestHex, inst.Header.SHA256, "the installer verifies the declared digest")
	r.result(c, InstallResult{Outcome: InstallCompleted})
	xferReply(t, r, "x1", wire.OutcomeCompleted, 0, int64(len(data)))
	require.Len(t, r.m.InstalledSnapshot(), 1, "installed")
	require.Equal(t, Installed{Action: wire.PrepareActionFile, Name: "/workspace/a.txt"}, r.m.InstalledSnapshot()[0], "snapshot entry")

	r.recv("x2", setupBegin()) // the next transfer of the connection
	xferReply(t, r, "x2", wire.OutcomeReady, 0, 0)
}

func TestTransferSetupFailsWithExitCode(t *testing.T) {
	r := newRig(t)
	r.recv("x", setupBegin())
	r.recv("x", commit)
	c, _ := callOf[InstallTransfer](r)
	r.result(c, InstallResult{Outcome: InstallFailed, ExitCode: 3})
	got := xferReply(t, r, "x", wire.OutcomeCompleted, 0, 0)
	require.Equal(t, wire.RuntimePrepareResult{Outcome: wire.OutcomeFailed, ErrorCode: wire.TransferFailed, ExitCode: 3}, got, "failed with exit code")
	require.Empty(t, r.m.InstalledSnapshot(), "nothing installed")
}

func TestTransferInstallOutcomes(t *testing.T) {
	for _, c := range []struct {
		res  InstallResult
		want wire.RuntimePrepareResult
	}{
		{InstallResult{Outcome: InstallMismatch}, wire.RuntimePrepareResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.TransferRejected}},
		{InstallResult{Outcome: InstallUnknown}, wire.RuntimePrepareResult{Outcome: wire.OutcomeUnknown, ErrorCode: wire.TransferUnconfirmed}},
		{InstallResult{Outcome: InstallFailed, ExitCode: 999}, wire.RuntimePrepareResult{Outcome: wire.OutcomeFailed, ErrorCode: wire.TransferFailed}},
	} {
		r := newRig(t)
		r.recv("x", fileBegin(1))
		r.recv("x", chunk(0, []byte("a")))
		sc, _ := callOf[StageChunk](r)
		r.result(sc, StageResult{})
		r.recv("x", commit)
		ic, _ := callOf[InstallTransfer](r)
		r.result(ic, c.res)
		got := xferReply(t, r, "x", wire.OutcomeCompleted, 0, 1)
		require.Equal(t, c.want, got, c.res.Describe())
		require.Empty(t, r.m.InstalledSnapshot(), "nothing installed")
	}
}

// TestTransferProtocolViolations: each violation rejects the step with
// invalid_request, abandons the transfer (staging discarded) and frees the
// connection's transfer slot.
func TestTransferProtocolViolations(t *testing.T) {
	cases := []struct {
		name  string
		setup func(r *rig) // after begin of a 10-byte file
		step  wire.RuntimePrepare
	}{
		{"offset gap", nil, chunk(1, []byte("a"))},
		{"past the declared size", nil, chunk(0, bytes.Repeat([]byte("a"), 11))},
		{"commit before every byte", nil, commit},
		{"invalid step", nil, wire.RuntimePrepare{Step: "rewind"}},
		{"second frame in flight", func(r *rig) { r.recv("x", chunk(0, []byte("abcde"))) }, chunk(5, []byte("fghij"))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t)
			r.recv("x", fileBegin(10))
			if tc.setup != nil {
				tc.setup(r)
			}
			r.recv("x", tc.step)
			xferReply(t, r, "x", wire.OutcomeReady, 0, 0)
			got := payloadsOf[wire.RuntimePrepareResult](r.sent())[0]
			require.Equal(t, wire.RuntimePrepareResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.TransferInvalidRequest}, got, "rejected")
			if tc.setup == nil {
				noCall[StageChunk](r)
			}
			r.recv("y", setupBegin())
			xferReply(t, r, "y", wire.OutcomeReady, 0, 0)
		})
	}
	t.Run("chunk without body", func(t *testing.T) {
		r := newRig(t)
		r.recv("x", setupBegin())
		r.recv("x", chunk(0, []byte("a")))
		require.Equal(t, wire.TransferInvalidRequest, payloadsOf[wire.RuntimePrepareResult](r.sent())[0].ErrorCode, "rejected")
		noCall[StageChunk](r)
	})
	t.Run("unknown transfer", func(t *testing.T) {
		r := newRig(t)
		r.recv("x", fileBegin(3))
		r.recv("other", chunk(0, []byte("a")))
		require.Equal(t, wire.TransferInvalidRequest, payloadsOf[wire.RuntimePrepareResult](r.sent())[0].ErrorCode, "rejected")
		r.recv("x", chunk(0, []byte("abc")))
		callOf[StageChunk](r) // the active transfer is untouched
	})
}

func TestTransferOnePerConnection(t *testing.T) {
	r := newRig(t)
	r.recv("x", fileBegin(3))
	r.recv("y", setupBegin())
	require.Equal(t, wire.RuntimePrepareResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.TransferCapacity}, payloadsOf[wire.RuntimePrepareResult](r.sent())[0], "capacity")
	r.recv("", setupBegin())
	require.Empty(t, r.out, "no identity, no answer")
}

// TestTransferNeverResumedAfterReconnect: a transfer lost with its
// connection is discarded once its staging call returns, and the new
// connection knows nothing of it.
func TestTransferNeverResumedAfterReconnect(t *testing.T) {
	r := newRig(t)
	r.recv("x", fileBegin(6))
	r.recv("x", chunk(0, []byte("abc")))
	sc, _ := callOf[StageChunk](r)
	r.step(ConnClosed{Conn: r.gen})
	noCall[DiscardTransfer](r)
	r.connect()
	r.result(sc, StageResult{})
	require.Empty(t, r.sent(), "no reply on the new connection")
	dc, op := callOf[DiscardTransfer](r)
	require.Equal(t, "g1/x", op.Transfer, "the lost transfer's staging")
	r.result(dc, DiscardResult{})

	r.recv("x", chunk(3, []byte("def")))
	require.Equal(t, wire.TransferInvalidRequest, payloadsOf[wire.RuntimePrepareResult](r.sent())[0].ErrorCode, "not resumed")
	r.recv("x", fileBegin(6))
	xferReply(t, r, "x", wire.OutcomeReady, 0, 0)
}

func TestTransferRefusedWhileQuiesced(t *testing.T) {
	r := newRig(t)
	r.recv("q", quiesce("env", "s"))
	r.step(ConnClosed{Conn: r.gen})
	r.connect()
	r.recv("x", setupBegin())
	require.Equal(t, wire.RuntimePrepareResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.TransferResourceUnavail}, payloadsOf[wire.RuntimePrepareResult](r.sent())[0], "quiesced")

	r2 := newRig(t)
	r2.recv("x", setupBegin())
	r2.recv("q", quiesce("env", "s"))
	rep, _ := fenceReply[wire.EnvironmentQuiesced](t, r2, "q")
	require.Equal(t, CodeResourceBusy, rep.ErrorCode, "an open transfer is active work")
}

// TestTransferExpiresWithoutCommit: a transfer whose commit has not
// arrived PrepareExpiry after its begin is refused invalid_request at that
// instant and its staging discarded; a chunk still staging then is
// discarded when its call returns, and its late result sends nothing.
func TestTransferExpiresWithoutCommit(t *testing.T) {
	r := newRig(t)
	begun := r.now
	r.recv("x", fileBegin(6))
	r.recv("x", chunk(0, []byte("abc")))
	sc, _ := callOf[StageChunk](r)
	r.result(sc, StageResult{})
	xferReply(t, r, "x", wire.OutcomeReceived, 3, 0)
	at, ok := r.armed(prepareTimer(r.gen, "x"))
	require.True(t, ok, "expiry armed at begin")
	require.Equal(t, begun.Add(DefaultLimits().PrepareExpiry), at, "195 s from the begin, not from the last chunk")

	r.fire(prepareTimer(r.gen, "x"))
	require.Equal(t, wire.RuntimePrepareResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.TransferInvalidRequest},
		xferReply(t, r, "x", wire.OutcomeReceived, 3, 0), "expired")
	dc, op := callOf[DiscardTransfer](r)
	require.Equal(t, "g1/x", op.Transfer, "staging dropped")
	r.result(dc, DiscardResult{})
	r.recv("x", chunk(3, []byte("def")))
	require.Equal(t, wire.TransferInvalidRequest, payloadsOf[wire.RuntimePrepareResult](r.sent())[0].ErrorCode, "the expired transfer is gone")
	r.recv("y", setupBegin())
	xferReply(t, r, "y", wire.OutcomeReady, 0, 0)

	// A chunk still staging at expiry: refused now, discarded later.
	r2 := newRig(t)
	r2.recv("x", fileBegin(6))
	r2.recv("x", chunk(0, []byte("abc")))
	sc, _ = callOf[StageChunk](r2)
	r2.fire(prepareTimer(r2.gen, "x"))
	require.Equal(t, wire.TransferInvalidRequest, xferReply(t, r2, "x", wire.OutcomeReceived, 3, 0).ErrorCode, "refused while staging")
	noCall[DiscardTransfer](r2)
	r2.result(sc, StageResult{})
	require.Empty(t, r2.sent(), "the late staging answers nothing")
	callOf[DiscardTransfer](r2)
}

// TestTransferCommitStopsExpiry: once the commit arrives the installation
// may outlast the expiry; the Runtime answers its outcome.
func TestTransferCommitStopsExpiry(t *testing.T) {
	r := newRig(t)
	r.recv("x", setupBegin())
	r.recv("x", commit)
	_, ok := r.armed(prepareTimer(r.gen, "x"))
	require.False(t, ok, "the commit cancels the expiry")
	c, _ := callOf[InstallTransfer](r)
	r.advance(DefaultLimits().PrepareExpiry + time.Minute)
	r.step(TimerFired{Timer: prepareTimer(r.gen, "x")})
	require.Empty(t, r.sent(), "a stale expiry refuses nothing")
	r.result(c, InstallResult{Outcome: InstallCompleted})
	xferReply(t, r, "x", wire.OutcomeCompleted, 0, 0)
}
