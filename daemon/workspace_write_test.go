package daemon

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/wire"
)

// TestWorkspaceWriteInstallsCheckedBody: begin, acknowledged chunks and
// commit hand the complete body to the installer once; its receipt is the
// commit's answer.
func TestWorkspaceWriteInstallsCheckedBody(t *testing.T) {
	r := newWorkspaceRig(t)
	body := bytes.Repeat([]byte("z"), wire.ChunkBytesMax+10)
	r.recv("w-1", writeBegin("dir/f.txt", body))
	require.Equal(t, wire.OutcomeReady, oneWriteResult(r).Outcome, "begin")
	r.recv("w-1", writeChunk(0, body[:wire.ChunkBytesMax]))
	got := oneWriteResult(r)
	require.Equal(t, wire.OutcomeReceived, got.Outcome, "chunk 1")
	require.Equal(t, int64(wire.ChunkBytesMax), got.Offset, "chunk 1 end offset")
	r.recv("w-1", writeChunk(wire.ChunkBytesMax, body[wire.ChunkBytesMax:]))
	require.Equal(t, int64(len(body)), oneWriteResult(r).Offset, "chunk 2 end offset")
	r.recv("p-1", localPrepare(wsSession))
	require.Equal(t, CodeResourceUnavailable, oneStatus(r).ErrorCode, "prepare while the write is received")
	r.recv("w-1", writeCommit)
	c, op := callOf[WriteWorkspace](r)
	require.Truef(t, bytes.Equal(op.Data, body), "installer got %d bytes, want %d", len(op.Data), len(body))
	require.Equal(t, "dir/f.txt", op.Path, "path")
	require.Truef(t, len(r.sent()) == 0, "commit answered before the installer")
	r.recv("p-2", localPrepare(wsSession))
	require.Equal(t, CodeResourceUnavailable, oneStatus(r).ErrorCode, "prepare while the write is applied")
	r.result(c, WriteWorkspaceResult{Outcome: wire.OutcomeCompleted})
	done := oneWriteResult(r)
	require.Equal(t, wire.OutcomeCompleted, done.Outcome, "commit")
	require.Equal(t, int64(len(body)), done.SizeBytes, "size")
	if err := done.ValidateAgainst(wire.OutcomeCompleted, 0, int64(len(body))); err != nil {
		require.Fail(t, fmt.Sprintf("receipt invalid: %v", err))
	}
	r.recv("p-3", localPrepare(wsSession))
	require.Equal(t, wire.StatePreparing, oneStatus(r).State, "prepare after the write settled")
}

// TestWorkspaceWriteRefusals: malformed, incomplete, mismatched or
// concurrent transfers never reach the installer.
func TestWorkspaceWriteRefusals(t *testing.T) {
	body := []byte("hello")
	cases := []struct {
		name  string
		steps []wire.WorkspaceWrite
		code  string
	}{
		{"digest mismatch", []wire.WorkspaceWrite{
			{Step: wire.StepBegin, EnvironmentID: wsEnv, SessionID: wsSession, Path: "f", SizeBytes: 5, SHA256: digestOf([]byte("other"))},
			writeChunk(0, body), writeCommit}, wire.WriteInvalidRequest},
		{"incomplete", []wire.WorkspaceWrite{writeBegin("f", body), writeChunk(0, body[:2]), writeCommit}, wire.WriteInvalidRequest},
		{"out of order", []wire.WorkspaceWrite{writeBegin("f", body), writeChunk(2, body[:2])}, wire.WriteInvalidRequest},
		{"beyond size", []wire.WorkspaceWrite{writeBegin("f", body), writeChunk(0, append(body, 'x'))}, wire.WriteInvalidRequest},
		{"chunk without begin", []wire.WorkspaceWrite{writeChunk(0, body)}, wire.WriteInvalidRequest},
		{"escaping path", []wire.WorkspaceWrite{writeBegin("../f", body)}, wire.WriteInvalidRequest},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newWorkspaceRig(t)
			var last wire.WorkspaceWriteResult
			for _, s := range c.steps {
				r.recv("w-1", s)
				noCall[WriteWorkspace](r)
				last = oneWriteResult(r)
			}
			require.Equal(t, wire.OutcomeRejected, last.Outcome, "outcome")
			require.Equal(t, c.code, last.ErrorCode, "code")
			r.recv("w-1", writeCommit)
			noCall[WriteWorkspace](r)
			require.Equal(t, wire.WriteInvalidRequest, oneWriteResult(r).ErrorCode, "commit after the refusal")
		})
	}
}

