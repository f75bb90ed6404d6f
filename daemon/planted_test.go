package daemon

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/wire"
)

// The planted-bug switches must really plant their bug: each test runs one
// script on the correct machine and on the bugged one and asserts both
// behaviours, so a switch that does nothing fails it.

func bugged(b Bugs) Config {
	c := testConfig()
	c.Bugs = b
	return c
}

func TestPlantedForgetAdmissionExpiryAtStart(t *testing.T) {
	for _, bug := range []bool{false, true} {
		r := newRigWith(t, bugged(Bugs{ForgetAdmissionExpiry: bug}))
		st := r.ready("p1", "s1")
		r.advance(5*time.Minute + time.Second) // past the deadline; the timer not yet delivered
		r.recv("p1", startFor(st, "run1"))
		got := oneStatus(r)
		if !bug {
			eq(t, got.State, wire.StateExpired, "correct: start after expiry")
			noCall[StartTurn](r)
			continue
		}
		eq(t, got.State, wire.StateStarting, "bugged: start after expiry")
		c, _ := callOf[StartTurn](r)
		r.result(c, StartResult{Turn: true})
		eq(t, oneStatus(r).State, wire.StateStarted, "bugged: handle started after its expiry")
		for _, s := range statuses(r) {
			require.Truef(t, s.State != wire.StateExpired, "bugged: no expired status")
		}
	}
}

func TestPlantedForgetAdmissionExpiryAtTimer(t *testing.T) {
	for _, bug := range []bool{false, true} {
		r := newRigWith(t, bugged(Bugs{ForgetAdmissionExpiry: bug}))
		st := r.ready("p1", "s1")
		r.fire(expiryTimer(st.Handle))
		eq(t, r.now, t0.Add(5*time.Minute), "deadline at grant + 5 min")
		if !bug {
			eq(t, oneStatus(r).State, wire.StateExpired, "correct: the timer expires the handle")
			continue
		}
		eq(t, len(statuses(r)), 0, "bugged: the timer publishes nothing")
		eq(t, r.m.Snapshot().Admissions[0].State, wire.StateReady, "bugged: the handle stays ready")
		r.advance(time.Minute)
		r.recv("p1", startFor(st, "run1"))
		eq(t, oneStatus(r).State, wire.StateStarting, "bugged: start a minute after expiry")
		callOf[StartTurn](r)
	}
}

func TestPlantedAcceptBeforeApply(t *testing.T) {
	for _, bug := range []bool{false, true} {
		r := newRigWith(t, bugged(Bugs{AcceptBeforeApply: bug}))
		turn := r.started("p1", "s1", "run1")
		r.recv("run1", steer("1", "more"))
		c, _ := callOf[DurableWrite](r)
		r.result(c, WriteResult{Outcome: WriteWritten})
		a := acks(r)
		if !bug {
			require.Truef(t, len(a) == 1 && a[0].Written && !a[0].Accepted, "correct: written only: %+v", a)
			r.step(NativeInputApplied{Turn: turn, InputID: "1"})
			require.Truef(t, oneAck(r).Accepted, "correct: accepted after the native apply")
			continue
		}
		require.Truef(t, len(a) == 2 && a[0].Written && !a[0].Accepted && a[1].Accepted,
			"bugged: accepted with the write, before any native apply: %+v", a)

		r.step(NativeInputApplied{Turn: turn, InputID: "1"})
		eq(t, len(acks(r)), 0, "bugged: nothing left to say at the apply")
	}
}

func TestPlantedFreeCapacityOnCloseFailure(t *testing.T) {
	for _, bug := range []bool{false, true} {
		r := newRigWith(t, bugged(Bugs{FreeCapacityOnCloseFailure: bug}))
		st := r.ready("p1", "s1")
		r.recv("p1", wire.ExecutionRelease{Handle: st.Handle})
		r.fire(idleTimer(st.ExecutorID))
		c, op := callOf[CloseExecutor](r)
		eq(t, op.Executor, st.ExecutorID, "idle expiry closes")
		r.result(c, CloseResult{Err: "close failed"})
		if !bug {
			eq(t, r.m.Capacity().Executors, 1, "correct: the uncertain executor keeps its slot")
			_, retry := r.armed(closeRetryTimer(st.ExecutorID))
			require.Truef(t, retry, "correct: the close is retried")
			r.recv("p2", prepareFor("s1"))
			eq(t, oneStatus(r).ErrorCode, CodeExecutorCleanupUnconfirmed, "correct: session blocked until cleanup")
			continue
		}
		eq(t, r.m.Capacity().Executors, 0, "bugged: the executor is forgotten")
		_, retry := r.armed(closeRetryTimer(st.ExecutorID))
		require.Truef(t, !retry, "bugged: no retry")
		r.recv("p2", prepareFor("s1"))
		eq(t, oneStatus(r).State, wire.StatePreparing, "bugged: a new executor for the session")
		_, p := callOf[Prepare](r)
		require.Truef(t, p.Executor != st.ExecutorID, "bugged: a second native executor while the first is open")
	}
}

// TestPlantedFreeCapacityOnCloseFailureFinishesTurn: a required close
// that fails must hold done back; the bugged machine publishes done and
// frees the active slot at once.
func TestPlantedFreeCapacityOnCloseFailureFinishesTurn(t *testing.T) {
	for _, bug := range []bool{false, true} {
		cfg := bugged(Bugs{FreeCapacityOnCloseFailure: bug})
		cfg.Limits.ActiveMax = 1
		cfg.Limits.ExecutorsMax = 2
		cfg.Limits.IdleExecutorsMax = 1
		r := newRigWith(t, cfg)
		turn := r.started("p1", "s1", "run1")
		r.settle(turn, SettleResult{Settled: true, Reusable: false, Reason: "retired"})
		c, _ := callOf[CloseExecutor](r)
		r.result(c, CloseResult{Err: "close failed"})
		r.recv("p2", prepareFor("s2"))
		if !bug {
			eq(t, len(payloadsOf[wire.Done](r.allSent())), 0, "correct: no done before a confirmed close")
			eq(t, oneStatus(r).ErrorCode, CodePreparationCapacity, "correct: the uncertain close holds the slot")
			continue
		}
		eq(t, len(payloadsOf[wire.Done](r.allSent())), 1, "bugged: done after a failed close")
		eq(t, oneStatus(r).State, wire.StatePreparing, "bugged: the slot is free again")
	}
}
