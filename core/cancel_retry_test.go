package core_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

// starting sets up device d1 on conn 1, a default session and one Turn
// whose execution_start was sent but not yet confirmed.
func (h *rig) starting() (tid, runID string) {
	h.t.Helper()
	h.connect("d1", 1, baseCaps())
	sid := h.session(defaultAgent())
	tid = h.submit(sid, "hello")
	prep := one[wire.ExecutionPrepare](h.t, h.last)
	runID = one[wire.ExecutionStart](h.t, h.frame(1, prep.ID, status(wire.StateReady, 1))).P.RunID
	require.Equal(h.t, core.TurnStarting, h.turn(tid).State)
	return tid, runID
}

func (h *rig) timerAt(id core.TimerID) (time.Time, bool) {
	for _, tv := range h.m.Timers() {
		if tv.Timer == id {
			return tv.At, true
		}
	}
	return time.Time{}, false
}

// notReady answers the latest cancel attempt with not_ready.
func (h *rig) notReady(tid, runID string) {
	h.t.Helper()
	id := h.turn(tid).CancelDeliveryID
	require.Empty(h.t, sends[wire.PromptCancel](h.frame(1, runID, wire.InteractionDecisionAck{DeliveryID: id, ErrorCode: wire.CancelNotReady})))
}

// TestCancelNotReadyRetriedWithFreshDeliveryID: not_ready means the Run was
// still starting and the cancel was not applied. Core sends it again after
// CancelRetryDelay with a fresh delivery ID; the confirmation window is the
// request's, ending CancelConfirmTimeout after the first send, and is not
// restarted by the retry. Only the current attempt's receipt counts.
func TestCancelNotReadyRetriedWithFreshDeliveryID(t *testing.T) {
	h := newRig(t)
	tid, runID := h.starting()
	first := one[wire.PromptCancel](t, h.step(core.CancelTurn{Call: "c", Turn: tid}))
	require.Equal(t, "cancel:"+runID, first.P.DeliveryID)
	deadline := h.now.Add(15 * time.Second)

	h.advance(2 * time.Second)
	h.notReady(tid, runID)
	v := h.turn(tid)
	require.Equal(t, core.TurnStarting, v.State)
	require.Equal(t, core.CancelRequested, v.Cancel)
	confirmAt, confirming := h.timerAt(core.TimerID("cancel:" + tid))
	require.True(t, confirming, "the request's window stays open across the retry wait")
	require.Equal(t, deadline, confirmAt)
	at, ok := h.timerAt(core.TimerID("cancel-retry:" + tid))
	require.True(t, ok)
	require.Equal(t, h.now.Add(time.Second), at)

	effs := h.fire(core.TimerID("cancel-retry:" + tid))
	second := one[wire.PromptCancel](t, effs)
	require.Equal(t, runID, second.ID)
	require.Equal(t, "cancel:"+runID+":2", second.P.DeliveryID)
	require.False(t, hasEffect(effs, func(s core.SetTimer) bool { return s.Timer == core.TimerID("cancel:"+tid) }),
		"the confirmation window does not restart with the attempt")
	confirmAt, _ = h.timerAt(core.TimerID("cancel:" + tid))
	require.Equal(t, deadline, confirmAt)

	// A late receipt of the first attempt is not this attempt's.
	h.frame(1, runID, wire.InteractionDecisionAck{DeliveryID: first.P.DeliveryID, ErrorCode: wire.CancelRunInactive})
	require.Equal(t, core.CancelRequested, h.turn(tid).Cancel)

	h.notReady(tid, runID)
	third := one[wire.PromptCancel](t, h.fire(core.TimerID("cancel-retry:"+tid)))
	require.Equal(t, "cancel:"+runID+":3", third.P.DeliveryID)
	h.frame(1, runID, wire.InteractionDecisionAck{DeliveryID: third.P.DeliveryID, Applied: true, Outcome: &wire.Done{Content: "stopped"}})
	v = h.turn(tid)
	require.Equal(t, core.TurnCancelled, v.State)
	require.Equal(t, "stopped", v.Content)
}

