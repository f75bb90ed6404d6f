package check

import (
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

func TestCapabilityMarksPrepareChoice(t *testing.T) {
	l, w := prepareWorld(testSpec(), allKind())
	lacking := allKind()
	lacking.Capabilities.ToolObservations = wire.CapabilityFromBool(false)
	w.open(2, "d2")
	w.heartbeat(2, "d2", lacking)
	w.coreSends(1, "d1", prepareFrame("p1", "s1", goodConfig("s1")))
	if l.marks[MarkToolObservationsLacking] == 0 {
		t.Fatal("a prepare beside a device lacking tool_observations is not marked")
	}
	if l.marks[MarkRecoveryLacking] != 0 {
		t.Fatal("recovery marked for a Session that needs none")
	}
	// Core choosing the lacking device is the capability oracle's to judge
	w.coreSends(2, "d2", prepareFrame("p2", "s1", goodConfig("s1")))
	wantOnly(t, l, CheckCapability, "lacks tool_observations")
}

func TestCapabilityMarksReadyNoLongerAdmitted(t *testing.T) {
	l, w := prepareWorld(testSpec(), allKind())
	w.coreSends(1, "d1", prepareFrame("p1", "s1", goodConfig("s1")))
	w.deviceSends(1, "d1", statusFrame("p1", wire.PreparationStatus{ExecutorID: "e1", Handle: "h1", Revision: 1, State: wire.StatePreparing}))
	gone := allKind()
	gone.Available = false
	w.heartbeat(1, "d1", gone)
	w.deviceSends(1, "d1", statusFrame("p1", wire.PreparationStatus{ExecutorID: "e1", Handle: "h1", Revision: 2, State: wire.StateReady}))
	if l.marks[MarkReadyNoLongerAdmitted] != 1 {
		t.Fatalf("ready after the kind went unavailable marked %d times", l.marks[MarkReadyNoLongerAdmitted])
	}
	// a start sent anyway breaks the final check
	w.coreSends(1, "d1", startFrame("p1", "h1", "t-1", wire.TextInput("x")))
	wantOnly(t, l, CheckCapability, "does not declare kind")
}

// A heartbeat a hostile middle replays is the declaration Core holds: a
// prepare that follows it is judged against it.
func TestCapabilityReplayedHeartbeatIsCoresSnapshot(t *testing.T) {
	l, w := prepareWorld(testSpec(), allKind())
	gone := allKind()
	gone.Available = false
	w.heartbeat(1, "d1", gone)
	replay := wire.Frame{Payload: wire.Heartbeat{SupportedAgentKinds: []wire.SupportedAgentKind{allKind()}}}
	w.l.Wire(WireEvent{At: w.tick(), Kind: WireDelivered, Conn: 1, From: "d1", To: CoreNode, Raw: []byte("x"), Frame: replay, Forged: true})
	w.coreSends(1, "d1", prepareFrame("p1", "s1", goodConfig("s1")))
	if vs := framesOnly(l.Violations()); len(vs) > 0 {
		t.Fatalf("a prepare after a replayed heartbeat declaring the kind available judged: %v", vs)
	}
	w.heartbeat(1, "d1", gone)
	w.coreSends(1, "d1", prepareFrame("p2", "s1", goodConfig("s1")))
	wantOnly(t, l, CheckCapability, "does not declare kind")
}
