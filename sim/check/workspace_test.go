package check

import (
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/turnstile-sim/turnstile/sim/linearize"
	"github.com/turnstile-sim/turnstile/wire"
)

const (
	wsEnvID  = "00000000-0000-4000-8000-000000001001"
	wsSessID = "11111111-0000-4000-8000-000000000001"
)

func fileVerdict(l *Ledger) porcupine.CheckResult {
	return linearize.Check(l.fileOps(l.horizon()), linearize.Options{}).Result
}

// TestWorkspaceRegisterAcceptsLinearizableHistories: seeded content,
// completed writes, an unknown write that may land any time after its
// call, and reads of each.
func TestWorkspaceRegisterAcceptsLinearizableHistories(t *testing.T) {
	l := NewLedger()
	l.WorkspaceSeeded(wsEnvID, "a.txt", "seed", true)
	l.WorkspaceReadCalled(WorkspaceReadOp{Call: 10, Return: 20, Session: "s-1", Env: wsEnvID, Path: "a.txt", Outcome: "rejected", Code: "permission_denied"})
	l.WorkspaceWriteCalled(WorkspaceWriteOp{Call: 30, Return: 40, Session: "s-1", Env: wsEnvID, Path: "a.txt", Value: "one", Outcome: "completed"})
	l.WorkspaceWriteCalled(WorkspaceWriteOp{Call: 50, Return: 60, Session: "s-1", Env: wsEnvID, Path: "a.txt", Value: "two", Outcome: "unknown"})
	l.ws.reads = append(l.ws.reads,
		WorkspaceReadOp{Call: 45, Return: 48, Session: "s-1", Env: wsEnvID, Path: "a.txt", Outcome: "completed", Value: "one"},
		WorkspaceReadOp{Call: 70, Return: 80, Session: "s-1", Env: wsEnvID, Path: "a.txt", Outcome: "completed", Value: "two"},
		WorkspaceReadOp{Call: 90, Return: 95, Session: "s-1", Env: wsEnvID, Path: "b.txt", Outcome: "rejected", Code: "not_found"})
	if got := fileVerdict(l); got != porcupine.Ok {
		t.Fatalf("verdict %s, want ok", got)
	}
}

// TestWorkspaceRegisterCatchesImpossibleReads: a read of a value no
// write could have produced, a stale read after a completed write, and a
// read of a write Core called unavailable (it claimed nothing changed).
func TestWorkspaceRegisterCatchesImpossibleReads(t *testing.T) {
	cases := map[string][]WorkspaceReadOp{
		"never written": {{Call: 50, Return: 60, Path: "a.txt", Outcome: "completed", Value: "ghost"}},
		"stale":         {{Call: 50, Return: 60, Path: "a.txt", Outcome: "completed", Value: "seed"}},
		"unavailable write seen": {{Call: 50, Return: 60, Path: "a.txt", Outcome: "completed", Value: "one"},
			{Call: 70, Return: 80, Path: "a.txt", Outcome: "completed", Value: "lost-one"}},
		"absent after a write": {{Call: 50, Return: 60, Path: "a.txt", Outcome: "rejected", Code: "not_found"}},
	}
	for name, reads := range cases {
		l := NewLedger()
		l.WorkspaceSeeded(wsEnvID, "a.txt", "seed", true)
		l.ws.writes = append(l.ws.writes,
			WorkspaceWriteOp{Call: 10, Return: 20, Env: wsEnvID, Path: "a.txt", Value: "one", Outcome: "completed"},
			WorkspaceWriteOp{Call: 25, Return: 30, Env: wsEnvID, Path: "a.txt", Value: "lost-one", Outcome: "unavailable"})
		for _, r := range reads {
			r.Env = wsEnvID
			l.ws.reads = append(l.ws.reads, r)
		}
		if got := fileVerdict(l); got != porcupine.Illegal {
			t.Errorf("%s: verdict %s, want illegal", name, got)
		}
	}
}