// TestCancelNotReadyThenDone: done arriving while a not_ready cancel waits
// for its retry does not decide; the retry's receipt does, and the stream
// decides only when that receipt is run_inactive.
func TestCancelNotReadyThenDone(t *testing.T) {
	for _, applied := range []bool{false, true} {
		h := newRig(t)
		tid, runID := h.starting()
		h.step(core.CancelTurn{Call: "c", Turn: tid})
		h.notReady(tid, runID)
		h.frame(1, runID, wire.Done{Content: "all"})
		require.Equal(t, core.TurnRunning, h.turn(tid).State, "done does not decide while the cancel is retried")
		retry := one[wire.PromptCancel](t, h.fire(core.TimerID("cancel-retry:"+tid)))
		ack := wire.InteractionDecisionAck{DeliveryID: retry.P.DeliveryID, ErrorCode: wire.CancelRunInactive}
		if applied {
			ack = wire.InteractionDecisionAck{DeliveryID: retry.P.DeliveryID, Applied: true, Outcome: &wire.Done{Content: "part"}}
		}
		h.frame(1, runID, ack)
		v := h.turn(tid)
		if applied {
			require.Equal(t, core.TurnCancelled, v.State)
			continue
		}
		require.Equal(t, core.TurnCompleted, v.State)
		require.Equal(t, "all", v.Content)
	}
}

// TestCancelTurnAfterNotReadyRetriesAtOnce: a CancelTurn call while the
// retry waits sends the fresh attempt immediately, once.
func TestCancelTurnAfterNotReadyRetriesAtOnce(t *testing.T) {
	h := newRig(t)
	tid, runID := h.starting()
	h.step(core.CancelTurn{Call: "c", Turn: tid})
	h.notReady(tid, runID)
	effs := h.step(core.CancelTurn{Call: "again", Turn: tid})
	require.Equal(t, "cancel:"+runID+":2", one[wire.PromptCancel](t, effs).P.DeliveryID)
	require.True(t, hasEffect(effs, func(c core.CancelTimer) bool { return c.Timer == core.TimerID("cancel-retry:"+tid) }))
	require.Empty(t, sends[wire.PromptCancel](h.step(core.CancelTurn{Call: "third", Turn: tid})), "a pending attempt is not repeated")
	h.fire(core.TimerID("cancel:" + tid))
	require.Equal(t, core.CodeCancelUnconfirmed, h.turn(tid).ErrorCode, "no receipt by the request's deadline")
}

// TestCancelRetryDelayConfigurable: CancelRetryDelay sets the wait.
func TestCancelRetryDelayConfigurable(t *testing.T) {
	h := newRigCfg(t, core.Config{CancelRetryDelay: 250 * time.Millisecond})
	tid, runID := h.starting()
	h.step(core.CancelTurn{Call: "c", Turn: tid})
	h.notReady(tid, runID)
	at, _ := h.timerAt(core.TimerID("cancel-retry:" + tid))
	require.Equal(t, h.now.Add(250*time.Millisecond), at)
	require.True(t, core.Config{CancelRetryDelay: -1}.Validate() != nil)
}

// TestCancelRetryEndsWithTheTurn: a connection lost while the retry waits
// leaves the cancel unconfirmed and disarms the retry.
func TestCancelRetryEndsWithTheTurn(t *testing.T) {
	h := newRig(t)
	tid, runID := h.starting()
	h.step(core.CancelTurn{Call: "c", Turn: tid})
	h.notReady(tid, runID)
	effs := h.step(core.ConnClosed{Conn: 1})
	require.True(t, hasEffect(effs, func(c core.CancelTimer) bool { return c.Timer == core.TimerID("cancel-retry:"+tid) }))
	require.Equal(t, core.CodeCancelUnconfirmed, h.turn(tid).ErrorCode)
	for _, tv := range h.m.Timers() { // only the device's reconnect window remains
		require.Equal(t, core.TimerID("reconnect:d1"), tv.Timer, "no timer outlives the Turn and its connection")
	}
}

