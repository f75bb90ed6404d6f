package daemon

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/wire"
)

func reports(r *rig) []Report {
	var out []Report
	for _, e := range r.out {
		if v, ok := e.(Report); ok {
			out = append(out, v)
		}
	}
	return out
}

// An executor is bound to the connection it was prepared on: a
// disconnect closes the idle ones at once, and the next connection's
// prepare of the Session creates a new executor.
func TestDisconnectClosesIdleExecutors(t *testing.T) {
	r := newRig(t)
	st := r.ready("p1", "s1")
	r.recv("p1", wire.ExecutionRelease{Handle: st.Handle})
	require.Equal(t, 1, r.m.Snapshot().Capacity.Idle, "idle after release")
	r.step(ConnClosed{Conn: 1})
	cc, op := callOf[CloseExecutor](r)
	require.Equal(t, st.ExecutorID, op.Executor, "the lost connection's idle executor is closed")
	_, armed := r.armed(idleTimer(st.ExecutorID))
	require.Falsef(t, armed, "no idle expiry left behind")
	r.connect()
	r.recv("p2", prepareFor("s1"))
	require.Equal(t, CodePreparationCapacity, oneStatus(r).ErrorCode, "the retired executor is closing: retry later")
	r.result(cc, CloseResult{})
	r.recv("p3", prepareFor("s1"))
	s := oneStatus(r)
	require.Truef(t, s.State == wire.StatePreparing && !s.Reused && s.ExecutorID != st.ExecutorID, "a new executor on the successor: %+v", s)
}

// A replacing connection (ConnOpened while up) retires the old one's
// handles and executors the same way.
func TestReplacementClosesOldConnectionsExecutors(t *testing.T) {
	r := newRig(t)
	st := r.ready("p1", "s1")
	r.connect()
	cc, op := callOf[CloseExecutor](r)
	require.Equal(t, st.ExecutorID, op.Executor, "the replaced connection's reserved executor is closed")
	r.result(cc, CloseResult{})
	r.recv("p2", prepareFor("s1"))
	s := oneStatus(r)
	require.Truef(t, s.State == wire.StatePreparing && !s.Reused && s.ExecutorID != st.ExecutorID, "not reused on the replacement: %+v", s)
}

// A busy executor of a lost connection is closed once its Turn settles,
// even Reusable; until its close is confirmed a prepare of its Session is
// told to retry. The native session its Turn committed is resumed by the
// new executor of the next connection.
func TestBusyExecutorOfLostConnectionClosedAfterSettlement(t *testing.T) {
	r := newRig(t)
	r.started("p1", "s1", "run1")
	r.step(ConnClosed{Conn: 1})
	sc, _ := callOf[AwaitSettlement](r)
	cc, _ := callOf[Cancel](r)
	r.connect()
	r.recv("p9", prepareFor("s1"))
	require.Equal(t, CodePreparationCapacity, oneStatus(r).ErrorCode, "busy executor of the lost connection: retry later")
	r.result(sc, SettleResult{Settled: true, Reusable: true,
		Outcome: wire.Done{Content: "x", Metadata: &wire.DoneMetadata{AgentSessionID: "n1"}}})
	xc, op := callOf[CloseExecutor](r)
	require.Equal(t, "ex-1", op.Executor, "closed once its Turn settled, though reusable")
	require.Empty(t, r.sent(), "nothing of the old Turn on the successor")
	r.result(cc, CancelResult{})
	r.recv("p8", prepareFor("s1"))
	require.Equal(t, CodePreparationCapacity, oneStatus(r).ErrorCode, "still closing: retry later")
	r.result(xc, CloseResult{})
	p := prepareFor("s1")
	p.Configuration.RequireExistingNativeSession = true
	r.recv("p2", p)
	s := oneStatus(r)
	require.Truef(t, s.State == wire.StatePreparing && !s.Reused && s.ExecutorID == "ex-2", "a new executor: %+v", s)
	_, pr := callOf[Prepare](r)
	require.Equal(t, "n1", pr.Configuration.AgentSessionID, "prepared to resume the kept native session")
}