// TestWorkspaceTruthReadNeedsConfirmedClose: a completed idle read is
// explained only by a native read inside the call whose profile's close
// was confirmed before the answer.
func TestWorkspaceTruthReadNeedsConfirmedClose(t *testing.T) {
	l := NewLedger()
	l.WorkspaceOpened(5, "d1", "rd-1", "s-1", wsEnvID)
	l.WorkspaceRead(12, "d1", "rd-1", "s-1", wsEnvID, "a.txt", "val", true)
	l.WorkspaceReadCalled(WorkspaceReadOp{Call: 10, Return: 20, Session: "s-1", Env: wsEnvID, Path: "a.txt", Outcome: "completed", Value: "val"})
	if vs := violationsOf(l, CheckWorkspaceTruth); len(vs) != 1 {
		t.Fatalf("answer before the close: %v", vs)
	}
	l.WorkspaceClosed(25, "d1", "rd-1", false)
	l.WorkspaceClosed(28, "d1", "rd-1", true)
	if l.marks[MarkCleanupUnconfirmedRelease] != 1 {
		t.Fatal("a close retried after a failure is not marked")
	}
	l.WorkspaceReadCalled(WorkspaceReadOp{Call: 10, Return: 30, Session: "s-1", Env: wsEnvID, Path: "a.txt", Outcome: "completed", Value: "val"})
	l.WorkspaceReadCalled(WorkspaceReadOp{Call: 10, Return: 30, Session: "s-1", Env: wsEnvID, Path: "a.txt", Outcome: "completed", Value: "other"})
	if vs := violationsOf(l, CheckWorkspaceTruth); len(vs) != 2 || !strings.Contains(vs[1], "other") {
		t.Fatalf("want the second violation for the unserved value only: %v", vs)
	}
}

// TestWorkspaceTruthReadLimit: a completed byte read answers the whole
// file, or exactly max_bytes of a longer one flagged truncated; a prefix
// presented as the whole file, a truncated answer shorter than the limit
// and a truncated flag on a whole file are each unexplained.
func TestWorkspaceTruthReadLimit(t *testing.T) {
	cases := []struct {
		name      string
		value     string
		truncated bool
		want      int
	}{
		{"whole file", "v-123456", false, 0},
		{"limit of a longer file, flagged", "v-12", true, 0},
		{"prefix without the flag", "v-12", false, 1},
		{"flagged below the limit", "v-1", true, 1},
		{"whole file flagged", "v-123456", true, 1},
	}
	for _, c := range cases {
		l := NewLedger()
		l.WorkspaceOpened(5, "d1", "rd-1", "s-1", wsEnvID)
		l.WorkspaceRead(12, "d1", "rd-1", "s-1", wsEnvID, "a.txt", "v-123456", true)
		l.WorkspaceClosed(15, "d1", "rd-1", true)
		max := 4
		if c.value == "v-123456" {
			max = len(c.value)
		}
		l.WorkspaceReadCalled(WorkspaceReadOp{Call: 10, Return: 20, Session: "s-1", Env: wsEnvID, Path: "a.txt",
			MaxBytes: max, Outcome: "completed", Value: c.value, Truncated: c.truncated})
		if vs := violationsOf(l, CheckWorkspaceTruth); len(vs) != c.want {
			t.Errorf("%s: %d violations %v, want %d", c.name, len(vs), vs, c.want)
		}
		if got := l.marks[MarkReadTruncated]; (got == 1) != c.truncated {
			t.Errorf("%s: read_truncated marked %d times", c.name, got)
		}
	}
}

// TestWorkspaceTruthInstalls: a mutation installed twice, or without its
// digest, is a violation.
func TestWorkspaceTruthInstalls(t *testing.T) {
	l := NewLedger()
	l.WorkspaceInstalled(1, "d1", "m-1", wsEnvID, "a", "x", true)
	if vs := violationsOf(l, CheckWorkspaceTruth); len(vs) != 0 {
		t.Fatalf("one install: %v", vs)
	}
	l.WorkspaceInstalled(2, "d2", "m-1", wsEnvID, "a", "x", true)
	l.WorkspaceInstalled(3, "d1", "m-2", wsEnvID, "a", "y", false)
	if vs := violationsOf(l, CheckWorkspaceTruth); len(vs) != 2 {
		t.Fatalf("want two violations, got %v", vs)
	}
}

