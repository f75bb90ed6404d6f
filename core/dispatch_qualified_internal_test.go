package core

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core/engine"
	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
	"github.com/turnstile-sim/turnstile/wire"
)

// TestFinalCheckRequalifies: the engine policy is read again at the final
// check before a Turn is claimed. A kind the policy stops qualifying
// between device selection and the ready preparation fails the Turn
// capability_unsupported, releases the preparation, and never sends
// execution_start.
func TestFinalCheckRequalifies(t *testing.T) {
	open := enginetest.OpenPolicy("contract")
	m := New(Config{Policy: open}, newMemStore())
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	step := func(ev Event) []Effect { return m.Step(now, ev) }
	caps := wire.AllCapabilities(wire.CapabilitySupported)
	step(ConnOpened{Device: "d1", Conn: 1})
	step(FrameReceived{Conn: 1, Frame: wire.Frame{Payload: wire.Heartbeat{TS: 1,
		SupportedAgentKinds: []wire.SupportedAgentKind{{Kind: "contract", Available: true, Capabilities: caps}}}}})
	var sid, tid string
	for _, e := range step(CreateSession{Call: "c1", Agent: AgentConfig{Kind: "contract", Model: "m", Environment: EnvNone}}) {
		if r, ok := e.(APIResult); ok {
			sid = r.Value.(SessionCreated).Session
		}
	}
	var prepID string
	for _, e := range step(SubmitTurn{Call: "c2", Session: sid, Input: wire.TextInput("x")}) {
		if r, ok := e.(APIResult); ok {
			tid = r.Value.(TurnSubmitted).Turn
		}
		if s, ok := e.(Send); ok {
			if _, ok := s.Frame.Payload.(wire.ExecutionPrepare); ok {
				prepID = s.Frame.ID
			}
		}
	}
	require.NotEqualf(t, "", sid, "session %q, turn %q, preparation %q", sid, tid, prepID)
	require.NotEqualf(t, "", tid, "session %q, turn %q, preparation %q", sid, tid, prepID)
	require.NotEqualf(t, "", prepID, "session %q, turn %q, preparation %q", sid, tid, prepID)
	// The operator disables the kind: only another kind stays qualified.
	other := engine.For(engine.NewCatalog(enginetest.TextOnly("other")))
	m.cfg.Policy = &other
	status := func(rev uint64, state string) []Effect {
		return step(FrameReceived{Conn: 1, Frame: wire.Frame{ID: prepID, Payload: wire.PreparationStatus{
			ExecutorID: "exec-1", Handle: "h-1", Revision: rev, State: state, ExpiresAt: 1}}})
	}
	status(1, wire.StatePreparing)
	var released bool
	for _, e := range status(2, wire.StateReady) {
		if s, ok := e.(Send); ok {
			switch s.Frame.Payload.(type) {
			case wire.ExecutionStart:
				require.Fail(t, "execution_start sent for a kind no longer qualified")
			case wire.ExecutionRelease:
				released = true
			}
		}
	}
	v, _ := m.Turn(tid)
	require.Truef(t, released &&
		v.State == TurnFailed &&
		v.ErrorCode == CodeCapabilityUnsupported &&
		strings.Contains(v.ErrorDetail, "engine_unqualified") &&
		v.RunID == "", "released %v, turn %+v", released, v)
}
