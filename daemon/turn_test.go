package daemon

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/wire"
)

func TestStartRules(t *testing.T) {
	type tc struct {
		name string
		mut  func(r *rig, st wire.PreparationStatus) (string, wire.ExecutionStart)
		code string
	}
	cases := []tc{
		{"blank run", func(r *rig, st wire.PreparationStatus) (string, wire.ExecutionStart) {
			s := startFor(st, " ")
			return "p1", s
		}, CodeInvalidStart},
		{"empty handle", func(r *rig, st wire.PreparationStatus) (string, wire.ExecutionStart) {
			s := startFor(st, "run1")
			s.Handle = ""
			return "p1", s
		}, CodeInvalidStart},
		{"invalid input", func(r *rig, st wire.PreparationStatus) (string, wire.ExecutionStart) {
			s := startFor(st, "run1")
			s.Input = nil
			return "p1", s
		}, CodeInvalidStart},
		{"unknown handle", func(r *rig, st wire.PreparationStatus) (string, wire.ExecutionStart) {
			s := startFor(st, "run1")
			s.Handle = "h-99"
			return "p1", s
		}, CodeUnknownPreparation},
		{"other request id", func(r *rig, st wire.PreparationStatus) (string, wire.ExecutionStart) {
			return "p2", startFor(st, "run1")
		}, CodeUnknownPreparation},
		{"wrong executor", func(r *rig, st wire.PreparationStatus) (string, wire.ExecutionStart) {
			s := startFor(st, "run1")
			s.ExecutorID = "ex-99"
			return "p1", s
		}, CodeUnknownExecutor},
		{"run already active", func(r *rig, st wire.PreparationStatus) (string, wire.ExecutionStart) {
			r.started("q", "other", "run1")
			return "p1", startFor(st, "run1")
		}, CodeRunConflict},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t)
			st := r.ready("p1", "s1")
			id, s := c.mut(r, st)
			r.recv(id, s)
			got := oneStatus(r)
			require.Equal(t, wire.StateRejected, got.State, "rejected")
			require.Equal(t, c.code, got.ErrorCode, "code")
			require.Equal(t, wire.TypeExecutionStart, got.Operation, "operation")
			require.Equal(t, uint64(0), got.Revision, "no revision")
			noCall[StartTurn](r)
		})
	}
	t.Run("not ready", func(t *testing.T) {
		r := newRig(t)
		r.recv("p1", prepareFor("s1"))
		st := oneStatus(r)
		r.recv("p1", startFor(st, "run1"))
		require.Equal(t, CodePreparationNotReady, oneStatus(r).ErrorCode, "preparing")
	})
}

func TestStartTransfersOnce(t *testing.T) {
	r := newRig(t)
	st := r.ready("p1", "s1")
	r.recv("p1", startFor(st, "run1"))
	starting := oneStatus(r)
	require.Equal(t, wire.StateStarting, starting.State, "starting")
	require.Equal(t, "run1", starting.RunID, "run id from starting on")
	require.Equal(t, uint64(3), starting.Revision, "revision")
	c, op := callOf[StartTurn](r)
	require.Equal(t, "run1", op.Run, "native start run")
	require.Equal(t, st.ExecutorID, op.Executor, "native start executor")
	r.recv("p1", startFor(st, "run1"))
	require.Equal(t, starting, oneStatus(r), "identical start republishes")
	noCall[StartTurn](r)
	r.recv("p1", startFor(st, "run2"))
	require.Equal(t, CodeStartConflict, oneStatus(r).ErrorCode, "different start conflicts")
	r.result(c, StartResult{Turn: true})
	started := oneStatus(r)
	require.Equal(t, wire.StateStarted, started.State, "started confirms the transfer")
	require.Equal(t, uint64(4), started.Revision, "revision")
	r.recv("p1", startFor(st, "run1"))
	require.Equal(t, started, oneStatus(r), "repeat after transfer republishes")
	noCall[StartTurn](r)
	require.Empty(t, payloadsOf[wire.Done](r.allSent()), "started is not completion")
}

