package check

import (
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

const (
	rtEnv   = "00000000-0000-4000-8000-000000001001"
	rtOther = "00000000-0000-4000-8000-000000009999"
)

// rtRig is a daemon d1 on connection 1 whose kind may lack workspace
// support, with a started Run r1 of prep p1 bound to rtEnv.
func rtRig(lacking bool) *Ledger {
	l := NewLedger()
	caps := wire.AllCapabilities(wire.CapabilitySupported)
	if lacking {
		caps.WorkspaceReadPreparation = wire.CapabilityUnsupported
	}
	l.Wire(wev(WireSent, 0, 1, wsDev, CoreNode, "", wire.Heartbeat{TS: 1, SupportedAgentKinds: []wire.SupportedAgentKind{
		{Kind: "k", Available: true, Capabilities: caps}}}))
	l.Wire(wev(WireDelivered, time.Millisecond, 1, CoreNode, wsDev, "p1", wire.ExecutionPrepare{SessionID: "s-1",
		Configuration: wire.ExecutionConfiguration{AgentKind: "k", LocalEnvironment: &wire.LocalEnvironment{ID: rtEnv}}}))
	l.Wire(wev(WireSent, 2*time.Millisecond, 1, wsDev, CoreNode, "p1", wire.PreparationStatus{Handle: "h1", ExecutorID: "e1",
		Revision: 3, State: wire.StateStarted, RunID: "r1"}))
	return l
}

func readFrame(l *Ledger, at time.Duration, id, env string) {
	l.Wire(wev(WireDelivered, at, 1, CoreNode, wsDev, id, wire.WorkspaceRead{RunID: "r1", EnvironmentID: env, Path: "a.txt", MaxBytes: 8}))
}

func rtAnswer(l *Ledger, at time.Duration, id string, r wire.WorkspaceReadResult) {
	l.Wire(wev(WireSent, at, 1, wsDev, CoreNode, id, r))
}

var (
	rtServed  = wire.WorkspaceReadResult{Outcome: wire.OutcomeCompleted, CloseAcknowledged: true, Data: []byte("x")}
	rtUnknown = wire.WorkspaceReadResult{Outcome: wire.OutcomeUnknown, ErrorCode: wire.ReadUnconfirmed}
)

func rtRefused(code string) wire.WorkspaceReadResult {
	return wire.WorkspaceReadResult{Outcome: wire.OutcomeRejected, ErrorCode: code}
}

// TestReadEnvironmentRule: a read naming another Environment than its
// Run's frozen one is refused invalid_request; served, or refused with
// another code, it is a violation.
func TestReadEnvironmentRule(t *testing.T) {
	l := rtRig(false)
	readFrame(l, time.Second, "o1", rtOther)
	rtAnswer(l, time.Second, "o1", rtRefused(wire.ReadInvalidRequest))
	readFrame(l, 2*time.Second, "o2", rtEnv)
	rtAnswer(l, 2*time.Second, "o2", rtServed)
	wantClean(t, l)
	for _, bad := range []wire.WorkspaceReadResult{rtServed, rtRefused(wire.ReadNotFound), rtUnknown} {
		l = rtRig(false)
		readFrame(l, time.Second, "o1", rtOther)
		rtAnswer(l, time.Second, "o1", bad)
		wantViolation(t, l, CheckReadEnvironment, "another Environment")
	}
}

// TestReadAfterUnknownRule: once a read of an owner was answered
// unknown, a later read of it is refused resource_unavailable; reads
// that arrived before the unknown answer are not bound by it.
func TestReadAfterUnknownRule(t *testing.T) {
	l := rtRig(false)
	readFrame(l, time.Second, "o1", rtEnv)
	readFrame(l, time.Second, "o2", rtEnv) // already pending when o1 turns unknown
	rtAnswer(l, 2*time.Second, "o1", rtUnknown)
	rtAnswer(l, 2*time.Second, "o2", rtServed)
	readFrame(l, 3*time.Second, "o3", rtEnv)
	rtAnswer(l, 3*time.Second, "o3", rtRefused(wire.ReadResourceUnavail))
	wantClean(t, l)
	readFrame(l, 4*time.Second, "o4", rtEnv)
	rtAnswer(l, 4*time.Second, "o4", rtServed)
	wantViolation(t, l, CheckReadAfterUnknown, "answered unknown")

	// a restarted daemon mints executor IDs afresh: its e1 is another owner
	l = rtRig(false)
	readFrame(l, time.Second, "o1", rtEnv)
	rtAnswer(l, time.Second, "o1", rtUnknown)
	l.NodeCrashed(ns(2*time.Second), wsDev)
	readFrame(l, 3*time.Second, "o2", rtEnv)
	rtAnswer(l, 3*time.Second, "o2", rtServed)
	wantClean(t, l)
}

// TestReadUnsupportedRule: a Run whose kind declares no workspace
// support is never read: read_unsupported, whatever its Environment.
func TestReadUnsupportedRule(t *testing.T) {
	l := rtRig(true)
	readFrame(l, time.Second, "o1", rtOther)
	rtAnswer(l, time.Second, "o1", rtRefused(wire.ReadUnsupported))
	wantClean(t, l)
	l = rtRig(true)
	readFrame(l, time.Second, "o1", rtOther)
	rtAnswer(l, time.Second, "o1", rtRefused(wire.ReadInvalidRequest))
	wantViolation(t, l, CheckReadUnsupported, "serves no workspace")
}

// TestWriteExclusionRule: a begin for the Environment of a Turn that
// runs (started, not settled natively) is never answered ready; once the
// Harness settled the Turn it may be.
func TestWriteExclusionRule(t *testing.T) {
	begin := func(l *Ledger, at time.Duration, id string) {
		l.Wire(wev(WireDelivered, at, 1, CoreNode, wsDev, id, wire.WorkspaceWrite{Step: wire.StepBegin, EnvironmentID: rtEnv,
			SessionID: rtOther, Path: "f", SizeBytes: 1, SHA256: wire.SHA256Hex([]byte("x"))}))
	}
	l := rtRig(false)
	begin(l, time.Second, "w1")
	writeAnswer(l, time.Second, "w1", wire.WorkspaceWriteResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.WriteResourceUnavail})
	l.TurnSettled(ns(2*time.Second), "r1", "completed")
	begin(l, 3*time.Second, "w2")
	writeAnswer(l, 3*time.Second, "w2", wsReady)
	wantClean(t, l)
	l = rtRig(false)
	begin(l, time.Second, "w1")
	writeAnswer(l, time.Second, "w1", wsReady)
	wantViolation(t, l, CheckWriteExclusion, "while a Turn bound to it ran")
}
