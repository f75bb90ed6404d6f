package daemon

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/wire"
)

// A shutdown cancels a running Turn on the daemon's own account: the
// partial result is published, but behind an error frame, so the stream
// never reads as a completed Turn, whether the Harness settles without a
// terminal result or closes its cancelled stream with done.
func TestShutdownInterruptedTurnIsNeverPlainDone(t *testing.T) {
	for _, nativeDone := range []bool{false, true} {
		r := newRig(t)
		turn := r.started("p1", "s1", "run1")
		r.step(NativeTurnEvent{Turn: turn, Event: wire.Delta{Delta: "par", Sequence: 1}})
		r.step(ShutdownRequested{Reason: "stop"})
		callOf[Cancel](r)
		sc, _ := callOf[AwaitSettlement](r)
		if nativeDone {
			r.step(NativeTurnEvent{Turn: turn, Event: wire.Done{Content: "par"}})
		}
		r.result(sc, SettleResult{Settled: true, Reusable: true, Outcome: wire.Done{Content: "par"}})
		frames := r.sent()
		require.Equal(t, "error,done", frameTypes(frames), "error then done")
		require.Truef(t, frames[0].ID == "run1" && frames[0].Payload.(wire.RunError).Error == InterruptedError,
			"interrupted error on the Run: %+v", frames[0])
		require.Equal(t, "par", frames[1].Payload.(wire.Done).Content, "partial content kept")
	}
}

// A Turn whose Harness published its terminal result before the shutdown
// completed: done stands alone.
func TestShutdownAfterNativeDoneKeepsCompletion(t *testing.T) {
	r := newRig(t)
	turn := r.started("p1", "s1", "run1")
	r.step(NativeTurnEvent{Turn: turn, Event: wire.Done{Content: "all"}})
	sc, _ := callOf[AwaitSettlement](r)
	r.step(ShutdownRequested{Reason: "stop"})
	r.result(sc, SettleResult{Settled: true, Reusable: true, Outcome: wire.Done{Content: "all"}})
	require.Equal(t, "done", frameTypes(r.sent()), "completed Turn")
}

// A Turn Core is cancelling keeps the receipt's word: done and the
// applied receipt, no error frame.
func TestShutdownDuringCoreCancelAnswersTheReceipt(t *testing.T) {
	r := newRig(t)
	turn := r.started("p1", "s1", "run1")
	r.recv("run1", wire.PromptCancel{DeliveryID: "cancel:run1"})
	sc, _ := callOf[AwaitSettlement](r)
	r.step(ShutdownRequested{Reason: "stop"})
	_ = turn
	r.result(sc, SettleResult{Settled: true, Reusable: true, Outcome: wire.Done{Content: "p"}})
	frames := r.sent()
	require.Equal(t, "done,interaction_decision_ack", frameTypes(frames), "done then the receipt")
	require.Truef(t, frames[1].Payload.(wire.InteractionDecisionAck).Applied, "applied receipt")
}

// A start that resolves after the shutdown began is cancelled at once and
// interrupted as well.
func TestShutdownBeforeStartResolvesInterrupts(t *testing.T) {
	r := newRig(t)
	st := r.ready("p1", "s1")
	r.recv("p1", startFor(st, "run1"))
	c, _ := callOf[StartTurn](r)
	r.step(ShutdownRequested{Reason: "stop"})
	r.result(c, StartResult{Turn: true})
	callOf[Cancel](r)
	sc, _ := callOf[AwaitSettlement](r)
	r.result(sc, SettleResult{Settled: true, Reusable: true})
	require.Equal(t, "error,done", frameTypes(r.sent()), "error then done")
}