// A settlement of a lost connection's Turn that says Reusable=false still
// closes the executor; a failed close keeps the slot and retries.
func TestUnreusableExecutorOfLostConnectionClosed(t *testing.T) {
	r := newRig(t)
	r.started("p1", "s1", "run1")
	r.step(ConnClosed{Conn: 1})
	sc, _ := callOf[AwaitSettlement](r)
	r.connect()
	r.result(sc, SettleResult{Settled: true, Reusable: false})
	cc, op := callOf[CloseExecutor](r)
	require.Equal(t, "ex-1", op.Executor, "closed after an unreusable settlement")
	r.result(cc, CloseResult{Err: "busy"})
	ex := r.m.Snapshot().Executors
	require.Truef(t, len(ex) == 1 && ex[0].Phase == "closing" && ex[0].CloseFailed, "failed close keeps the slot: %+v", ex)
	r.recv("p2", prepareFor("s1"))
	require.Equal(t, CodeExecutorCleanupUnconfirmed, oneStatus(r).ErrorCode, "uncertain executor not reused")
	r.fire(closeRetryTimer("ex-1"))
	cc, _ = callOf[CloseExecutor](r)
	r.result(cc, CloseResult{})
	require.Empty(t, r.m.Snapshot().Executors, "slot freed by the confirmed close")
}

// A preparation still running when its connection goes is closed once
// it completes; nothing is sent on the successor.
func TestPreparationCompletingAfterDisconnectIsClosed(t *testing.T) {
	r := newRig(t)
	r.recv("p1", prepareFor("s1"))
	pc, _ := callOf[Prepare](r)
	r.step(ConnClosed{Conn: 1})
	r.connect()
	r.result(pc, PrepareResult{})
	cc, op := callOf[CloseExecutor](r)
	require.Equal(t, "ex-1", op.Executor, "closed once prepared")
	require.Empty(t, r.sent(), "no status on the successor")
	require.Equal(t, 0, r.m.Snapshot().Capacity.Idle, "never parked")
	r.result(cc, CloseResult{})
	r.recv("p2", prepareFor("s1"))
	s := oneStatus(r)
	require.Truef(t, s.State == wire.StatePreparing && !s.Reused && s.ExecutorID == "ex-2", "a new executor: %+v", s)
}

// The review's repro: a Turn whose done is lost with its connection
// settles Reusable with a native session ID only the executor knows. Its
// executor retires, but the Session's native identity is kept: the next
// connection's prepare requiring existing history gets a new executor
// prepared to resume it, which serves that and every later Turn of the
// Session on that connection.
func TestLostDoneKeepsNativeSessionAcrossReconnect(t *testing.T) {
	r := newRig(t)
	r.started("p-1", "s-1", "t-1")
	r.step(ConnClosed{Conn: 1})
	sc, _ := callOf[AwaitSettlement](r)
	cc, _ := callOf[Cancel](r)
	r.result(sc, SettleResult{Settled: true, Reusable: true,
		Outcome: wire.Done{Metadata: &wire.DoneMetadata{AgentSessionID: "n-1"}}})
	xc, _ := callOf[CloseExecutor](r)
	r.result(cc, CancelResult{})
	r.result(xc, CloseResult{})
	r.connect()
	p := prepareFor("s-1")
	p.Configuration.RequireExistingNativeSession = true
	for i, run := range []string{"t-2", "t-3"} {
		req := "p-" + run
		r.recv(req, p)
		st := oneStatus(r)
		if i == 0 {
			require.Truef(t, st.State == wire.StatePreparing && st.ExecutorID == "ex-2", "turn %d on a new executor: %+v", i, st)
			pc, pr := callOf[Prepare](r)
			require.Equal(t, "n-1", pr.Configuration.AgentSessionID, "resumes the kept native session")
			r.result(pc, PrepareResult{})
			st = oneStatus(r)
		}
		require.Truef(t, st.State == wire.StateReady && st.ExecutorID == "ex-2", "turn %d ready: %+v", i, st)
		r.recv(req, startFor(st, run))
		c, op := callOf[StartTurn](r)
		r.result(c, StartResult{Turn: true})
		require.Equal(t, wire.StateStarted, oneStatus(r).State, "started")
		r.settle(op.Turn, SettleResult{Settled: true, Reusable: true})
	}
	for _, e := range r.allSent() {
		s, ok := e.Payload.(wire.PreparationStatus)
		require.Truef(t, !ok || s.ErrorCode != CodeHistoryUnavailable, "history_unavailable answered: %+v", s)
	}
}

