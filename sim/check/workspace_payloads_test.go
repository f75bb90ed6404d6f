package check

import (
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

func wsToDaemon(l *Ledger, at time.Duration, id string, p wire.Payload) {
	l.Wire(wev(WireDelivered, at, 1, CoreNode, wsDev, id, p))
}

func wsFromDaemon(l *Ledger, at time.Duration, id string, p wire.Payload) {
	l.Wire(wev(WireSent, at, 1, wsDev, CoreNode, id, p))
}

// TestReadResultFieldsRule: a completed byte read holds at most
// max_bytes and is truncated only with exactly max_bytes.
func TestReadResultFieldsRule(t *testing.T) {
	for _, c := range []struct {
		data      string
		truncated bool
		bad       string
	}{
		{"abc", false, ""},
		{"abcdefgh", true, ""},
		{"abcdefgh", false, ""},
		{"abc", true, "fewer than its max_bytes"},
		{"abcdefghi", true, "beyond its max_bytes"},
	} {
		l := rtRig(false)
		readFrame(l, time.Second, "o1", rtEnv)
		rtAnswer(l, time.Second, "o1", wire.WorkspaceReadResult{Outcome: wire.OutcomeCompleted, CloseAcknowledged: true,
			Data: []byte(c.data), Truncated: c.truncated})
		if c.bad == "" {
			wantClean(t, l)
			continue
		}
		wantViolation(t, l, CheckWorkspaceResultFields, c.bad)
	}
}

// TestWriteResultFieldsRule: received carries the new end offset and
// completed the begin's size_bytes.
func TestWriteResultFieldsRule(t *testing.T) {
	body := []byte("hello")
	begin := wire.WorkspaceWrite{Step: wire.StepBegin, EnvironmentID: rtEnv, SessionID: rtEnv, Path: "a.txt",
		SizeBytes: int64(len(body)), SHA256: wire.SHA256Hex(body)}
	run := func(received, size int64) *Ledger {
		l := NewLedger()
		wsToDaemon(l, time.Second, "w1", begin)
		wsFromDaemon(l, time.Second, "w1", wire.WorkspaceWriteResult{Outcome: wire.OutcomeReady})
		wsToDaemon(l, 2*time.Second, "w1", wire.WorkspaceWrite{Step: wire.StepChunk, Offset: 0, Data: body[:2]})
		wsFromDaemon(l, 2*time.Second, "w1", wire.WorkspaceWriteResult{Outcome: wire.OutcomeReceived, Offset: 2})
		wsToDaemon(l, 3*time.Second, "w1", wire.WorkspaceWrite{Step: wire.StepChunk, Offset: 2, Data: body[2:]})
		wsFromDaemon(l, 3*time.Second, "w1", wire.WorkspaceWriteResult{Outcome: wire.OutcomeReceived, Offset: received})
		wsToDaemon(l, 4*time.Second, "w1", wire.WorkspaceWrite{Step: wire.StepCommit})
		wsFromDaemon(l, 5*time.Second, "w1", wire.WorkspaceWriteResult{Outcome: wire.OutcomeCompleted, SizeBytes: size})
		return l
	}
	wantClean(t, run(5, 5))
	wantViolation(t, run(2, 5), CheckWorkspaceResultFields, "the chunk it answers ends at 5")
	wantViolation(t, run(5, 0), CheckWorkspaceResultFields, "its begin declared 5")
}

// TestTransferDroppedRule: after the daemon refused a transfer, a later
// chunk of it is refused too; a new begin answered ready starts afresh.
func TestTransferDroppedRule(t *testing.T) {
	begin := wire.WorkspaceWrite{Step: wire.StepBegin, EnvironmentID: rtEnv, SessionID: rtEnv, Path: "a.txt",
		SizeBytes: 4, SHA256: wire.SHA256Hex([]byte("abcd"))}
	run := func(late wire.WorkspaceWriteResult, again bool) *Ledger {
		l := NewLedger()
		wsToDaemon(l, time.Second, "w1", begin)
		wsFromDaemon(l, time.Second, "w1", wire.WorkspaceWriteResult{Outcome: wire.OutcomeReady})
		wsToDaemon(l, 2*time.Second, "w1", wire.WorkspaceWrite{Step: wire.StepChunk, Offset: 2, Data: []byte("cd")})
		wsFromDaemon(l, 2*time.Second, "w1", wire.WorkspaceWriteResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.WriteInvalidRequest})
		if again {
			wsToDaemon(l, 3*time.Second, "w1", begin)
			wsFromDaemon(l, 3*time.Second, "w1", wire.WorkspaceWriteResult{Outcome: wire.OutcomeReady})
		}
		wsToDaemon(l, 4*time.Second, "w1", wire.WorkspaceWrite{Step: wire.StepChunk, Offset: 0, Data: []byte("abcd")})
		wsFromDaemon(l, 4*time.Second, "w1", late)
		return l
	}
	received := wire.WorkspaceWriteResult{Outcome: wire.OutcomeReceived, Offset: 4}
	wantClean(t, run(wire.WorkspaceWriteResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.WriteInvalidRequest}, false))
	wantClean(t, run(received, true))
	wantViolation(t, run(received, false), CheckTransferDropped, "after refusing its transfer")
}