func TestStartWithoutTurnClosesExecutorFirst(t *testing.T) {
	for _, closeErr := range []string{"", "close failed"} {
		r := newRig(t)
		st := r.ready("p1", "s1")
		r.recv("p1", startFor(st, "run1"))
		c, _ := callOf[StartTurn](r)
		r.result(c, StartResult{Turn: false, Err: "no executor"})
		require.Empty(t, r.sent(), "nothing published before the close settles")
		cc, op := callOf[CloseExecutor](r)
		require.Equal(t, st.ExecutorID, op.Executor, "executor closed")
		r.result(cc, CloseResult{Err: closeErr})
		sts := statuses(r)
		require.Truef(t, len(sts) == 2, "failed then rejected: %s", describeAll(r.out))
		want := CodeExecutorUnavailable
		if closeErr != "" {
			want = CodeExecutorCleanupUnconfirmed
		}
		require.Equal(t, wire.StateFailed, sts[0].State, "failed")
		require.Equal(t, want, sts[0].ErrorCode, "failed code")
		require.Equal(t, wire.StateRejected, sts[1].State, "rejected")
		require.Equal(t, wire.TypeExecutionStart, sts[1].Operation, "operation")
		require.Equal(t, st.Handle, sts[1].Handle, "rejection names the handle")
		require.Equal(t, st.ExecutorID, sts[1].ExecutorID, "rejection names the executor")
		require.Equal(t, want, sts[1].ErrorCode, "rejected code")
		if closeErr != "" {
			ex := r.m.Snapshot().Executors
			require.Truef(t, len(ex) == 1 && ex[0].CloseFailed, "failed close keeps the target: %+v", ex)
		}
	}
}

func TestStartTurnWithErrorIsTracked(t *testing.T) {
	r := newRig(t)
	st := r.ready("p1", "s1")
	r.recv("p1", startFor(st, "run1"))
	c, _ := callOf[StartTurn](r)
	r.result(c, StartResult{Turn: true, Err: "input may be partial"})
	require.Equal(t, "preparation_status,error", frameTypes(r.sent()), "started then the error")
	sc, _ := callOf[AwaitSettlement](r)
	r.result(sc, SettleResult{Settled: true, Reusable: true})
	require.Equal(t, "done", frameTypes(r.sent()), "error followed by done")
}

func TestTurnEventsInOrderWithRunID(t *testing.T) {
	r := newRig(t)
	st := r.ready("p1", "s1")
	r.recv("p1", startFor(st, "run1"))
	c, op := callOf[StartTurn](r)
	// Output races the start result: it is held until started.
	r.step(NativeTurnEvent{Turn: op.Turn, Event: wire.Delta{Delta: "a", Sequence: 1}})
	r.step(NativeTurnEvent{Turn: op.Turn, Event: wire.Thinking{Text: "t"}})
	require.Empty(t, r.sent(), "held before started")
	r.result(c, StartResult{Turn: true})
	frames := r.sent()
	require.Equal(t, "preparation_status,delta,thinking", frameTypes(frames), "started, then output in order")
	for _, f := range frames[1:] {
		require.Equal(t, "run1", f.ID, "run output carries the Run ID")
	}
	r.step(NativeTurnEvent{Turn: op.Turn, Event: wire.Delta{Delta: "b", Sequence: 2}})
	require.Equal(t, "run1", r.sent()[0].ID, "later output")
}

func TestOutputBoundBeforeStarted(t *testing.T) {
	r := newRig(t)
	st := r.ready("p1", "s1")
	r.recv("p1", startFor(st, "run1"))
	c, op := callOf[StartTurn](r)
	for i := 0; i < 70; i++ {
		r.step(NativeTurnEvent{Turn: op.Turn, Event: wire.Delta{Delta: "x", Sequence: uint64(i)}})
	}
	require.Equal(t, 6, r.m.Snapshot().Turns[0].Overflow, "overflow counted")
	r.result(c, StartResult{Turn: true})
	require.Len(t, payloadsOf[wire.Delta](r.sent()), 64, "bounded 64-frame output")
}

func TestErrorIsFollowedByDone(t *testing.T) {
	r := newRig(t)
	turn := r.started("p1", "s1", "run1")
	r.step(NativeTurnEvent{Turn: turn, Event: wire.RunError{Error: "engine", Code: "server_error"}})
	require.Equal(t, "error", frameTypes(r.sent()), "error forwarded")
	r.settle(turn, SettleResult{Settled: true, Reusable: true})
	require.Equal(t, "done", frameTypes(r.sent()), "done closes the stream after error")
}

func TestUsageSnapshotsReplace(t *testing.T) {
	r := newRig(t)
	turn := r.started("p1", "s1", "run1")
	for _, n := range []int64{10, 25} {
		r.step(NativeTurnEvent{Turn: turn, Event: wire.UsageUpdate{Usage: wire.Usage{Tokens: &wire.TokenUsage{TotalTokens: n}}}})
	}
	r.settle(turn, SettleResult{Settled: true, Reusable: true})
	done := payloadsOf[wire.Done](r.sent())
	require.Truef(t, len(done) == 1 && done[0].Usage != nil && done[0].Usage.Tokens != nil, "done with usage")
	require.Equal(t, int64(25), done[0].Usage.Tokens.TotalTokens, "last snapshot, never a sum")
}

