package world

import (
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// write performs a durable input write. Normally the write completes and
// the native side consumes the input shortly after; armed faults fail it,
// make its outcome uncertain, exceed the daemon's budget, confirm
// consumption late, or hang it until heal (consumed at once or never).
func (h *harness) write(now time.Time, c daemon.CallID, op daemon.DurableWrite) {
	t := h.turns[op.Turn]
	if t != nil {
		t.writesOut++
	}
	budget := h.n.d.cfg.Limits.NativeWriteBudget
	lat := h.latency()
	switch {
	case t == nil || t.settled:
		h.after(now, lat, func(now time.Time) {
			h.writeResult(now, c, t, daemon.WriteResult{Outcome: daemon.WriteFailed, Err: "turn not live"})
		})
	case h.take(kWriteFailure):
		h.after(now, lat, func(now time.Time) {
			h.writeResult(now, c, t, daemon.WriteResult{Outcome: daemon.WriteFailed, Err: "simulated write failure"})
		})
	case h.take(kWriteUncertain):
		applied := h.r.IntN(2) == 0
		h.after(now, lat, func(now time.Time) {
			if applied {
				h.apply(now, t, op.InputID)
			}
			h.writeResult(now, c, t, daemon.WriteResult{Outcome: daemon.WriteUnknown, Err: "simulated uncertain write"})
		})
	case h.take(kWriteOverBudget):
		h.writeOverBudget(now, c, t, op.InputID, budget)
	case h.take(kLateAccepted):
		h.after(now, lat, func(now time.Time) { h.writeResult(now, c, t, daemon.WriteResult{Outcome: daemon.WriteWritten}) })
		h.after(now, time.Duration(3000+h.r.IntN(30000))*time.Millisecond, func(now time.Time) { h.apply(now, t, op.InputID) })
	case h.take(kHang):
		applied := h.r.IntN(2) == 0
		if applied {
			h.after(now, lat, func(now time.Time) { h.apply(now, t, op.InputID) })
		}
		h.hung = append(h.hung, func(now time.Time) {
			out := daemon.WriteResult{Outcome: daemon.WriteWritten}
			if !applied {
				out = daemon.WriteResult{Outcome: daemon.WriteFailed, Err: "simulated hung write abandoned"}
			}
			h.writeResult(now, c, t, out)
		})
	default:
		h.after(now, lat, func(now time.Time) { h.writeResult(now, c, t, daemon.WriteResult{Outcome: daemon.WriteWritten}) })
		h.after(now, lat+h.latency(), func(now time.Time) { h.apply(now, t, op.InputID) })
	}
}

// writeOverBudget completes a write after the daemon's budget: either
// consumed at the end, or consumed at once while the call itself overruns
// by far (the Run's write barrier stays up and later inputs are busy).
func (h *harness) writeOverBudget(now time.Time, c daemon.CallID, t *hTurn, input string, budget time.Duration) {
	if h.r.IntN(3) > 0 {
		h.after(now, h.latency(), func(now time.Time) { h.apply(now, t, input) })
		h.after(now, time.Duration(35000+h.r.IntN(25000))*time.Millisecond, func(now time.Time) {
			h.writeResult(now, c, t, daemon.WriteResult{Outcome: daemon.WriteWritten})
		})
		return
	}
	h.after(now, budget+time.Duration(500+h.r.IntN(5000))*time.Millisecond, func(now time.Time) {
		h.apply(now, t, input)
		h.writeResult(now, c, t, daemon.WriteResult{Outcome: daemon.WriteWritten})
	})
}

// writeResult answers a write call. The native turn cannot end while a
// write into it is outstanding: a natural end waits for the last one.
func (h *harness) writeResult(now time.Time, c daemon.CallID, t *hTurn, r daemon.WriteResult) {
	h.result(now, c, r)
	if t == nil {
		return
	}
	t.writesOut--
	if end := t.endPending; end != nil && t.writesOut == 0 {
		t.endPending = nil
		end(now)
	}
}

// apply consumes an input natively if the turn is still live: ground
// truth first, then the machine hears of it.
func (h *harness) apply(now time.Time, t *hTurn, input string) {
	if t.settled || t.done {
		return
	}
	if h.u.cfg.breakTruth != truthForgetApplied {
		h.u.led.InputApplied(h.u.lt(now), t.run, input)
		h.u.count("InputApplied")
	}
	h.n.feed(now, daemon.NativeInputApplied{Turn: t.id, InputID: input})
}

// cancel asks the native turn to stop. It settles as cancelled after a
// short delay, late (seconds), or only at heal; late events may follow.
func (h *harness) cancel(now time.Time, c daemon.CallID, op daemon.Cancel) {
	t := h.turns[op.Turn]
	h.after(now, h.latency(), func(now time.Time) { h.result(now, c, daemon.CancelResult{}) })
	if t == nil || t.settled || t.cancelled {
		return
	}
	t.cancelled = true
	late := h.take(kLateEvents)
	stop := func(now time.Time) {
		if t.settled || t.done {
			return
		}
		t.done = true
		h.event(now, t, h.outcome(t))
		h.settle(now, t, check.NativeCancelled)
		if late {
			h.after(now, h.latency(), func(now time.Time) { h.event(now, t, wire.Delta{Delta: "late", Sequence: 99}) })
		}
	}
	switch {
	case h.take(kCancelNever):
		h.hung = append(h.hung, stop)
	case h.take(kCancelLate):
		h.after(now, time.Duration(5000+h.r.IntN(15000))*time.Millisecond, stop)
	default:
		h.after(now, h.latency()+h.latency(), stop)
	}
}

// await answers once the turn has settled.
func (h *harness) await(now time.Time, c daemon.CallID, op daemon.AwaitSettlement) {
	t := h.turns[op.Turn]
	switch {
	case t == nil:
		h.after(now, h.latency(), func(now time.Time) { h.result(now, c, daemon.SettleResult{Err: "unknown turn"}) })
	case t.settled:
		h.answerSettled(now, c, t)
	default:
		t.waiters = append(t.waiters, c)
	}
}

// close retires an executor; a close-failure fault fails one attempt
// (the daemon retries). A live turn on it is killed.
func (h *harness) close(now time.Time, c daemon.CallID, op daemon.CloseExecutor) {
	ex := h.execs[op.Executor]
	if ex != nil && ex.closeFails > 0 {
		h.u.mark(check.MarkCleanupRetried)
	}
	fail := h.take(kCloseFailure)
	h.later(now, h.latency(), func(now time.Time) {
		if fail {
			if ex != nil {
				ex.closeFails++
			}
			h.result(now, c, daemon.CloseResult{Err: "simulated close failure"})
			return
		}
		for _, id := range sortedTurnIDs(h.turns) {
			if t := h.turns[id]; t.exec == op.Executor && !t.settled {
				h.settle(now, t, check.NativeFailed)
			}
		}
		if ex != nil {
			delete(h.execs, op.Executor)
			h.u.led.ExecutorClosed(h.u.lt(now), h.dev, op.Executor)
			h.u.count("ExecutorClosed")
		}
		h.result(now, c, daemon.CloseResult{})
	})
}

// processDied records the end of every native resource when the daemon
// process (and the Harness inside it) dies.
func (h *harness) processDied(now time.Time) {
	for _, id := range sortedTurnIDs(h.turns) {
		if t := h.turns[id]; !t.settled {
			t.settled = true
			h.u.led.TurnSettled(h.u.lt(now), t.run, check.NativeFailed)
			h.u.count("TurnSettled")
			h.u.nativeOutcome[t.run] = check.NativeFailed
		}
	}
	for _, id := range sortedKeys(h.execs) {
		h.u.led.ExecutorClosed(h.u.lt(now), h.dev, id)
		h.u.count("ExecutorClosed")
	}
	h.execs = map[string]*hExec{}
}
