package harness

import (
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/wire"
)

func (h *Harness) start(now time.Time, e sim.CallReceived, op daemon.StartTurn) []sim.Effect {
	h.truth.startCalls[op.Run]++
	x := h.exec[op.Executor]
	switch {
	case x == nil || x.truth.Closed || x.truth.Retired:
		h.truth.violate("start of run %s on unusable executor %s", op.Run, op.Executor)
		return []sim.Effect{result(e.From, e.Call, daemon.StartResult{Err: "executor unavailable"})}
	case x.turn != "":
		h.truth.violate("start of run %s while turn %s is live on %s", op.Run, x.turn, op.Executor)
	}
	if h.fault(h.cfg.Faults.StartBeforeInput) {
		h.w.Sometimes("harness_start_before_input")
		return []sim.Effect{result(e.From, e.Call, daemon.StartResult{Err: "native start refused"})}
	}
	t := &hTurn{caller: e.From, call: e.Call,
		truth: &TurnTruth{ID: op.Turn, Run: op.Run, Executor: op.Executor, CreatedAt: now}}
	if h.turns[op.Turn] != nil {
		h.truth.violate("turn %s started twice", op.Turn)
	}
	h.turns[op.Turn] = t
	h.truth.turns[op.Turn] = t.truth
	h.truth.runs[op.Run]++
	if h.truth.runs[op.Run] > 1 {
		h.truth.violate("run %s became a native turn %d times", op.Run, h.truth.runs[op.Run])
	}
	x.turn = op.Turn
	if h.rec != nil {
		h.rec.TurnCreated(now.UnixNano(), h.device, op.Run)
	}
	if h.fault(h.cfg.Faults.StartAfterInput) {
		h.w.Sometimes("harness_start_after_input")
		t.quiet = true
		t.truth.Failed = true
		return []sim.Effect{
			result(e.From, e.Call, daemon.StartResult{Turn: true, Err: "native start failed after input"}),
			h.after(now, h.latency(), func(now time.Time) []sim.Effect { return h.settleNatively(now, t) }),
		}
	}
	deltas := 1 + h.rng.IntN(h.cfg.DeltasMax)
	end := now
	if h.cfg.LongTurn.Chance(h.rng) {
		end = now.Add(between(h.rng, 5*time.Second, h.cfg.TurnMax))
	}
	return []sim.Effect{
		result(e.From, e.Call, daemon.StartResult{Turn: true}),
		h.after(now, h.latency(), func(now time.Time) []sim.Effect { return h.emit(now, t, deltas, end) }),
	}
}

// emit produces the Turn's native output: deltas with usage snapshots,
// then (at end) the native terminal result.
func (h *Harness) emit(now time.Time, t *hTurn, deltas int, end time.Time) []sim.Effect {
	if t.quiet && t.late == 0 {
		return nil
	}
	id := t.truth.ID
	if t.quiet {
		t.late--
		h.w.Sometimes("harness_late_event_after_cancel")
		t.seq++
		return []sim.Effect{event(t.caller, t.call, daemon.NativeTurnEvent{Turn: id, Event: wire.Delta{Delta: "late", Sequence: t.seq}})}
	}
	if deltas > 0 {
		t.seq++
		t.content += "x"
		t.tokens++
		out := []sim.Effect{event(t.caller, t.call, daemon.NativeTurnEvent{Turn: id, Event: wire.Delta{Delta: "x", Sequence: t.seq}})}
		if t.seq%2 == 0 {
			u := wire.Usage{Tokens: &wire.TokenUsage{OutputTokens: t.tokens, TotalTokens: t.tokens}}
			out = append(out, event(t.caller, t.call, daemon.NativeTurnEvent{Turn: id, Event: wire.UsageUpdate{Usage: u}}))
		}
		return append(out, h.after(now, h.latency(), func(now time.Time) []sim.Effect { return h.emit(now, t, deltas-1, end) }))
	}
	if now.Before(end) {
		return []sim.Effect{h.after(now, end.Sub(now), func(now time.Time) []sim.Effect { return h.emit(now, t, 0, end) })}
	}
	t.quiet = true
	done := t.doneSnapshot()
	return []sim.Effect{
		event(t.caller, t.call, daemon.NativeTurnEvent{Turn: id, Event: done}),
		h.after(now, h.latency(), func(now time.Time) []sim.Effect { return h.settleNatively(now, t) }),
	}
}

// settleNatively ends the Turn on the native side and answers waiting
// settlement calls.
func (h *Harness) settleNatively(now time.Time, t *hTurn) []sim.Effect {
	if t.natively {
		return nil
	}
	t.natively = true
	t.quiet = true
	t.late = 0
	t.truth.Ended = true
	var out []sim.Effect
	waiters := t.waiters
	t.waiters = nil
	for _, w := range waiters {
		out = append(out, h.reply(now, func(now time.Time) []sim.Effect { return h.answerSettle(now, t, w) })...)
	}
	return out
}

func (h *Harness) await(now time.Time, e sim.CallReceived, op daemon.AwaitSettlement) []sim.Effect {
	t := h.turns[op.Turn]
	w := waiter{from: e.From, call: e.Call}
	if t == nil {
		h.truth.violate("settlement awaited for unknown turn %s", op.Turn)
		return []sim.Effect{result(e.From, e.Call, daemon.SettleResult{Err: "unknown turn"})}
	}
	if !t.natively {
		t.waiters = append(t.waiters, w)
		return nil
	}
	return h.reply(now, func(now time.Time) []sim.Effect { return h.answerSettle(now, t, w) })
}