// TestWorkspaceWriteExclusion: one write per connection; no write begins
// while the Session executes; without a local owner writes are
// unsupported.
func TestWorkspaceWriteExclusion(t *testing.T) {
	r := newWorkspaceRig(t)
	r.recv("w-1", writeBegin("f", []byte("a")))
	oneWriteResult(r)
	r.recv("w-2", writeBegin("g", []byte("b")))
	require.Equal(t, wire.WriteCapacity, oneWriteResult(r).ErrorCode, "second write on the connection")

	r = newWorkspaceRig(t)
	r.recv("p-1", localPrepare(wsSession))
	r.recv("w-1", writeBegin("f", []byte("a")))
	require.Equal(t, wire.WriteResourceUnavail, oneWriteResult(r).ErrorCode, "write while the Session is prepared")

	r = newRig(t)
	r.recv("w-1", writeBegin("f", []byte("a")))
	require.Equal(t, wire.WriteUnsupported, oneWriteResult(r).ErrorCode, "no local owner")
}

// TestWorkspaceWriteUnknownAndExpiry: an unknown installer answer is
// reported unknown write_unconfirmed; a transfer that does not commit in
// time is dropped and never installed.
func TestWorkspaceWriteUnknownAndExpiry(t *testing.T) {
	r := newWorkspaceRig(t)
	r.recv("w-1", writeBegin("f", nil))
	r.recv("w-1", writeCommit)
	c, _ := callOf[WriteWorkspace](r)
	r.result(c, WriteWorkspaceResult{Outcome: wire.OutcomeUnknown})
	got := oneWriteResult(r)
	require.Equal(t, wire.OutcomeUnknown, got.Outcome, "outcome")
	require.Equal(t, wire.WriteUnconfirmed, got.ErrorCode, "code")

	r.recv("w-2", writeBegin("f", []byte("abc")))
	r.recv("w-2", writeChunk(0, []byte("abc")))
	r.fire(transferTimer(r.gen, "w-2"))
	require.Equal(t, wire.WriteInvalidRequest, oneWriteResult(r).ErrorCode, "expired transfer")
	r.recv("w-2", writeCommit)
	noCall[WriteWorkspace](r)

	r.recv("w-3", writeBegin("f", []byte("abc")))
	r.step(ConnClosed{Conn: r.gen})
	r.connect()
	r.recv("w-3", writeCommit)
	noCall[WriteWorkspace](r)
}

// TestWorkspaceWriteFrameWhileApplyingIsNotAnswered: a repeated commit (or
// any frame of the transfer) while the installer runs gets no answer of its
// own, so the installer's receipt is the only answer the ID ever gets (a
// "rejected" first would tell Core nothing was installed; seed 700550).
func TestWorkspaceWriteFrameWhileApplyingIsNotAnswered(t *testing.T) {
	r := newWorkspaceRig(t)
	body := []byte("hello")
	r.recv("w-1", writeBegin("f", body))
	oneWriteResult(r)
	r.recv("w-1", writeChunk(0, body))
	oneWriteResult(r)
	r.recv("w-1", writeCommit)
	c, _ := callOf[WriteWorkspace](r)
	for _, s := range []wire.WorkspaceWrite{writeCommit, writeChunk(0, body), writeBegin("f", body)} {
		r.recv("w-1", s)
		require.Truef(t, len(r.sent()) == 0, "%s while applying was answered", s.Step)
		noCall[WriteWorkspace](r)
	}
	r.result(c, WriteWorkspaceResult{Outcome: wire.OutcomeCompleted})
	require.Equal(t, wire.OutcomeCompleted, oneWriteResult(r).Outcome, "the installer's receipt")
}

// TestWorkspaceWriteBeginRefusedWhileQuiesced: a quiesced Runtime takes no
// new write (wire reference §3.12), on the connection after the quiesce
// too; the refusal starts no transfer, and after the resume the same
// begin is answered ready.
func TestWorkspaceWriteBeginRefusedWhileQuiesced(t *testing.T) {
	r := newWorkspaceRig(t)
	r.recv("q-1", quiesce(wsEnv, "s1"))
	rep, closed := fenceReply[wire.EnvironmentQuiesced](t, r, "q-1")
	require.True(t, rep.Accepted && closed, "quiesce accepted")
	r.step(ConnClosed{Conn: r.gen})
	r.connect()
	body := []byte("fenced")
	r.recv("w-1", writeBegin("f.txt", body))
	got := oneWriteResult(r)
	require.Equal(t, wire.OutcomeRejected, got.Outcome, "begin while quiesced")
	require.Equal(t, wire.WriteResourceUnavail, got.ErrorCode, "code")
	require.NoErrorf(t, got.Validate(), "refusal is a valid receipt")
	r.recv("w-1", writeChunk(0, body))
	require.Equal(t, wire.WriteInvalidRequest, oneWriteResult(r).ErrorCode, "no transfer was started")
	require.Empty(t, r.calls(), "no native call")

	r.recv("r-1", resume(wsEnv, "s1", false))
	res, _ := fenceReply[wire.EnvironmentResumed](t, r, "r-1")
	require.True(t, res.Accepted, "resumed")
	r.recv("w-1", writeBegin("f.txt", body))
	require.Equal(t, wire.OutcomeReady, oneWriteResult(r).Outcome, "begin after the resume")
}