// A prepare naming another native session than the one kept for the
// Session is refused native_session_conflict, and nothing is prepared.
func TestKeptNativeSessionConflict(t *testing.T) {
	r := newRig(t)
	r.started("p1", "s1", "run1")
	r.step(ConnClosed{Conn: 1})
	sc, _ := callOf[AwaitSettlement](r)
	cc, _ := callOf[Cancel](r)
	r.result(sc, SettleResult{Settled: true, Reusable: true,
		Outcome: wire.Done{Metadata: &wire.DoneMetadata{AgentSessionID: "n1"}}})
	xc, _ := callOf[CloseExecutor](r)
	r.result(cc, CancelResult{})
	r.result(xc, CloseResult{})
	r.connect()
	p := prepareFor("s1")
	p.Configuration.AgentSessionID = "n2"
	r.recv("p2", p)
	require.Equal(t, CodeNativeSessionConflict, oneStatus(r).ErrorCode, "not the kept native session")
	noCall[Prepare](r)
}

// A Session executor held by a live admission or Turn always frees on
// its own: a prepare of the Session meanwhile is preparation_capacity
// (retryable), and a retry after the release or settlement is ready.
func TestPrepareWhileExecutorHeldIsRetryable(t *testing.T) {
	t.Run("live admission", func(t *testing.T) {
		r := newRig(t)
		st := r.ready("p1", "s1")
		r.recv("p2", prepareFor("s1"))
		require.Equal(t, CodePreparationCapacity, oneStatus(r).ErrorCode, "held by a live admission")
		r.recv("p1", wire.ExecutionRelease{Handle: st.Handle})
		require.Equal(t, wire.StateReleased, oneStatus(r).State, "released")
		r.recv("p3", prepareFor("s1"))
		s := oneStatus(r)
		require.Truef(t, s.State == wire.StateReady && s.Reused && s.ExecutorID == st.ExecutorID, "retry ready: %+v", s)
	})
	t.Run("live turn", func(t *testing.T) {
		r := newRig(t)
		turn := r.started("p1", "s1", "run1")
		r.recv("p2", prepareFor("s1"))
		require.Equal(t, CodePreparationCapacity, oneStatus(r).ErrorCode, "held by a live Turn")
		r.settle(turn, SettleResult{Settled: true, Reusable: true})
		r.recv("p3", prepareFor("s1"))
		s := oneStatus(r)
		require.Truef(t, s.State == wire.StateReady && s.Reused, "retry ready: %+v", s)
	})
}

// run_id must be unused on the connection, not merely inactive.
func TestRunIDUsedOncePerConnection(t *testing.T) {
	r := newRig(t)
	turn := r.started("p1", "s1", "run1")
	r.settle(turn, SettleResult{Settled: true, Reusable: true})
	require.Empty(t, r.m.Snapshot().Turns, "run1 finished")
	st := r.ready("p2", "s2")
	r.recv("p2", startFor(st, "run1"))
	require.Equal(t, CodeRunConflict, oneStatus(r).ErrorCode, "a finished run's ID is used")
	noCall[StartTurn](r)
	r.recv("p2", startFor(st, "run2"))
	require.Equal(t, wire.StateStarting, oneStatus(r).State, "a fresh run ID starts")
}

