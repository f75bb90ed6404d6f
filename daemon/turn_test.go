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
			eq(t, got.State, wire.StateRejected, "rejected")
			eq(t, got.ErrorCode, c.code, "code")
			eq(t, got.Operation, wire.TypeExecutionStart, "operation")
			eq(t, got.Revision, uint64(0), "no revision")
			noCall[StartTurn](r)
		})
	}
	t.Run("not ready", func(t *testing.T) {
		r := newRig(t)
		r.recv("p1", prepareFor("s1"))
		st := oneStatus(r)
		r.recv("p1", startFor(st, "run1"))
		eq(t, oneStatus(r).ErrorCode, CodePreparationNotReady, "preparing")
	})
}

func TestStartTransfersOnce(t *testing.T) {
	r := newRig(t)
	st := r.ready("p1", "s1")
	r.recv("p1", startFor(st, "run1"))
	starting := oneStatus(r)
	eq(t, starting.State, wire.StateStarting, "starting")
	eq(t, starting.RunID, "run1", "run id from starting on")
	eq(t, starting.Revision, uint64(3), "revision")
	c, op := callOf[StartTurn](r)
	eq(t, op.Run, "run1", "native start run")
	eq(t, op.Executor, st.ExecutorID, "native start executor")
	r.recv("p1", startFor(st, "run1"))
	eq(t, oneStatus(r), starting, "identical start republishes")
	noCall[StartTurn](r)
	r.recv("p1", startFor(st, "run2"))
	eq(t, oneStatus(r).ErrorCode, CodeStartConflict, "different start conflicts")
	r.result(c, StartResult{Turn: true})
	started := oneStatus(r)
	eq(t, started.State, wire.StateStarted, "started confirms the transfer")
	eq(t, started.Revision, uint64(4), "revision")
	r.recv("p1", startFor(st, "run1"))
	eq(t, oneStatus(r), started, "repeat after transfer republishes")
	noCall[StartTurn](r)
	eq(t, len(payloadsOf[wire.Done](r.allSent())), 0, "started is not completion")
}