// TestExportResultFieldsRule: chunk offsets are the bytes sent before
// each chunk; completed carries the total.
func TestExportResultFieldsRule(t *testing.T) {
	run := func(second, total int64) *Ledger {
		l := NewLedger()
		wsToDaemon(l, time.Second, "x1", wire.WorkspaceExport{Step: wire.StepBegin, Handle: "h1", EnvironmentID: rtEnv})
		wsFromDaemon(l, time.Second, "x1", wire.WorkspaceExportResult{Outcome: wire.OutcomeChunk, Offset: 0, Data: []byte("abc")})
		wsToDaemon(l, 2*time.Second, "x1", wire.WorkspaceExport{Step: wire.StepNext, Offset: 3})
		wsFromDaemon(l, 2*time.Second, "x1", wire.WorkspaceExportResult{Outcome: wire.OutcomeChunk, Offset: second, Data: []byte("de")})
		wsToDaemon(l, 3*time.Second, "x1", wire.WorkspaceExport{Step: wire.StepNext, Offset: 5})
		wsFromDaemon(l, 3*time.Second, "x1", wire.WorkspaceExportResult{Outcome: wire.OutcomeCompleted, Offset: total})
		return l
	}
	wantClean(t, run(3, 5))
	wantViolation(t, run(5, 5), CheckWorkspaceResultFields, "a chunk at offset 5 after sending 3 bytes")
	wantViolation(t, run(3, 3), CheckWorkspaceResultFields, "completed at offset 3 after sending 5 bytes")
}

// declRig is rtRig with a read-only profile p2 (handle h2) of a kind
// whose declaration supports reads and, or not, exports.
func declRig(readOK, exportOK bool) *Ledger {
	l := NewLedger()
	l.Wire(WireEvent{Kind: WireOpened, Conn: 1, From: wsDev, To: CoreNode})
	caps := wire.AllCapabilities(wire.CapabilitySupported)
	if !readOK {
		caps.WorkspaceReadPreparation = wire.CapabilityUnsupported
	}
	if !exportOK {
		caps.WorkspaceOutputExport = wire.CapabilityUnsupported
	}
	hb := wire.Heartbeat{TS: 1, SupportedAgentKinds: []wire.SupportedAgentKind{{Kind: "k", Available: true, Capabilities: caps}}}
	l.Wire(wev(WireSent, 0, 1, wsDev, CoreNode, "", hb))
	l.Wire(wev(WireDelivered, 0, 1, wsDev, CoreNode, "", hb))
	wsToDaemon(l, time.Millisecond, "p2", wire.ExecutionPrepare{SessionID: "s-1", Configuration: wire.ExecutionConfiguration{
		AgentKind: "k", WorkspaceReadOnly: true, AgentStateKey: "session:s-1", StrictResume: true, ReleaseOnCompletion: true, LocalEnvironment: &wire.LocalEnvironment{ID: rtEnv}}})
	wsFromDaemon(l, 2*time.Millisecond, "p2", wire.PreparationStatus{Handle: "h2", Revision: 1, State: wire.StateReady})
	return l
}

