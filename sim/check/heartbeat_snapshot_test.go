package check

import (
	"errors"
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

func validHeartbeat() wire.Heartbeat {
	return wire.Heartbeat{SupportedAgentKinds: []wire.SupportedAgentKind{{Kind: "k", Available: true,
		Capabilities: wire.AllCapabilities(wire.CapabilitySupported)}}}
}

func badHeartbeat(at int64, conn uint64) WireEvent {
	return WireEvent{At: at, Kind: WireDelivered, Conn: conn, From: "d1", To: "core",
		Raw: []byte(`{"type":"heartbeat"}`), DecodeErr: &wire.DecodeError{Type: wire.TypeHeartbeat, Err: errors.New("bad ts")}}
}

func prepare(at int64, conn uint64) WireEvent {
	return wf(at, WireSent, conn, "core", "d1", "p1", wire.ExecutionPrepare{SessionID: "s"})
}

func coreCloses(at int64, conn uint64) WireEvent {
	return WireEvent{At: at, Kind: WireClosed, Conn: conn, From: "core", To: "core"}
}

func TestPrepareAfterValidHeartbeatIsClean(t *testing.T) {
	l := NewLedger()
	l.Wire(wf(1, WireDelivered, 1, "d1", "core", "", validHeartbeat()))
	l.Wire(prepare(2, 1))
	only(t, l, "", "")
}

func TestPrepareBeforeAnyHeartbeat(t *testing.T) {
	l := NewLedger()
	l.Wire(prepare(2, 1))
	only(t, l, CheckHeartbeatSnapshot, "before any valid heartbeat")
}

func TestInvalidHeartbeatClosedAtOnceIsClean(t *testing.T) {
	l := NewLedger()
	l.Wire(wf(1, WireDelivered, 1, "d1", "core", "", validHeartbeat()))
	l.Wire(badHeartbeat(2, 1))
	l.Wire(coreCloses(2, 1))
	l.Wire(wf(3, WireDelivered, 2, "d1", "core", "", validHeartbeat()))
	l.Wire(prepare(4, 2))
	only(t, l, "", "")
}

func TestInvalidHeartbeatLeftOpen(t *testing.T) {
	l := NewLedger()
	l.Wire(wf(1, WireDelivered, 1, "d1", "core", "", validHeartbeat()))
	l.Wire(badHeartbeat(2, 1))
	l.Wire(WireEvent{At: 3, Kind: WireOpened, Conn: 9, From: "x", To: "y"})
	only(t, l, CheckHeartbeatSnapshot, "kept conn c1 of d1 open")
}

func TestDispatchAfterInvalidHeartbeat(t *testing.T) {
	l := NewLedger()
	l.Wire(wf(1, WireDelivered, 1, "d1", "core", "", validHeartbeat()))
	l.Wire(badHeartbeat(2, 1))
	l.Wire(prepare(2, 1))
	only(t, l, CheckHeartbeatSnapshot, "after an invalid heartbeat")
}

func TestSnapshotDoesNotCarryToNewConnection(t *testing.T) {
	l := NewLedger()
	l.Wire(wf(1, WireDelivered, 1, "d1", "core", "", validHeartbeat()))
	l.Wire(badHeartbeat(2, 1))
	l.Wire(coreCloses(2, 1))
	l.Wire(prepare(5, 2))
	only(t, l, CheckHeartbeatSnapshot, "conn c2 before any valid heartbeat")
}

func TestDuplicateKindHeartbeatIsInvalid(t *testing.T) {
	hb := validHeartbeat()
	hb.SupportedAgentKinds = append(hb.SupportedAgentKinds, hb.SupportedAgentKinds[0])
	l := NewLedger()
	l.Wire(wf(1, WireDelivered, 1, "d1", "core", "", hb))
	l.Wire(prepare(1, 1))
	only(t, l, CheckHeartbeatSnapshot, "after an invalid heartbeat")
}
