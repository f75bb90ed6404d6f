package harness

import (
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
)

// write performs a durable input write. Normally the write completes and
// the native side consumes the input shortly after; armed faults fail it,
// make its outcome uncertain, exceed the daemon's budget, confirm
// consumption late, or hang it until heal (consumed at once or never).
func (h *Harness) write(now time.Time, c daemon.CallID, op daemon.DurableWrite) {
	t := h.turns[op.Turn]
	if t != nil {
		t.writesOut++
		if t.writing != "" {
			h.truth.violate("durable write of input %s on run %s while the write of input %s is still out", op.InputID, t.run, t.writing)
		}
		t.writing = op.InputID
	}
	h.inputWrite(op)
	h.writeCalled(now, t, op.InputID)
	lat := h.latency()
	in := op.InputID
	switch {
	case t == nil || t.settled:
		h.after(now, lat, func(now time.Time) {
			h.writeResult(now, c, t, in, daemon.WriteResult{Outcome: daemon.WriteFailed, Err: "turn not live"})
		})
	case h.take(WriteFailure):
		h.after(now, lat, func(now time.Time) {
			h.writeResult(now, c, t, in, daemon.WriteResult{Outcome: daemon.WriteFailed, Err: "simulated write failure"})
		})
	case h.take(WriteUncertain):
		applied := h.r.IntN(2) == 0
		h.after(now, lat, func(now time.Time) {
			if applied {
				h.apply(now, t, in)
			}
			h.writeResult(now, c, t, in, daemon.WriteResult{Outcome: daemon.WriteUnknown, Err: "simulated uncertain write"})
		})
	case h.take(WriteOverBudget):
		h.writeOverBudget(now, c, t, in, h.budget)
	case h.take(LateAccepted):
		h.after(now, lat, func(now time.Time) { h.writeResult(now, c, t, in, daemon.WriteResult{Outcome: daemon.WriteWritten}) })
		h.after(now, time.Duration(3000+h.r.IntN(30000))*time.Millisecond, func(now time.Time) { h.apply(now, t, in) })
	case h.take(Hang):
		applied := h.r.IntN(2) == 0
		if applied {
			h.after(now, lat, func(now time.Time) { h.apply(now, t, in) })
		}
		h.hung = append(h.hung, func(now time.Time) {
			out := daemon.WriteResult{Outcome: daemon.WriteWritten}
			if !applied {
				out = daemon.WriteResult{Outcome: daemon.WriteFailed, Err: "simulated hung write abandoned"}
			}
			h.writeResult(now, c, t, in, out)
		})
	default:
		lat = h.writeLatency(lat)
		h.after(now, lat, func(now time.Time) { h.writeResult(now, c, t, in, daemon.WriteResult{Outcome: daemon.WriteWritten}) })
		h.after(now, lat+h.latency(), func(now time.Time) { h.apply(now, t, in) })
	}
}

// writeOverBudget completes a write after the daemon's budget: either
// consumed at the end, or consumed at once while the call itself overruns
// by far (35–60 s: the Run's write barrier stays up, later inputs are
// busy, and the native turn stays open behind the outstanding write, so
// Core waits out its written window for the input).
func (h *Harness) writeOverBudget(now time.Time, c daemon.CallID, t *hTurn, input string, budget time.Duration) {
	if h.r.IntN(3) > 0 {
		h.after(now, h.latency(), func(now time.Time) { h.apply(now, t, input) })
		h.after(now, time.Duration(35000+h.r.IntN(25000))*time.Millisecond, func(now time.Time) {
			h.writeResult(now, c, t, input, daemon.WriteResult{Outcome: daemon.WriteWritten})
		})
		return
	}
	h.after(now, budget+time.Duration(500+h.r.IntN(5000))*time.Millisecond, func(now time.Time) {
		h.apply(now, t, input)
		h.writeResult(now, c, t, input, daemon.WriteResult{Outcome: daemon.WriteWritten})
	})
}

// writeResult answers a write call. The native turn cannot end while a
// write into it is outstanding: a natural end waits for the last one.
func (h *Harness) writeResult(now time.Time, c daemon.CallID, t *hTurn, input string, r daemon.WriteResult) {
	if t != nil && r.Outcome == daemon.WriteWritten {
		h.inputWritten(now, t, input)
	}
	h.writeReturned(now, t, input, r.Outcome)
	h.result(now, c, r)
	if t == nil {
		return
	}
	t.writesOut--
	if t.writing == input {
		t.writing = ""
	}
	if end := t.endPending; end != nil && t.writesOut == 0 {
		t.endPending = nil
		end(now)
	}
}

// apply consumes an input natively if the turn is still live: ground
// truth first, then the machine hears of it.
func (h *Harness) apply(now time.Time, t *hTurn, input string) {
	if t.settled || t.done {
		return
	}
	h.inputApplied(now, t, input)
	h.host.Feed(now, daemon.NativeInputApplied{Turn: t.id, InputID: input})
}