// TestWorkspaceDeclarationRule: reads go by workspace_read_preparation,
// exports by workspace_output_export, each independently.
func TestWorkspaceDeclarationRule(t *testing.T) {
	read := wire.WorkspaceRead{Handle: "h2", EnvironmentID: rtEnv, Path: "a.txt", MaxBytes: 8}
	export := wire.WorkspaceExport{Step: wire.StepBegin, Handle: "h2", EnvironmentID: rtEnv}
	unsupported := wire.WorkspaceExportResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.ReadUnsupported}
	chunk := wire.WorkspaceExportResult{Outcome: wire.OutcomeChunk, Data: []byte("a")}

	l := declRig(true, false)
	wsToDaemon(l, time.Second, "o1", read)
	rtAnswer(l, time.Second, "o1", rtServed)
	wsToDaemon(l, 2*time.Second, "x1", export)
	wsFromDaemon(l, 2*time.Second, "x1", unsupported)
	wantClean(t, l)

	l = declRig(true, false)
	wsToDaemon(l, 2*time.Second, "x1", export)
	wsFromDaemon(l, 2*time.Second, "x1", chunk)
	wantViolation(t, l, CheckWorkspaceDeclaration, "declares workspace_output_export unsupported")

	l = declRig(true, false)
	wsToDaemon(l, time.Second, "o1", read)
	rtAnswer(l, time.Second, "o1", rtRefused(wire.ReadUnsupported))
	wantViolation(t, l, CheckWorkspaceDeclaration, "declares workspace_read_preparation")

	l = declRig(true, true)
	wsToDaemon(l, 2*time.Second, "x1", export)
	wsFromDaemon(l, 2*time.Second, "x1", unsupported)
	wantViolation(t, l, CheckWorkspaceDeclaration, "refused export x1 read_unsupported")

	l = declRig(true, false)
	l.Wire(wev(WireSent, 2*time.Second, 1, CoreNode, wsDev, "x1", export))
	wantViolation(t, l, CheckWorkspaceDeclaration, "lacks workspace_output_export")
	l = declRig(true, true)
	l.Wire(wev(WireSent, 2*time.Second, 1, CoreNode, wsDev, "x1", export))
	wantClean(t, l)
}

// TestPrepareDuringWriteRule: a prepare bound to an Environment reaching
// the daemon between its ready for a write of it and that write's
// receipt is refused resource_unavailable; after the receipt it may be
// granted.
func TestPrepareDuringWriteRule(t *testing.T) {
	begin := wire.WorkspaceWrite{Step: wire.StepBegin, EnvironmentID: rtEnv, SessionID: rtEnv, Path: "a.txt",
		SizeBytes: 4, SHA256: wire.SHA256Hex([]byte("abcd"))}
	prep := wire.ExecutionPrepare{SessionID: "s-2", Configuration: wire.ExecutionConfiguration{AgentKind: "k",
		LocalEnvironment: &wire.LocalEnvironment{ID: rtEnv}}}
	run := func(after bool, answer wire.PreparationStatus) *Ledger {
		l := NewLedger()
		wsToDaemon(l, time.Second, "w1", begin)
		wsFromDaemon(l, time.Second, "w1", wire.WorkspaceWriteResult{Outcome: wire.OutcomeReady})
		if after {
			wsFromDaemon(l, 2*time.Second, "w1", wire.WorkspaceWriteResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.WriteInvalidRequest})
		}
		wsToDaemon(l, 3*time.Second, "p9", prep)
		wsFromDaemon(l, 3*time.Second, "p9", answer)
		return l
	}
	refused := wire.PreparationStatus{State: wire.StateRejected, ErrorCode: wire.PrepResourceUnavailable}
	granted := wire.PreparationStatus{Handle: "h9", ExecutorID: "e9", Revision: 1, State: wire.StatePreparing}
	l := run(false, refused)
	if violationsOf(l, CheckWriteExclusion) != nil {
		t.Fatalf("refused prepare judged: %v", l.AfterStep(1))
	}
	wantViolation(t, run(false, granted), CheckWriteExclusion, "while a write or export of it was in progress")
	if l := run(true, granted); violationsOf(l, CheckWriteExclusion) != nil {
		t.Fatalf("prepare after the write judged: %v", l.AfterStep(1))
	}
}

// TestExportOrderRule: a next at a stale offset is refused, never served.
func TestExportOrderRule(t *testing.T) {
	run := func(answer wire.WorkspaceExportResult) *Ledger {
		l := NewLedger()
		wsToDaemon(l, time.Second, "x1", wire.WorkspaceExport{Step: wire.StepBegin, Handle: "h1", EnvironmentID: rtEnv})
		wsFromDaemon(l, time.Second, "x1", wire.WorkspaceExportResult{Outcome: wire.OutcomeChunk, Offset: 0, Data: []byte("abc")})
		wsToDaemon(l, 2*time.Second, "x1", wire.WorkspaceExport{Step: wire.StepNext, Offset: 0})
		wsFromDaemon(l, 2*time.Second, "x1", answer)
		return l
	}
	l := run(wire.WorkspaceExportResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.ReadInvalidRequest})
	wantClean(t, l)
	if l.marks[MarkExportStaleNextRefused] != 1 {
		t.Fatalf("marks %v", l.marks)
	}
	wantViolation(t, run(wire.WorkspaceExportResult{Outcome: wire.OutcomeChunk, Offset: 3, Data: []byte("d")}), CheckExportOrder, "at offset 0")
}
