package daemon

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/wire"
)

// TestWorkspaceReadRefusals: each refusal path of workspace_read answers
// its code on the request's identity and starts no native read.
func TestWorkspaceReadRefusals(t *testing.T) {
	r := newWorkspaceRig(t)
	st, _ := r.openReader("ro-1")
	cases := []struct {
		name string
		req  wire.WorkspaceRead
		code string
	}{
		{"unknown handle", byteRead("h-99", "a", 1), wire.ReadResourceUnavail},
		{"unknown run", wire.WorkspaceRead{RunID: "run-x", EnvironmentID: wsEnv, Path: "a", MaxBytes: 1}, wire.ReadResourceUnavail},
		{"another environment", wire.WorkspaceRead{Handle: st.Handle, EnvironmentID: "other", Path: "a", MaxBytes: 1}, wire.ReadInvalidRequest},
		{"both limits", wire.WorkspaceRead{Handle: st.Handle, EnvironmentID: wsEnv, Path: "a", MaxBytes: 1, MaxEntries: 2}, wire.ReadInvalidRequest},
		{"handle and run", wire.WorkspaceRead{Handle: st.Handle, RunID: "r", EnvironmentID: wsEnv, MaxBytes: 1}, wire.ReadInvalidRequest},
		{"over 1 MiB", byteRead(st.Handle, "a", wire.ReadResultBytesMax+1), wire.ReadInvalidRequest},
	}
	for i, c := range cases {
		id := "bad-" + string(rune('a'+i))
		r.recv(id, c.req)
		res := oneReadResult(r, id)
		require.Equalf(t, wire.OutcomeRejected, res.Outcome, "%s: got %+v, want rejected %s", c.name, res, c.code)
		require.Equalf(t, c.code, res.ErrorCode, "%s: got %+v, want rejected %s", c.name, res, c.code)
		noCall[ReadWorkspace](r)
	}
}

// TestWorkspaceReadCapacityAndDuplicates: at most ReadsInFlightMax reads
// per connection; a duplicate pending ID starts nothing.
func TestWorkspaceReadCapacityAndDuplicates(t *testing.T) {
	r := newWorkspaceRig(t)
	st, _ := r.openReader("ro-1")
	var calls []CallID
	for i := range DefaultReadsInFlightMax {
		r.recv("op-"+string(rune('a'+i)), byteRead(st.Handle, "f", 8))
		c, _ := callOf[ReadWorkspace](r)
		calls = append(calls, c)
	}
	r.recv("op-a", byteRead(st.Handle, "f", 8))
	require.Truef(t, len(r.out) == 0, "a duplicate pending ID did something: %s", describeAll(r.out))
	r.recv("op-z", byteRead(st.Handle, "f", 8))
	require.Equal(t, wire.ReadCapacity, oneReadResult(r, "op-z").ErrorCode, "fifth read")
	r.result(calls[0], fileResult("x"))
	oneReadResult(r, "op-a")
	r.recv("op-z", byteRead(st.Handle, "f", 8))
	callOf[ReadWorkspace](r)
}

// TestWorkspaceReadUnknownStopsOwner: an unknown read, or a result the
// request does not allow, is answered unknown read_unconfirmed and stops
// later reads of that owner.
func TestWorkspaceReadUnknownStopsOwner(t *testing.T) {
	for _, bad := range []ReadWorkspaceResult{
		{Result: wire.WorkspaceReadResult{Outcome: wire.OutcomeUnknown, ErrorCode: wire.ReadUnconfirmed}},
		fileResult("more than four"),
		{Result: wire.WorkspaceReadResult{Outcome: wire.OutcomeCompleted, Data: []byte("ab")}}, // no close ack
	} {
		r := newWorkspaceRig(t)
		st, _ := r.openReader("ro-1")
		r.recv("op-1", byteRead(st.Handle, "f", 4))
		c, _ := callOf[ReadWorkspace](r)
		r.result(c, bad)
		res := oneReadResult(r, "op-1")
		require.Equal(t, wire.OutcomeUnknown, res.Outcome, "outcome")
		require.Equal(t, wire.ReadUnconfirmed, res.ErrorCode, "code")
		require.Truef(t, len(res.Data) == 0, "unknown read carried data")
		r.recv("op-2", byteRead(st.Handle, "f", 4))
		require.Equal(t, wire.ReadResourceUnavail, oneReadResult(r, "op-2").ErrorCode, "read after an ambiguous one")
	}
}

