package daemon

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/turnstile-sim/turnstile/wire"
)

func subagentFrames() []wire.Payload {
	return []wire.Payload{
		wire.SubagentIdentity{NativeID: "sa-1", ParentNativeID: "root"},
		wire.SubagentLifecycle{NativeID: "sa-1", Status: "running"},
		wire.SubagentTurn{NativeID: "sa-1", TurnID: "t-1", Status: "in_progress"},
		wire.SubagentItem{NativeID: "sa-1", TurnID: "t-1", ItemID: "i-1", Kind: "message", Payload: []byte(`{}`)},
	}
}

// Subagent observations are Run output of a Turn whose configuration
// asked for them (observe_subagent_identities, declared
// subagent_observations): forwarded in order with the Run ID, never after
// the native terminal result.
func TestSubagentObservationsForwardedWhenAsked(t *testing.T) {
	cfg := testConfig()
	cfg.Kinds[0].Capabilities.SubagentObservations = wire.CapabilitySupported
	r := newRigWith(t, cfg)
	p := prepareFor("s1")
	p.Configuration.ObserveSubagentIdentities = true
	r.recv("p1", p)
	c, _ := callOf[Prepare](r)
	r.result(c, PrepareResult{})
	st := oneStatus(r)
	require.Equal(t, wire.StateReady, st.State, "prepared")
	r.recv("p1", startFor(st, "run1"))
	sc, op := callOf[StartTurn](r)
	r.result(sc, StartResult{Turn: true})
	var frames []wire.Frame
	for _, ev := range subagentFrames() {
		r.step(NativeTurnEvent{Turn: op.Turn, Event: ev})
		frames = append(frames, r.sent()...)
	}
	require.Equal(t, "subagent_identity,subagent_lifecycle,subagent_turn,subagent_item", frameTypes(frames), "forwarded in native order")
	for _, f := range frames {
		require.Equal(t, "run1", f.ID, "Envelope.id is the Run ID")
	}
	r.step(NativeTurnEvent{Turn: op.Turn, Event: wire.Done{Content: "ok"}})
	r.step(NativeTurnEvent{Turn: op.Turn, Event: wire.SubagentLifecycle{NativeID: "sa-1", Status: "closed"}})
	require.Empty(t, r.sent(), "nothing after the native terminal result")
}

// A Turn whose configuration did not ask for subagent observations never
// forwards them.
func TestSubagentObservationsDroppedUnlessAsked(t *testing.T) {
	r := newRig(t)
	turn := r.started("p1", "s1", "run1")
	for _, ev := range subagentFrames() {
		r.step(NativeTurnEvent{Turn: turn, Event: ev})
		require.Empty(t, r.sent(), "not asked for: dropped")
	}
	r.step(NativeTurnEvent{Turn: turn, Event: wire.Delta{Delta: "a", Sequence: 1}})
	require.Equal(t, "delta", frameTypes(r.sent()), "other output still flows")
}