// TestCancelDuplicateReceiptWhileRetryWaits: while a not_ready refusal
// waits for its retry, the delivery ID is still the refused attempt's; a
// duplicate receipt for it (of any code) must not decide the Turn.
func TestCancelDuplicateReceiptWhileRetryWaits(t *testing.T) {
	for _, dup := range []wire.InteractionDecisionAck{
		{ErrorCode: wire.CancelRunInactive},
		{ErrorCode: wire.CancelFailed},
		{Applied: true, Outcome: &wire.Done{Content: "x"}},
	} {
		h := newRig(t)
		tid, runID := h.starting()
		first := one[wire.PromptCancel](t, h.step(core.CancelTurn{Call: "c", Turn: tid}))
		h.notReady(tid, runID)
		dup.DeliveryID = first.P.DeliveryID
		h.frame(1, runID, dup)
		v := h.turn(tid)
		require.Equal(t, core.CancelRequested, v.Cancel, "duplicate %+v decided the cancel", dup)
		require.False(t, v.State.Terminal(), "duplicate %+v ended the Turn", dup)
		second := one[wire.PromptCancel](t, h.fire(core.TimerID("cancel-retry:"+tid)))
		require.Equal(t, "cancel:"+runID+":2", second.P.DeliveryID)
	}
}

// TestCancelNotReadyRetriesEndAtTheDeadline: a Run that keeps answering
// not_ready does not keep the Turn cancel-requested: no retry is armed at
// or past the cancel deadline, and the Turn fails cancel_unconfirmed
// exactly CancelConfirmTimeout after the first send.
func TestCancelNotReadyRetriesEndAtTheDeadline(t *testing.T) {
	h := newRig(t)
	tid, runID := h.starting()
	one[wire.PromptCancel](t, h.step(core.CancelTurn{Call: "c", Turn: tid}))
	deadline := h.now.Add(15 * time.Second)
	cancelTimer, retryTimer := core.TimerID("cancel:"+tid), core.TimerID("cancel-retry:"+tid)
	attempts := 1
	for {
		h.notReady(tid, runID)
		at, ok := h.timerAt(retryTimer)
		if !ok {
			break
		}
		require.True(t, at.Before(deadline), "retry at %v, deadline %v", at, deadline)
		one[wire.PromptCancel](t, h.fire(retryTimer))
		attempts++
		require.True(t, attempts < 100, "retries never end")
	}
	require.Equal(t, 15, attempts, "one attempt a second before the deadline")
	require.False(t, h.now.Add(time.Second).Before(deadline), "the last refusal came within CancelRetryDelay of the deadline")
	require.Equal(t, core.CancelRequested, h.turn(tid).Cancel)

	// A duplicate receipt of the answered attempt still does not count.
	h.notReady(tid, runID)
	_, ok := h.timerAt(retryTimer)
	require.False(t, ok)
	at, ok := h.timerAt(cancelTimer)
	require.True(t, ok)
	require.Equal(t, deadline, at)
	effs := h.fire(cancelTimer)
	require.Empty(t, sends[wire.PromptCancel](effs))
	require.Equal(t, deadline, h.now)
	v := h.turn(tid)
	require.Equal(t, core.TurnFailed, v.State)
	require.Equal(t, core.CodeCancelUnconfirmed, v.ErrorCode)
	require.Equal(t, "cancel:"+runID+":15", v.CancelDeliveryID)
	for _, tv := range h.m.Timers() {
		require.True(t, tv.Timer != cancelTimer && tv.Timer != retryTimer, "%s outlives the Turn", tv.Timer)
	}
	rec, _ := h.st.Turn(tid)
	require.Equal(t, deadline, rec.CancelDeadline, "the deadline is durable")
}

// TestCancelNotReadyNearTheDeadlineWaitsForIt: a not_ready receipt less
// than CancelRetryDelay before the deadline schedules no retry; the Turn
// fails cancel_unconfirmed at the deadline.
func TestCancelNotReadyNearTheDeadlineWaitsForIt(t *testing.T) {
	h := newRig(t)
	tid, runID := h.starting()
	h.step(core.CancelTurn{Call: "c", Turn: tid})
	deadline := h.now.Add(15 * time.Second)
	h.advance(14*time.Second + 500*time.Millisecond)
	h.notReady(tid, runID)
	_, ok := h.timerAt(core.TimerID("cancel-retry:" + tid))
	require.False(t, ok, "a retry at or past the deadline is not armed")
	require.Equal(t, core.CancelRequested, h.turn(tid).Cancel)
	h.fire(core.TimerID("cancel:" + tid))
	require.Equal(t, deadline, h.now)
	require.Equal(t, core.CodeCancelUnconfirmed, h.turn(tid).ErrorCode)
}