func TestDoneWaitsForSettlement(t *testing.T) {
	r := newRig(t)
	turn := r.started("p1", "s1", "run1")
	r.step(NativeTurnEvent{Turn: turn, Event: wire.Done{Content: "all"}})
	require.Empty(t, r.sent(), "no done before settlement")
	c, _ := callOf[AwaitSettlement](r)
	r.result(c, SettleResult{Settled: false, Err: "not yet"})
	require.Empty(t, r.sent(), "unconfirmed settlement publishes nothing")
	noCall[AwaitSettlement](r)
	r.fire(settleRetryTimer(turn))
	c, _ = callOf[AwaitSettlement](r)
	r.result(c, SettleResult{Settled: true, Reusable: true})
	done := payloadsOf[wire.Done](r.sent())
	require.Truef(t, len(done) == 1 && done[0].Content == "all", "native done published after settlement: %s", describeAll(r.out))
	r.step(NativeTurnEvent{Turn: turn, Event: wire.Delta{Delta: "late"}})
	require.Empty(t, r.out, "late native events are dropped")
}

func TestDoneWaitsForConfirmedClose(t *testing.T) {
	r := newRig(t)
	turn := r.started("p1", "s1", "run1")
	r.settle(turn, SettleResult{Settled: true, Reusable: false, Reason: "native cancel retires"})
	c, op := callOf[CloseExecutor](r)
	require.Empty(t, r.sent(), "no done before the close")
	r.result(c, CloseResult{Err: "still running"})
	require.Empty(t, r.sent(), "no done after a failed close")
	ex := r.m.Snapshot().Executors
	require.Truef(t, len(ex) == 1 && ex[0].CloseFailed, "target kept")
	r.fire(closeRetryTimer(op.Executor))
	c, _ = callOf[CloseExecutor](r)
	r.advance(time.Second)
	r.result(c, CloseResult{Err: "again"})
	at, _ := r.armed(closeRetryTimer(op.Executor))
	require.Truef(t, at.Sub(r.now) == 2*time.Second, "backoff doubles: %v", at.Sub(r.now))
	r.fire(closeRetryTimer(op.Executor))
	c, _ = callOf[CloseExecutor](r)
	r.result(c, CloseResult{})
	require.Equal(t, "done", frameTypes(r.sent()), "done after the confirmed close")
	require.Empty(t, r.m.Owned(), "nothing owned")
}

func TestContinuityCommittedBeforeDone(t *testing.T) {
	r := newRig(t)
	turn := r.started("p1", "s1", "run1")
	r.settle(turn, SettleResult{Settled: true, Reusable: true,
		Outcome: wire.Done{Metadata: &wire.DoneMetadata{AgentSessionID: "native-1"}}})
	idleAt, doneAt := -1, -1
	for i, e := range r.out {
		switch v := e.(type) {
		case SetTimer:
			if strings.HasPrefix(string(v.Timer), "idle/") {
				idleAt = i
			}
		case Send:
			if _, ok := v.Frame.Payload.(wire.Done); ok {
				doneAt = i
			}
		}
	}
	require.Truef(t, idleAt >= 0 && doneAt > idleAt, "executor released before done: %s", describeAll(r.out))
	ex := r.m.Snapshot().Executors[0]
	require.Equal(t, "native-1", ex.NativeSession, "continuity committed")
	require.Equal(t, 0, r.m.Snapshot().Capacity.Active, "admission released")
}

func TestDescribeIsValueOnly(t *testing.T) {
	r := newRig(t)
	turn := r.started("p1", "s1", "run1")
	text := "x"
	r.step(NativeTurnEvent{Turn: turn, Event: wire.OutputMessage{ID: "m", Status: "completed", Text: &text}})
	r.step(NativeTurnEvent{Turn: turn, Event: wire.UsageUpdate{Usage: wire.Usage{Tokens: &wire.TokenUsage{TotalTokens: 3}}}})
	r.settle(turn, SettleResult{Settled: true, Reusable: true})
	for _, e := range r.all {
		d := e.Describe()
		require.Truef(t, !strings.Contains(d, "0x") && !strings.Contains(d, "\n"), "describe leaks pointers or lines: %s", d)
	}
}

func TestReusableSettlementParksIdleThenCloses(t *testing.T) {
	r := newRig(t)
	turn := r.started("p1", "s1", "run1")
	r.settle(turn, SettleResult{Settled: true, Reusable: true})
	noCall[CloseExecutor](r)
	ex := r.m.Snapshot().Executors[0]
	require.Equal(t, "idle", ex.Phase, "reusable executor parked")
	at, ok := r.armed(idleTimer(ex.ID))
	require.Truef(t, ok && at.Equal(r.now.Add(10*time.Minute)), "idle expiry armed: %v", at)
	r.fire(idleTimer(ex.ID))
	c, op := callOf[CloseExecutor](r)
	require.Equal(t, ex.ID, op.Executor, "idle expiry closes")
	require.Equal(t, 1, r.m.Snapshot().Capacity.Executors, "closing still counts")
	r.result(c, CloseResult{})
	require.Empty(t, r.m.Owned(), "nothing owned after the confirmed close")
}