// TestWorkspaceWireMutationOrder: a write begins only after every earlier
// write of its Session settled; a read-only profile is never started.
func TestWorkspaceWireMutationOrder(t *testing.T) {
	var now int64
	l := NewLedger()
	w := wireFeed{l: l, now: &now}
	w.open(1, "d1")
	begin := func(id string) wire.Frame {
		return wire.Frame{ID: id, Payload: wire.WorkspaceWrite{Step: wire.StepBegin, EnvironmentID: wsEnvID,
			SessionID: wsSessID, Path: "a", SizeBytes: 1, SHA256: strings.Repeat("0", 64)}}
	}
	w.coreSends(1, "d1", begin("m-1"))
	w.coreSends(1, "d1", wire.Frame{ID: "m-1", Payload: wire.WorkspaceWrite{Step: wire.StepCommit}})
	w.coreSends(1, "d1", begin("m-2"))
	if vs := violationsOf(l, CheckWorkspaceMutationOrder); len(vs) != 1 {
		t.Fatalf("begin while unsettled: %v", vs)
	}
	w.deviceSends(1, "d1", wire.Frame{ID: "m-1", Payload: wire.WorkspaceWriteResult{Outcome: wire.OutcomeCompleted, SizeBytes: 1}})
	w.coreSends(1, "d1", begin("m-3"))
	w.coreSends(1, "d1", begin("m-3"))
	if vs := violationsOf(l, CheckWorkspaceMutationOrder); len(vs) != 2 || !strings.Contains(vs[1], "replay") {
		t.Fatalf("want the replay flagged only: %v", vs)
	}

	cfg := wire.ExecutionConfiguration{AgentKind: testKind, WorkspaceReadOnly: true}
	w.coreSends(1, "d1", prepareFrame("p-ro", "s-1", cfg))
	w.coreSends(1, "d1", startFrame("p-ro", "h-1", "run-1", wire.TextInput("x")))
	if vs := violationsOf(l, CheckReadOnlyStarted); len(vs) != 1 {
		t.Fatalf("start of a read-only profile: %v", vs)
	}
}

// TestReadOnlyPrepareRules: the profile Core sends carries the Session's
// Environment and nothing of an execution.
func TestReadOnlyPrepareRules(t *testing.T) {
	var now int64
	l := NewLedger()
	w := wireFeed{l: l, now: &now}
	spec := testSpec()
	spec.Environment, spec.EnvironmentID = "self_hosted", wsEnvID
	l.SessionCreated(0, "s-1", spec)
	w.open(1, "d1")
	w.heartbeat(1, "d1", allKind())
	good := wire.ExecutionConfiguration{AgentKind: testKind, AgentStateKey: "agents-api-s-1", StrictResume: true,
		WorkspaceReadOnly: true, ReleaseOnCompletion: true, LocalEnvironment: &wire.LocalEnvironment{ID: wsEnvID}}
	w.coreSends(1, "d1", prepareFrame("p-1", "s-1", good))
	if vs := violationsOf(l, CheckPrepareConfiguration); len(vs) != 0 {
		t.Fatalf("valid profile: %v", vs)
	}
	bad := good
	bad.AgentOptions = goodConfig("s-1").AgentOptions
	bad.LocalEnvironment = &wire.LocalEnvironment{ID: "other"}
	w.coreSends(1, "d1", prepareFrame("p-2", "s-1", bad))
	if vs := violationsOf(l, CheckPrepareConfiguration); len(vs) != 2 {
		t.Fatalf("want two findings, got %v", vs)
	}
}

// TestWorkspaceWaitOracle: an answer later than Core's wait, or a timeout
// before it, is a timing violation; lost and refused calls prove nothing.
func TestWorkspaceWaitOracle(t *testing.T) {
	l := NewLedger()
	s := int64(time.Second)
	l.WorkspaceReadCalled(WorkspaceReadOp{Call: 0, Return: 17 * s, Session: "s", Path: "a", Outcome: "unavailable", Code: "timeout"})
	l.WorkspaceWriteCalled(WorkspaceWriteOp{Call: 0, Return: 190 * s, Session: "s", Path: "a", Outcome: "unknown", Code: "write_unconfirmed"})
	l.WorkspaceReadCalled(WorkspaceReadOp{Call: 0, Return: 30 * s, Session: "s", Path: "a", Outcome: "lost"})
	if vs := violationsOf(l, CheckTimingWorkspace); len(vs) != 0 {
		t.Fatalf("in-bound answers: %v", vs)
	}
	l.WorkspaceReadCalled(WorkspaceReadOp{Call: 0, Return: 16 * s, Session: "s", Path: "a", Outcome: "unavailable", Code: "timeout"})
	l.WorkspaceReadCalled(WorkspaceReadOp{Call: 0, Return: 19 * s, Session: "s", Path: "a", Outcome: "rejected", Code: "not_found"})
	l.WorkspaceWriteCalled(WorkspaceWriteOp{Call: 0, Return: 197 * s, Session: "s", Path: "a", Outcome: "completed"})
	if vs := violationsOf(l, CheckTimingWorkspace); len(vs) != 3 {
		t.Fatalf("want three timing violations, got %v", vs)
	}
}

