package daemon

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/wire"
)

func cancelAcks(r *rig) []wire.InteractionDecisionAck {
	return payloadsOf[wire.InteractionDecisionAck](r.sent())
}

// TestCancelWaitsForSettlement follows the shared wire scenario: no receipt
// precedes settlement; then done, then the applied receipt with the
// continuity outcome.
func TestCancelWaitsForSettlement(t *testing.T) {
	r := newRig(t)
	turn := r.started("p1", "s1", "run1")
	r.recv("run1", wire.PromptCancel{DeliveryID: "cancel"})
	_, cop := callOf[Cancel](r)
	require.Equal(t, turn, cop.Turn, "cancel the exact turn")
	sc, _ := callOf[AwaitSettlement](r)
	require.Empty(t, r.sent(), "no receipt before settlement")
	outcome := wire.Done{Content: "partial", Metadata: &wire.DoneMetadata{AgentSessionID: "native-session"}}
	r.result(sc, SettleResult{Settled: true, Reusable: true, Outcome: outcome})
	frames := r.sent()
	require.Equal(t, "done,interaction_decision_ack", frameTypes(frames), "done then the receipt")
	done := frames[0].Payload.(wire.Done)
	require.Truef(t, done.Content == "partial" && done.Metadata != nil && done.Metadata.AgentSessionID == "native-session",
		"settled before any native done: done carries the settlement outcome, never an empty one: %+v", done)

	ack := frames[1].Payload.(wire.InteractionDecisionAck)
	require.Truef(t, ack.Applied && ack.DeliveryID == "cancel" && frames[1].ID == "run1", "applied receipt: %+v", ack)
	require.Truef(t, ack.Outcome != nil && ack.Outcome.Content == "partial" && ack.Outcome.Metadata.AgentSessionID == "native-session", "continuity outcome")
}

func TestCancelOnlyTargetsItsTurn(t *testing.T) {
	r := newRig(t)
	a := r.started("pa", "sa", "runA")
	r.started("pb", "sb", "runB")
	r.recv("runA", wire.PromptCancel{})
	cs := r.calls()
	require.Truef(t, len(cs) == 2, "cancel and settle only: %s", describeAll(r.out))
	require.Equal(t, a, cs[0].Op.(Cancel).Turn, "exact turn")
	require.Empty(t, r.sent(), "no receipt without delivery id")
}

func TestCancelSettlementTimeoutProvesNothing(t *testing.T) {
	r := newRig(t)
	turn := r.started("p1", "s1", "run1")
	r.recv("run1", wire.PromptCancel{DeliveryID: "d1"})
	sc, _ := callOf[AwaitSettlement](r)
	at, ok := r.armed(settleWaitTimer(turn))
	require.Truef(t, ok && at.Equal(r.now.Add(10*time.Second)), "10s settlement wait")
	r.fire(settleWaitTimer(turn))
	ack := cancelAcks(r)
	require.Truef(t, len(ack) == 1 && !ack[0].Applied && ack[0].ErrorCode == CodeCancelFailed, "not applied: %s", describeAll(r.out))
	require.Len(t, r.m.Snapshot().Turns, 1, "turn still owned")
	noCall[AwaitSettlement](r)
	r.result(sc, SettleResult{Settled: true, Reusable: true})
	require.Equal(t, "done", frameTypes(r.sent()), "late settlement: done, no applied receipt")
}

func TestCancelCodes(t *testing.T) {
	r := newRig(t)
	r.recv("nope", wire.PromptCancel{DeliveryID: "d"})
	a := cancelAcks(r)
	require.Truef(t, len(a) == 1 && !a[0].Applied && a[0].ErrorCode == CodeRunInactive, "unknown run: %+v", a)
	st := r.ready("p1", "s1")
	r.recv("p1", startFor(st, "run1"))
	c, _ := callOf[StartTurn](r)
	r.recv("run1", wire.PromptCancel{DeliveryID: "d"})
	a = cancelAcks(r)
	require.Truef(t, len(a) == 1 && a[0].ErrorCode == CodeNotReady, "starting: %+v", a)
	noCall[Cancel](r)
	r.result(c, StartResult{Turn: true})
	r.recv("run1", wire.PromptCancel{DeliveryID: "d2"})
	cc, _ := callOf[Cancel](r)
	r.result(cc, CancelResult{Err: "refused"})
	a = cancelAcks(r)
	require.Truef(t, len(a) == 1 && !a[0].Applied && a[0].ErrorCode == CodeCancelFailed, "failed cancel request: %+v", a)
	require.Len(t, r.m.Snapshot().Turns, 1, "turn still owned")
}

func TestCancelAppliedOnlyAfterCloseWhenNotReusable(t *testing.T) {
	r := newRig(t)
	turn := r.started("p1", "s1", "run1")
	r.recv("run1", wire.PromptCancel{DeliveryID: "d"})
	sc, _ := callOf[AwaitSettlement](r)
	r.result(sc, SettleResult{Settled: true, Reusable: false, Reason: "retire"})
	require.Empty(t, r.sent(), "no receipt before the close")
	c, _ := callOf[CloseExecutor](r)
	r.result(c, CloseResult{})
	require.Equal(t, "done,interaction_decision_ack", frameTypes(r.sent()), "after close")
	_ = turn
}