// Report.Complete is false while anything is owned: a Turn, an executor,
// or an outstanding native call.
func TestShutdownReportCompleteOnlyWhenNothingOwned(t *testing.T) {
	r := newRig(t)
	turn := r.started("p1", "s1", "run1")
	r.step(ShutdownRequested{Reason: "stop"})
	rep := reports(r)
	require.Truef(t, len(rep) == 1 && !rep[0].Complete && len(rep[0].Owned) > 0, "owned turn: %+v", rep)
	cc, _ := callOf[Cancel](r)
	sc, _ := callOf[AwaitSettlement](r)
	r.result(sc, SettleResult{Settled: true, Reusable: true})
	cl, _ := callOf[CloseExecutor](r)
	for _, rp := range reports(r) {
		require.Truef(t, !rp.Complete, "executor closing and cancel call outstanding: %+v", rp)
	}
	r.result(cl, CloseResult{})
	for _, rp := range reports(r) {
		require.Truef(t, !rp.Complete, "cancel call still outstanding: %+v", rp)
	}
	r.result(cc, CancelResult{})
	rep = reports(r)
	require.Truef(t, len(rep) == 1 && rep[0].Complete && len(rep[0].Owned) == 0, "complete once nothing is owned: %+v", rep)
	_ = turn
}

// A repeated prompt_steer for an input whose outcome became unknown never
// writes again: neither after a late write result for an input over
// budget, nor after a WriteUnknown result, with no write outstanding.
func TestSteerUnknownInputNeverRewritten(t *testing.T) {
	t.Run("late result after budget", func(t *testing.T) {
		r := newRig(t)
		turn := r.started("p1", "s1", "run1")
		r.recv("run1", steer("1", "a"))
		c, _ := callOf[DurableWrite](r)
		r.fire(writeTimer(turn, "1"))
		u := oneAck(r)
		require.Equal(t, CodeOutcomeUnknown, u.ErrorCode, "over budget")
		// Even a late "definitely not written" does not make a replay safe:
		// Core was told the outcome is unknown.
		r.result(c, WriteResult{Outcome: WriteFailed})
		require.Equal(t, "unknown", r.m.Snapshot().Turns[0].Inputs[0].State, "still unknown")
		r.recv("run1", steer("1", "a"))
		require.Equal(t, u, oneAck(r), "stored receipt")
		noCall[DurableWrite](r)
	})
	t.Run("unknown result", func(t *testing.T) {
		r := newRig(t)
		r.started("p1", "s1", "run1")
		r.recv("run1", steer("1", "a"))
		c, _ := callOf[DurableWrite](r)
		r.result(c, WriteResult{Outcome: WriteUnknown})
		u := oneAck(r)
		require.Equal(t, CodeOutcomeUnknown, u.ErrorCode, "unknown")
		for i := 0; i < 2; i++ {
			r.recv("run1", steer("1", "a"))
			require.Equal(t, u, oneAck(r), "stored receipt")
			noCall[DurableWrite](r)
		}
		r.recv("run1", steer("2", "b"))
		callOf[DurableWrite](r) // another input is written: nothing is outstanding
	})
}

// A preparation whose admission ended holds the Session's slot until it
// completes: a new prepare is told to retry (preparation_capacity), and
// reuses the executor once it is idle.
func TestOrphanedPreparationHoldsSessionForRetry(t *testing.T) {
	r := newRig(t)
	r.recv("p1", prepareFor("s1"))
	st := oneStatus(r)
	pc, _ := callOf[Prepare](r)
	r.recv("p1", wire.ExecutionRelease{Handle: st.Handle})
	require.Equal(t, wire.StateReleased, oneStatus(r).State, "released while preparing")
	r.recv("p2", prepareFor("s1"))
	require.Equal(t, CodePreparationCapacity, oneStatus(r).ErrorCode, "orphaned preparation: retry later")
	r.result(pc, PrepareResult{})
	r.recv("p3", prepareFor("s1"))
	s := oneStatus(r)
	require.Truef(t, s.State == wire.StateReady && s.Reused && s.ExecutorID == st.ExecutorID, "reused once idle: %+v", s)
}