// TestWorkspaceOnePerConn: Core begins no second write on a connection
// while its first awaits a receipt, nor a second export while the first
// is open; a receipt ending the write, a cancel or the end of the wait
// free the connection, and another connection is not held.
func TestWorkspaceOnePerConn(t *testing.T) {
	var now int64
	l := NewLedger()
	w := wireFeed{l: l, now: &now}
	w.open(1, "d1")
	w.open(2, "d2")
	begin := func(id, sess string) wire.Frame {
		return wire.Frame{ID: id, Payload: wire.WorkspaceWrite{Step: wire.StepBegin, EnvironmentID: wsEnvID,
			SessionID: sess, Path: "a", SizeBytes: 1, SHA256: strings.Repeat("0", 64)}}
	}
	w.coreSends(1, "d1", begin("m-1", "s-1"))
	w.coreSends(2, "d2", begin("m-2", "s-2"))
	w.deviceSends(1, "d1", wire.Frame{ID: "m-1", Payload: wire.WorkspaceWriteResult{Outcome: wire.OutcomeReady}})
	w.coreSends(1, "d1", wire.Frame{ID: "m-1", Payload: wire.WorkspaceWrite{Step: wire.StepChunk, Data: []byte("x")}})
	if vs := violationsOf(l, CheckWorkspaceOnePerConn); len(vs) != 0 {
		t.Fatalf("one write per connection: %v", vs)
	}
	w.coreSends(1, "d1", begin("m-3", "s-3"))
	if vs := violationsOf(l, CheckWorkspaceOnePerConn); len(vs) != 1 || !strings.Contains(vs[0], "m-3") || !strings.Contains(vs[0], "m-1") {
		t.Fatalf("second write while the first awaits its receipt: %v", vs)
	}
	w.deviceSends(2, "d2", wire.Frame{ID: "m-2", Payload: wire.WorkspaceWriteResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.WriteCapacity}})
	w.coreSends(2, "d2", begin("m-4", "s-4"))
	now += int64(200 * time.Second)
	w.coreSends(1, "d1", begin("m-5", "s-5")) // past the write wait of m-1 and m-3
	if vs := violationsOf(l, CheckWorkspaceOnePerConn); len(vs) != 1 {
		t.Fatalf("after a refusal or the wait: %v", vs)
	}

	exp := func(id string, step string) wire.Frame {
		p := wire.WorkspaceExport{Step: step}
		if step == wire.StepBegin {
			p.Handle, p.EnvironmentID = "h", wsEnvID
		}
		return wire.Frame{ID: id, Payload: p}
	}
	w.coreSends(2, "d2", exp("x-1", wire.StepBegin))
	w.coreSends(2, "d2", exp("x-2", wire.StepBegin))
	if vs := violationsOf(l, CheckWorkspaceOnePerConn); len(vs) != 2 || !strings.Contains(vs[1], "export x-2") {
		t.Fatalf("second export while the first is open: %v", vs)
	}
	w.coreSends(2, "d2", exp("x-1", wire.StepCancel))
	w.deviceSends(2, "d2", wire.Frame{ID: "x-2", Payload: wire.WorkspaceExportResult{Outcome: wire.OutcomeCompleted}})
	w.coreSends(2, "d2", exp("x-3", wire.StepBegin))
	if vs := violationsOf(l, CheckWorkspaceOnePerConn); len(vs) != 2 {
		t.Fatalf("after a cancel and a completed: %v", vs)
	}
}