func TestStartWithoutTurnClosesExecutorFirst(t *testing.T) {
	for _, closeErr := range []string{"", "close failed"} {
		r := newRig(t)
		st := r.ready("p1", "s1")
		r.recv("p1", startFor(st, "run1"))
		c, _ := callOf[StartTurn](r)
		r.result(c, StartResult{Turn: false, Err: "no executor"})
		eq(t, len(r.sent()), 0, "nothing published before the close settles")
		cc, op := callOf[CloseExecutor](r)
		eq(t, op.Executor, st.ExecutorID, "executor closed")
		r.result(cc, CloseResult{Err: closeErr})
		sts := statuses(r)
		require.Truef(t, len(sts) == 2, "failed then rejected: %s", describeAll(r.out))
		want := CodeExecutorUnavailable
		if closeErr != "" {
			want = CodeExecutorCleanupUnconfirmed
		}
		eq(t, sts[0].State, wire.StateFailed, "failed")
		eq(t, sts[0].ErrorCode, want, "failed code")
		eq(t, sts[1].State, wire.StateRejected, "rejected")
		eq(t, sts[1].Operation, wire.TypeExecutionStart, "operation")
		eq(t, sts[1].Handle, st.Handle, "rejection names the handle")
		eq(t, sts[1].ExecutorID, st.ExecutorID, "rejection names the executor")
		eq(t, sts[1].ErrorCode, want, "rejected code")
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
	eq(t, frameTypes(r.sent()), "preparation_status,error", "started then the error")
	sc, _ := callOf[AwaitSettlement](r)
	r.result(sc, SettleResult{Settled: true, Reusable: true})
	eq(t, frameTypes(r.sent()), "done", "error followed by done")
}

func TestTurnEventsInOrderWithRunID(t *testing.T) {
	r := newRig(t)
	st := r.ready("p1", "s1")
	r.recv("p1", startFor(st, "run1"))
	c, op := callOf[StartTurn](r)
	// Output races the start result: it is held until started.
	r.step(NativeTurnEvent{Turn: op.Turn, Event: wire.Delta{Delta: "a", Sequence: 1}})
	r.step(NativeTurnEvent{Turn: op.Turn, Event: wire.Thinking{Text: "t"}})
	eq(t, len(r.sent()), 0, "held before started")
	r.result(c, StartResult{Turn: true})
	frames := r.sent()
	eq(t, frameTypes(frames), "preparation_status,delta,thinking", "started, then output in order")
	for _, f := range frames[1:] {
		eq(t, f.ID, "run1", "run output carries the Run ID")
	}
	r.step(NativeTurnEvent{Turn: op.Turn, Event: wire.Delta{Delta: "b", Sequence: 2}})
	eq(t, r.sent()[0].ID, "run1", "later output")
}

func TestOutputBoundBeforeStarted(t *testing.T) {
	r := newRig(t)
	st := r.ready("p1", "s1")
	r.recv("p1", startFor(st, "run1"))
	c, op := callOf[StartTurn](r)
	for i := 0; i < 70; i++ {
		r.step(NativeTurnEvent{Turn: op.Turn, Event: wire.Delta{Delta: "x", Sequence: uint64(i)}})
	}
	eq(t, r.m.Snapshot().Turns[0].Overflow, 6, "overflow counted")
	r.result(c, StartResult{Turn: true})
	eq(t, len(payloadsOf[wire.Delta](r.sent())), 64, "bounded 64-frame output")
}

func TestErrorIsFollowedByDone(t *testing.T) {
	r := newRig(t)
	turn := r.started("p1", "s1", "run1")
	r.step(NativeTurnEvent{Turn: turn, Event: wire.RunError{Error: "engine", Code: "server_error"}})
	eq(t, frameTypes(r.sent()), "error", "error forwarded")
	r.settle(turn, SettleResult{Settled: true, Reusable: true})
	eq(t, frameTypes(r.sent()), "done", "done closes the stream after error")
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
	eq(t, done[0].Usage.Tokens.TotalTokens, int64(25), "last snapshot, never a sum")
}

func TestDoneWaitsForSettlement(t *testing.T) {
	r := newRig(t)
	turn := r.started("p1", "s1", "run1")
	r.step(NativeTurnEvent{Turn: turn, Event: wire.Done{Content: "all"}})
	eq(t, len(r.sent()), 0, "no done before settlement")
	c, _ := callOf[AwaitSettlement](r)
	r.result(c, SettleResult{Settled: false, Err: "not yet"})
	eq(t, len(r.sent()), 0, "unconfirmed settlement publishes nothing")
	noCall[AwaitSettlement](r)
	r.fire(settleRetryTimer(turn))
	c, _ = callOf[AwaitSettlement](r)
	r.result(c, SettleResult{Settled: true, Reusable: true})
	done := payloadsOf[wire.Done](r.sent())
	require.Truef(t, len(done) == 1 && done[0].Content == "all", "native done published after settlement: %s", describeAll(r.out))
	r.step(NativeTurnEvent{Turn: turn, Event: wire.Delta{Delta: "late"}})
	eq(t, len(r.out), 0, "late native events are dropped")
}

func TestDoneWaitsForConfirmedClose(t *testing.T) {
	r := newRig(t)
	turn := r.started("p1", "s1", "run1")
	r.settle(turn, SettleResult{Settled: true, Reusable: false, Reason: "native cancel retires"})
	c, op := callOf[CloseExecutor](r)
	eq(t, len(r.sent()), 0, "no done before the close")
	r.result(c, CloseResult{Err: "still running"})
	eq(t, len(r.sent()), 0, "no done after a failed close")
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
	eq(t, frameTypes(r.sent()), "done", "done after the confirmed close")
	eq(t, len(r.m.Owned()), 0, "nothing owned")
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
	eq(t, ex.NativeSession, "native-1", "continuity committed")
	eq(t, r.m.Snapshot().Capacity.Active, 0, "admission released")
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
	eq(t, ex.Phase, "idle", "reusable executor parked")
	at, ok := r.armed(idleTimer(ex.ID))
	require.Truef(t, ok && at.Equal(r.now.Add(10*time.Minute)), "idle expiry armed: %v", at)
	r.fire(idleTimer(ex.ID))
	c, op := callOf[CloseExecutor](r)
	eq(t, op.Executor, ex.ID, "idle expiry closes")
	eq(t, r.m.Snapshot().Capacity.Executors, 1, "closing still counts")
	r.result(c, CloseResult{})
	eq(t, len(r.m.Owned()), 0, "nothing owned after the confirmed close")
}
