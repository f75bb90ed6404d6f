package harness

import (
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// script plays a native turn: a few deltas and usage snapshots, sometimes
// an engine error, then the terminal result and settlement. Most turns
// last up to 11 s; one in five (at most Config.LongTurnsMax per device)
// runs for 16–48 s.
func (h *Harness) script(now time.Time, t *hTurn) {
	steps := 1 + h.r.IntN(6)
	gap := time.Duration(100+h.r.IntN(1500)) * time.Millisecond
	if h.dev.armedLong(t.run) {
		// armed by a peer that writes many inputs into it (long_turn.go)
		steps, gap = h.longTurn()
	} else if h.dev.Harness.ShortTurns {
		steps, gap = 1+h.r.IntN(2), time.Duration(50+h.r.IntN(250))*time.Millisecond
	} else if long := h.r.IntN(5) == 0; long && h.dev.longTurns < h.dev.Harness.LongTurnsMax {
		// A long turn: 16–48 s of native work, long enough for a steer to
		// wait out Core's written window behind a stuck write. Few per
		// device, so sessions' FIFO queues still drain before the deadline.
		h.dev.longTurns++
		steps, gap = 3+h.r.IntN(3), time.Duration(4000+h.r.IntN(4000))*time.Millisecond
	}
	engineErr := h.r.IntN(16) < h.dev.Harness.EngineError
	t.steps = steps
	for i := 1; i <= steps; i++ {
		h.after(now, gap*time.Duration(i), func(now time.Time) { h.emitProgress(now, t, i) })
	}
	var end func(now time.Time)
	end = func(now time.Time) {
		// A cancel that reached the native turn wins: it settles the turn.
		if t.settled || t.done || t.cancelled {
			return
		}
		// The native turn cannot end while a write into it is
		// outstanding: the natural end waits for the last one.
		if t.writesOut > 0 {
			t.endPending = end
			return
		}
		// A turn waiting for an answer to its question does not end
		// before it comes (or the native side stops waiting).
		if h.awaitingAnswer(now, t) {
			h.after(now, answerPoll, end)
			return
		}
		outcome := check.NativeCompleted
		if engineErr {
			outcome = check.NativeFailed
			h.event(now, t, h.engineError(t.run))
		}
		h.finishNative(now, t, outcome)
	}
	h.after(now, h.polled(now, gap*time.Duration(steps+1)), end)
	h.scheduleAsks(now, t, gap*time.Duration(steps))
}

func (h *Harness) emitProgress(now time.Time, t *hTurn, i int) {
	if t.settled || t.done {
		return
	}
	t.content += "x"
	h.event(now, t, wire.Delta{Delta: "x", Sequence: uint64(i)})
	if i%2 == 0 {
		t.usage += int64(10 + h.r.IntN(50))
		h.event(now, t, wire.UsageUpdate{Usage: h.usage(t)})
	}
	if len(t.subagents) > 0 {
		h.emitSubagents(now, t, i, t.steps)
	}
}

func (h *Harness) usage(t *hTurn) wire.Usage {
	return wire.Usage{Tokens: &wire.TokenUsage{InputTokens: t.usage, OutputTokens: t.usage / 2, TotalTokens: t.usage + t.usage/2}}
}

// event emits one native event. An event after the native settlement
// breaks the Harness contract (the output can no longer be written once
// settlement succeeded); only a fault makes the Harness do it, and Truth
// records it as a Harness breach.
func (h *Harness) event(now time.Time, t *hTurn, p wire.Payload) {
	if t.settled {
		t.truth.EventsAfterSettlement++
		h.truth.breach("native %s of %s after its settlement", p.MessageType(), t.id)
	}
	h.host.Feed(now, daemon.NativeTurnEvent{Turn: t.id, Event: p})
}

// finishNative emits the native terminal result and settles the turn.
func (h *Harness) finishNative(now time.Time, t *hTurn, outcome string) {
	t.done = true
	if !h.settleFirst(now, t, outcome) {
		done := h.outcome(t)
		if h.dev.Harness.DoneWithoutUsage {
			done.Usage = nil // the snapshots already emitted stand
		}
		finalUsage(&done)
		h.nativeDone(now, t, done)
		h.event(now, t, done)
		h.settle(now, t, outcome)
	}
}

// settleFirst applies a settle-before-done fault to a turn whose
// settlement is awaited: the turn settles (and the wait is answered)
// without its native terminal result ever being emitted; the daemon's
// done must then come from the settlement's outcome.
func (h *Harness) settleFirst(now time.Time, t *hTurn, outcome string) bool {
	if len(t.waiters) == 0 || !h.take(SettleBeforeDone) {
		return false
	}
	t.truth.DoneSuppressed = true
	h.settle(now, t, outcome)
	return true
}

// stop ends a cancelled turn: the terminal result, settlement as
// cancelled, and (under a late-events fault) an event after it.
func (h *Harness) stop(now time.Time, t *hTurn, late bool) {
	if t.settled || t.done {
		return
	}
	t.done = true
	if !h.settleFirst(now, t, check.NativeCancelled) {
		done := h.outcome(t)
		h.nativeDone(now, t, done)
		h.event(now, t, done)
		h.interruptTokens(t)
		h.settle(now, t, check.NativeCancelled)
	}
	if late {
		h.after(now, h.latency(), func(now time.Time) { h.event(now, t, wire.Delta{Delta: "late", Sequence: 99}) })
	}
}

// interruptTokens: a cancelled native turn's engine accounts the tokens
// its interruption consumed after its terminal result, so the settlement's continuity snapshot (which the daemon's
// applied cancel receipt carries) is newer than the native done's usage
// (which the daemon's done carries). Core must keep the newer one: the
// receipt reaches it after the done.
func (h *Harness) interruptTokens(t *hTurn) {
	t.usage += int64(1 + h.r.IntN(20))
}

// outcome is the continuity snapshot of a turn so far.
func (h *Harness) outcome(t *hTurn) wire.Done {
	// The native session is the Session's: it continues across turns.
	native := "native-" + t.run
	if ex := h.execs[t.exec]; ex != nil {
		native = "native-" + ex.session
	}
	d := wire.Done{Content: t.content, Metadata: &wire.DoneMetadata{AgentSessionID: native}}
	if t.usage > 0 {
		u := h.usage(t)
		d.Usage = &u
	}
	return d
}

// settle records the native settlement and answers settlement waiters.
func (h *Harness) settle(now time.Time, t *hTurn, outcome string) {
	if t.settled {
		return
	}
	t.settled = true
	if ex := h.execs[t.exec]; ex != nil && ex.live == t.id {
		ex.live = ""
	}
	h.turnSettled(now, t, outcome)
	h.asksSettled(now, t)
	waiters := t.waiters
	t.waiters = nil
	for _, c := range waiters {
		h.answerSettled(now, c, t)
	}
}