// TestWorkspaceReadReleaseWaitsForRead: a release while a read is
// dispatched closes the reader only after the read answered; reads are
// refused once the release was asked.
func TestWorkspaceReadReleaseWaitsForRead(t *testing.T) {
	r := newWorkspaceRig(t)
	st, _ := r.openReader("ro-1")
	r.recv("op-1", wire.WorkspaceRead{Handle: st.Handle, EnvironmentID: wsEnv, Operation: wire.ReadOperationDirectory, MaxEntries: 8})
	c, _ := callOf[ReadWorkspace](r)
	r.recv("ro-1", wire.ExecutionRelease{Handle: st.Handle})
	noCall[CloseWorkspace](r)
	r.recv("op-2", byteRead(st.Handle, "f", 4))
	require.Equal(t, wire.ReadResourceUnavail, oneReadResult(r, "op-2").ErrorCode, "read after release")
	size := int64(3)
	r.result(c, ReadWorkspaceResult{Result: wire.WorkspaceReadResult{Outcome: wire.OutcomeCompleted, CloseAcknowledged: true,
		Directory: &wire.WorkspaceDirectoryResult{Entries: []wire.DirectoryEntry{{Name: "f", Kind: wire.EntryFile, SizeBytes: &size}}}}})
	require.Len(t, oneReadResult(r, "op-1").Directory.Entries, 1, "listing entries")
	cc, _ := callOf[CloseWorkspace](r)
	r.result(cc, CloseResult{})
	require.Equal(t, wire.StateReleased, oneStatus(r).State, "released after read and close")
}

// TestWorkspaceReadTargetsRun: a read by Run ID, or by the handle that
// was transferred to it, runs against the Turn; a kind that does not
// declare workspace support refuses with read_unsupported.
func TestWorkspaceReadTargetsRun(t *testing.T) {
	r := newWorkspaceRig(t)
	r.recv("p-1", localPrepare("s-1"))
	c, _ := callOf[Prepare](r)
	r.result(c, PrepareResult{})
	st := oneStatus(r)
	r.recv("op-0", byteRead(st.Handle, "f", 4))
	_, op := callOf[ReadWorkspace](r)
	require.Equal(t, st.ExecutorID, op.Target.Executor, "ready handle targets its executor")
	r.recv("p-1", startFor(st, "run-1"))
	sc, start := callOf[StartTurn](r)
	r.result(sc, StartResult{Turn: true})
	r.recv("op-1", wire.WorkspaceRead{RunID: "run-1", EnvironmentID: wsEnv, Path: "f", MaxBytes: 4})
	_, op = callOf[ReadWorkspace](r)
	require.Equal(t, start.Turn, op.Target.Turn, "run read target")
	r.recv("op-2", byteRead(st.Handle, "f", 4))
	_, op = callOf[ReadWorkspace](r)
	require.Equal(t, start.Turn, op.Target.Turn, "transferred handle target")

	cfg := workspaceConfig()
	cfg.Kinds[0].Capabilities.WorkspaceReadPreparation = wire.CapabilityUnsupported
	r = newRigWith(t, cfg)
	r.recv("p-1", localPrepare("s-1"))
	c, _ = callOf[Prepare](r)
	r.result(c, PrepareResult{})
	st = oneStatus(r)
	r.recv("op-1", byteRead(st.Handle, "f", 4))
	require.Equal(t, wire.ReadUnsupported, oneReadResult(r, "op-1").ErrorCode, "kind without workspace support")
}

// TestWorkspaceReadAnswerDroppedAfterReconnect: a read's answer is never
// sent on a later connection.
func TestWorkspaceReadAnswerDroppedAfterReconnect(t *testing.T) {
	r := newWorkspaceRig(t)
	st, _ := r.openReader("ro-1")
	r.recv("op-1", byteRead(st.Handle, "f", 4))
	c, _ := callOf[ReadWorkspace](r)
	r.connect()
	r.result(c, fileResult("ab"))
	require.Truef(t, len(readResults(r)) == 0, "an old connection's read was answered on the new one")
}