func (h *Harness) answerSettle(now time.Time, t *hTurn, w waiter) []sim.Effect {
	if h.fault(h.cfg.Faults.SettleError) {
		h.w.Sometimes("harness_settle_error")
		return []sim.Effect{result(w.from, w.call, daemon.SettleResult{Err: "settlement unconfirmed"})}
	}
	r := daemon.SettleResult{Settled: true, Reusable: true, Outcome: t.doneSnapshot()}
	x := h.exec[t.truth.Executor]
	if h.fault(h.cfg.Faults.NotReusable) {
		h.w.Sometimes("harness_not_reusable")
		r.Reusable = false
		r.Reason = "native turn retired its executor"
		x.truth.Retired = true
	}
	t.truth.Settled = true
	t.truth.SettledAt = now
	if h.rec != nil {
		h.rec.TurnSettled(now.UnixNano(), t.truth.Run, t.truth.outcome())
	}
	if x.turn == t.truth.ID {
		x.turn = ""
	}
	return []sim.Effect{result(w.from, w.call, r)}
}

func (h *Harness) cancel(now time.Time, e sim.CallReceived, op daemon.Cancel) []sim.Effect {
	t := h.turns[op.Turn]
	if t == nil {
		h.truth.violate("cancel of unknown turn %s", op.Turn)
		return []sim.Effect{result(e.From, e.Call, daemon.CancelResult{Err: "unknown turn"})}
	}
	if h.fault(h.cfg.Faults.CancelFailure) {
		h.w.Sometimes("harness_cancel_failure")
		return []sim.Effect{result(e.From, e.Call, daemon.CancelResult{Err: "native cancel failed"})}
	}
	out := []sim.Effect{result(e.From, e.Call, daemon.CancelResult{})}
	if t.natively || t.truth.Cancelled {
		return out
	}
	t.truth.Cancelled = true
	if !t.quiet && h.fault(h.cfg.Faults.LateEventsAfterCancel) {
		t.late = 1 + h.rng.IntN(2)
	}
	t.quiet = true
	if t.late > 0 {
		out = append(out, h.after(now, h.latency(), func(now time.Time) []sim.Effect { return h.emit(now, t, 0, now) }))
	}
	settle := func(now time.Time) []sim.Effect { return h.settleNatively(now, t) }
	switch {
	case h.fault(h.cfg.Faults.SettleNever):
		h.w.Sometimes("harness_settle_never")
		h.held = append(h.held, settle)
	case h.fault(h.cfg.Faults.SettleLate):
		h.w.Sometimes("harness_settle_late")
		out = append(out, h.after(now, between(h.rng, 11*time.Second, 20*time.Second), settle))
	default:
		out = append(out, h.after(now, h.latency(), settle))
	}
	return out
}

func (h *Harness) write(now time.Time, e sim.CallReceived, op daemon.DurableWrite) []sim.Effect {
	k := InputKey{op.Turn, op.InputID}
	in := h.truth.inputs[k]
	if in == nil {
		in = &InputTruth{}
		h.truth.inputs[k] = in
	}
	in.Writes++
	if in.Writes > 1 {
		h.truth.violate("input %s of %s written %d times", op.InputID, op.Turn, in.Writes)
	}
	t := h.turns[op.Turn]
	delay := h.latency()
	if h.fault(h.cfg.Faults.WriteOverBudget) {
		h.w.Sometimes("harness_write_over_budget")
		delay = between(h.rng, 11*time.Second, 20*time.Second)
	}
	fn := func(now time.Time) []sim.Effect {
		res := daemon.WriteResult{Outcome: daemon.WriteWritten}
		switch {
		case t == nil || t.quiet:
			res = daemon.WriteResult{Outcome: daemon.WriteFailed, Err: "turn not accepting input"}
		case h.fault(h.cfg.Faults.WriteFailure):
			h.w.Sometimes("harness_write_failure")
			res = daemon.WriteResult{Outcome: daemon.WriteFailed, Err: "native write failed"}
		case h.fault(h.cfg.Faults.WriteUncertain):
			h.w.Sometimes("harness_write_uncertain")
			res = daemon.WriteResult{Outcome: daemon.WriteUnknown, Err: "native write uncertain"}
			if h.rng.IntN(2) == 0 {
				return []sim.Effect{result(e.From, e.Call, res)}
			}
		}
		out := []sim.Effect{result(e.From, e.Call, res)}
		if res.Outcome == daemon.WriteFailed {
			return out
		}
		in.Written = true
		in.WrittenAt = now
		return append(out, h.applyLater(now, t, k, e))
	}
	if h.fault(h.cfg.Faults.Hang) {
		h.held = append(h.held, fn)
		return nil
	}
	return []sim.Effect{h.after(now, delay, fn)}
}

// applyLater confirms native consumption of a written input while the
// Turn is still live; a Turn that ended first never consumes it.
func (h *Harness) applyLater(now time.Time, t *hTurn, k InputKey, e sim.CallReceived) sim.Effect {
	d := h.latency()
	if h.fault(h.cfg.Faults.LateAccepted) {
		h.w.Sometimes("harness_late_accepted")
		d = between(h.rng, 3*time.Second, 15*time.Second)
	}
	return h.after(now, d, func(now time.Time) []sim.Effect {
		if t.natively || t.truth.Settled {
			return nil
		}
		in := h.truth.inputs[k]
		in.Applied = true
		in.AppliedAt = now
		if h.rec != nil {
			h.rec.InputApplied(now.UnixNano(), t.truth.Run, k.Input)
		}
		return []sim.Effect{event(e.From, e.Call, daemon.NativeInputApplied{Turn: k.Turn, InputID: k.Input})}
	})
}
