package daemon

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/wire"
)

// A cancelled Turn whose settlement arrives before any native terminal
// result: done is built from the settlement's continuity outcome (never an
// empty, fabricated one), matches the applied receipt, and native output
// arriving afterwards is dropped.
func TestSettlementBeforeNativeDoneBuildsDoneFromOutcome(t *testing.T) {
	r := newRig(t)
	turn := r.started("p1", "s1", "run1")
	r.step(NativeTurnEvent{Turn: turn, Event: wire.Delta{Delta: "par", Sequence: 1}})
	require.Equal(t, "delta", frameTypes(r.sent()), "output forwarded")
	r.recv("run1", wire.PromptCancel{DeliveryID: "d1"})
	sc, _ := callOf[AwaitSettlement](r)
	u := wire.Usage{Tokens: &wire.TokenUsage{InputTokens: 3, OutputTokens: 4, TotalTokens: 7}}
	outcome := wire.Done{Content: "partial", Usage: &u, Metadata: &wire.DoneMetadata{AgentSessionID: "native-1"}}
	r.result(sc, SettleResult{Settled: true, Reusable: true, Outcome: outcome})
	frames := r.sent()
	require.Equal(t, "done,interaction_decision_ack", frameTypes(frames), "done then the applied receipt")
	done := frames[0].Payload.(wire.Done)
	require.Truef(t, done.Content == "partial", "done content from the settlement, got %q", done.Content)
	require.Truef(t, done.Usage != nil && *done.Usage.Tokens == *u.Tokens, "done usage from the settlement: %+v", done.Usage)
	require.Truef(t, done.Metadata != nil && done.Metadata.AgentSessionID == "native-1", "done metadata from the settlement: %+v", done.Metadata)
	ack := frames[1].Payload.(wire.InteractionDecisionAck)
	require.Truef(t, ack.Applied && ack.Outcome != nil && ack.Outcome.Content == done.Content, "receipt and done agree: %+v", ack)
	require.Equal(t, "native-1", r.m.Snapshot().Executors[0].NativeSession, "continuity committed from the settlement")
	r.step(NativeTurnEvent{Turn: turn, Event: wire.Delta{Delta: "tial", Sequence: 2}})
	r.step(NativeTurnEvent{Turn: turn, Event: wire.Done{Content: "partial"}})
	require.Empty(t, r.out, "native output after settlement is dropped")
}

// A Turn that errors at start and settles without a native terminal
// result still publishes error, then done with the settlement's outcome.
func TestStartErrorDoneCarriesSettlementOutcome(t *testing.T) {
	r := newRig(t)
	st := r.ready("p1", "s1")
	r.recv("p1", startFor(st, "run1"))
	c, _ := callOf[StartTurn](r)
	r.result(c, StartResult{Turn: true, Err: "boom"})
	sc, _ := callOf[AwaitSettlement](r)
	r.result(sc, SettleResult{Settled: true, Reusable: true, Outcome: wire.Done{Content: "so far"}})
	dones := payloadsOf[wire.Done](r.sent())
	require.Truef(t, len(dones) == 1 && dones[0].Content == "so far", "done from the settlement: %s", describeAll(r.out))
}

// Native events after the settlement (while the Turn still waits for its
// required close) and after the native terminal result are dropped: the
// output is closed and never reopened.
func TestNativeEventsAfterOutputClosedAreDropped(t *testing.T) {
	r := newRig(t)
	turn := r.started("p1", "s1", "run1")
	r.step(NativeTurnEvent{Turn: turn, Event: wire.Done{Content: "final"}})
	sc, _ := callOf[AwaitSettlement](r)
	r.step(NativeTurnEvent{Turn: turn, Event: wire.Delta{Delta: "after done"}})
	r.step(NativeTurnEvent{Turn: turn, Event: wire.Done{Content: "second"}})
	require.Empty(t, r.out, "nothing after the native terminal result")
	r.result(sc, SettleResult{Settled: true, Reusable: false, Outcome: wire.Done{Content: "final"}})
	cc, _ := callOf[CloseExecutor](r)
	r.step(NativeTurnEvent{Turn: turn, Event: wire.Delta{Delta: "after settlement"}})
	r.step(NativeTurnEvent{Turn: turn, Event: wire.UsageUpdate{Usage: wire.Usage{Tokens: &wire.TokenUsage{TotalTokens: 99}}}})
	require.Empty(t, r.out, "nothing after settlement")
	r.result(cc, CloseResult{})
	dones := payloadsOf[wire.Done](r.sent())
	require.Truef(t, len(dones) == 1 && dones[0].Content == "final" && dones[0].Usage == nil, "one done, the first native result: %s", describeAll(r.out))
	var deltas int
	for _, f := range r.allSent() {
		if _, ok := f.Payload.(wire.Delta); ok {
			deltas++
		}
	}
	require.Equal(t, 0, deltas, "no late delta ever sent")
}

// A Turn settled before its native terminal result, still waiting for a
// required close: late native events are dropped and done is the
// settlement's outcome.
func TestNativeEventsAfterSettlementBeforeDoneAreDropped(t *testing.T) {
	r := newRig(t)
	turn := r.started("p1", "s1", "run1")
	r.recv("run1", wire.PromptCancel{})
	sc, _ := callOf[AwaitSettlement](r)
	r.result(sc, SettleResult{Settled: true, Reusable: false, Outcome: wire.Done{Content: "settled"}})
	cc, _ := callOf[CloseExecutor](r)
	r.step(NativeTurnEvent{Turn: turn, Event: wire.Delta{Delta: "late"}})
	r.step(NativeTurnEvent{Turn: turn, Event: wire.Done{Content: "late done"}})
	require.Empty(t, r.out, "late native output dropped")
	r.result(cc, CloseResult{})
	dones := payloadsOf[wire.Done](r.sent())
	require.Truef(t, len(dones) == 1 && dones[0].Content == "settled", "done from the settlement: %s", describeAll(r.out))
}
