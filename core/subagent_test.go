package core_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

var (
	saIdentity  = wire.SubagentIdentity{NativeID: "sa-1", ParentNativeID: "root", SourceItemID: "call-1"}
	saLifecycle = wire.SubagentLifecycle{NativeID: "sa-1", EffectID: "e-1", Status: "running"}
	saTurn      = wire.SubagentTurn{NativeID: "sa-1", TurnID: "st-1", Status: "in_progress"}
	saItem      = wire.SubagentItem{NativeID: "sa-1", TurnID: "st-1", ItemID: "i-1", Kind: "message", Payload: []byte(`{"text":"hi"}`)}
)

// multiAgentRunning is rig.running for an Agent with multi_agent enabled
// on a device declaring subagent_observations.
func (h *rig) multiAgentRunning() (tid, runID string) {
	h.t.Helper()
	h.connect("d1", 1, with(baseCaps(), "subagent_observations", wire.CapabilitySupported))
	a := defaultAgent()
	a.MultiAgent = true
	sid := h.session(a)
	h.step(core.SubmitTurn{Call: h.nextCall(), Session: sid, Input: wire.TextInput("hello")})
	_, runID = h.startedOn(1, h.last)
	return "t-1", runID
}

func subagentTypes(v core.TurnView) []string {
	var out []string
	for _, s := range v.Subagents {
		out = append(out, s.Type+" "+s.NativeID+" "+s.TurnID+" "+s.ItemID)
	}
	return out
}

// A multi-agent Turn records its Run's subagent observations in arrival
// order; a stale one (before its identity, an item before its turn, a
// second identity) and anything after done are not recorded.
func TestSubagentObservationsRecordedInOrder(t *testing.T) {
	h := newRig(t)
	tid, run := h.multiAgentRunning()
	h.frame(1, run, saLifecycle) // before its identity
	h.frame(1, run, saIdentity)
	h.frame(1, run, saIdentity) // again
	h.frame(1, run, saLifecycle)
	h.frame(1, run, saItem) // before its turn
	h.frame(1, run, saTurn)
	h.frame(1, run, saItem)
	v := h.turn(tid)
	require.Equal(t, []string{"subagent_identity sa-1  ", "subagent_lifecycle sa-1  ", "subagent_turn sa-1 st-1 ",
		"subagent_item sa-1 st-1 i-1"}, subagentTypes(v), "accepted observations in arrival order")
	require.Equal(t, run, v.Subagents[0].RunID, "recorded under the Run")
	f, err := wire.Decode(v.Subagents[3].Frame)
	require.NoError(t, err)
	require.Equal(t, saItem.Payload, f.Payload.(wire.SubagentItem).Payload, "the frame as reported")
	h.frame(1, run, wire.Done{Content: "ok"})
	h.frame(1, run, wire.SubagentLifecycle{NativeID: "sa-1", Status: "closed"})
	require.Len(t, h.turn(tid).Subagents, 4, "nothing after done")
}

// A Turn whose Agent did not enable multi_agent records none.
func TestSubagentObservationsNotAskedForIgnored(t *testing.T) {
	h := newRig(t)
	_, tid, run := h.running()
	h.frame(1, run, saIdentity)
	h.frame(1, run, saLifecycle)
	require.Empty(t, h.turn(tid).Subagents, "not asked for")
	require.Zero(t, h.turn(tid).Events, "not a run event either")
}

// The freshness rules name why an observation is refused.
func TestSubagentFreshnessErrors(t *testing.T) {
	rec := func(recs []core.SubagentRecord, p wire.Payload) []core.SubagentRecord {
		r, err := core.SubagentRecordOf(recs, "run-1", p)
		require.NoError(t, err)
		return append(recs, r)
	}
	cases := []struct {
		name string
		prev []wire.Payload
		p    wire.Payload
		want error
	}{
		{"lifecycle before identity", nil, saLifecycle, core.ErrSubagentUnidentified},
		{"turn before identity", nil, saTurn, core.ErrSubagentUnidentified},
		{"item before identity", nil, saItem, core.ErrSubagentUnidentified},
		{"identity twice", []wire.Payload{saIdentity}, saIdentity, core.ErrSubagentIdentified},
		{"item before its turn", []wire.Payload{saIdentity}, saItem, core.ErrSubagentTurnUnknown},
		{"item of another turn", []wire.Payload{saIdentity, wire.SubagentTurn{NativeID: "sa-1", TurnID: "st-2", Status: "completed"}}, saItem, core.ErrSubagentTurnUnknown},
		{"the same lifecycle again", []wire.Payload{saIdentity, saLifecycle}, saLifecycle, core.ErrSubagentDuplicate},
		{"the same item again", []wire.Payload{saIdentity, saTurn, saItem}, saItem, core.ErrSubagentDuplicate},
		{"item without payload", []wire.Payload{saIdentity, saTurn}, wire.SubagentItem{NativeID: "sa-1", TurnID: "st-1", ItemID: "i", Kind: "k"}, wire.ErrMissingField},
	}
	for _, c := range cases {
		var recs []core.SubagentRecord
		for _, p := range c.prev {
			recs = rec(recs, p)
		}
		_, err := core.SubagentRecordOf(recs, "run-1", c.p)
		require.ErrorIsf(t, err, c.want, "%s", c.name)
	}
	// Another Run's identity does not identify a subagent of this one;
	// a completed subagent turn is not a closed subagent: its next turn
	// is taken.
	recs := rec(nil, saIdentity)
	_, err := core.SubagentRecordOf(recs, "run-2", saLifecycle)
	require.ErrorIs(t, err, core.ErrSubagentUnidentified, "identity of another run")
	recs = rec(recs, wire.SubagentTurn{NativeID: "sa-1", TurnID: "st-1", Status: "completed"})
	recs = rec(recs, wire.SubagentTurn{NativeID: "sa-1", TurnID: "st-2", Status: "in_progress"})
	require.Len(t, recs, 3, "a second turn after a completed one")
}
