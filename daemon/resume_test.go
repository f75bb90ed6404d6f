package daemon

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/wire"
)

// An idle executor prepared as a new root holds no native identity: a
// prepare that names agent_session_id must not reuse it (a Turn on it would
// start a new root instead of resuming). The daemon closes it and answers
// the retryable preparation_capacity; once the close is confirmed, the
// retry prepares a new executor that resumes the named session.
func TestResumeNeverRunsOnAnExecutorWithoutNativeSession(t *testing.T) {
	r := newRig(t)
	st := r.ready("p1", "s1") // a new root, never started
	r.recv("p1", wire.ExecutionRelease{Handle: st.Handle})
	noCall[CloseExecutor](r)

	resume := prepareFor("s1")
	resume.Configuration.AgentSessionID = "n1"
	r.recv("p2", resume)
	got := oneStatus(r)
	require.Equal(t, wire.StateRejected, got.State, "resume on a rootless executor")
	require.Equal(t, CodePreparationCapacity, got.ErrorCode, "retryable refusal")
	c, op := callOf[CloseExecutor](r)
	require.Equal(t, st.ExecutorID, op.Executor, "the unusable executor is closed")

	// While it closes, the retry is still told to wait.
	r.recv("p3", resume)
	require.Equal(t, CodePreparationCapacity, oneStatus(r).ErrorCode, "closing executor occupies the Session")
	r.result(c, CloseResult{})
	r.recv("p4", resume)
	require.Equal(t, wire.StatePreparing, oneStatus(r).State, "a new executor is prepared")
	_, prep := callOf[Prepare](r)
	require.Truef(t, prep.Executor != st.ExecutorID, "new executor, got %s again", prep.Executor)
	require.Equal(t, "n1", prep.Configuration.AgentSessionID, "it resumes the named native session")
}

// An executor prepared to resume a native session holds that identity:
// a later prepare naming the same session reuses it without a close.
func TestExecutorPreparedToResumeIsReusedForTheSameSession(t *testing.T) {
	r := newRig(t)
	resume := prepareFor("s1")
	resume.Configuration.AgentSessionID = "n1"
	r.recv("p1", resume)
	c, _ := callOf[Prepare](r)
	r.result(c, PrepareResult{})
	st := oneStatus(r)
	require.Equal(t, wire.StateReady, st.State, "prepared")
	r.recv("p1", wire.ExecutionRelease{Handle: st.Handle})

	r.recv("p2", resume)
	got := oneStatus(r)
	require.Equal(t, wire.StateReady, got.State, "reused")
	require.Truef(t, got.Reused, "reused flag")
	noCall[CloseExecutor](r)

	other := prepareFor("s1")
	other.Configuration.AgentSessionID = "n2"
	r.recv("p2", wire.ExecutionRelease{Handle: got.Handle})
	r.recv("p3", other)
	require.Equal(t, CodeNativeSessionConflict, oneStatus(r).ErrorCode, "another native session")
}
