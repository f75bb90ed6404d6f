package check

import (
	"archive/tar"
	"bytes"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/turnstile-sim/turnstile/wire"
)

// testTar is a tar stream of the given name/content pairs, in order.
func testTar(t *testing.T, pairs ...string) []byte {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for i := 0; i+1 < len(pairs); i += 2 {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: pairs[i], Mode: 0o644, Size: int64(len(pairs[i+1]))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(pairs[i+1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// exportLedger: a profile of s-1 opened, exported at 12 (a.txt "one"),
// closed at 18.
func exportLedger(t *testing.T) (*Ledger, []byte) {
	l := NewLedger()
	l.WorkspaceSeeded(wsEnvID, "a.txt", "seed", true)
	l.WorkspaceOpened(5, "d1", "rd-1", "s-1", wsEnvID)
	archive := testTar(t, "a.txt", "one")
	l.WorkspaceExported(12, "d1", "rd-1", wsEnvID, archive, map[string]string{"a.txt": "one"})
	l.WorkspaceClosed(18, "d1", "rd-1", true)
	return l, archive
}

// TestWorkspaceExportMatchesNativeArchive: a completed export is the
// native archive byte for byte, produced within the call through a
// profile closed before the answer.
func TestWorkspaceExportMatchesNativeArchive(t *testing.T) {
	l, archive := exportLedger(t)
	l.WorkspaceWriteCalled(WorkspaceWriteOp{Call: 8, Return: 10, Session: "s-1", Env: wsEnvID, Path: "a.txt", Value: "one", Outcome: "completed"})
	l.WorkspaceExportCalled(WorkspaceExportOp{Call: 10, Return: 20, Session: "s-1", Env: wsEnvID, Outcome: "completed", Archive: archive})
	if vs := violationsOf(l, CheckWorkspaceExport); len(vs) != 0 {
		t.Fatalf("violations %v", vs)
	}
	if l.marks[MarkExportCompleted] != 1 {
		t.Fatalf("mark not reached")
	}
	if got := fileVerdict(l); got != porcupine.Ok {
		t.Fatalf("register verdict %s, want ok", got)
	}
}

// TestWorkspaceExportCatchesWrongArchives: a chunk twice, a chunk
// skipped, an answer before the close, data outside the call, no tar.
func TestWorkspaceExportCatchesWrongArchives(t *testing.T) {
	_, archive := exportLedger(t)
	twice := append(bytes.Clone(archive[:512]), archive...)
	cases := map[string]WorkspaceExportOp{
		"chunk twice":        {Call: 10, Return: 20, Archive: twice},
		"chunk skipped":      {Call: 10, Return: 20, Archive: archive[512:]},
		"before the close":   {Call: 10, Return: 15, Archive: archive},
		"outside the call":   {Call: 13, Return: 20, Archive: archive},
		"another session":    {Call: 10, Return: 20, Archive: archive, Session: "s-2"},
		"not a tar":          {Call: 10, Return: 20, Archive: []byte("plain bytes")},
		"another tree's tar": {Call: 10, Return: 20, Archive: testTar(t, "a.txt", "two")},
	}
	for name, op := range cases {
		l, _ := exportLedger(t)
		if op.Session == "" {
			op.Session = "s-1"
		}
		op.Env, op.Outcome = wsEnvID, "completed"
		l.WorkspaceExportCalled(op)
		if vs := violationsOf(l, CheckWorkspaceExport); len(vs) != 1 {
			t.Errorf("%s: violations %v, want one", name, vs)
		}
	}
}

// TestWorkspaceExportRegisterCatchesStaleTree: an export after a
// completed write that still holds the old content has no linearization.
func TestWorkspaceExportRegisterCatchesStaleTree(t *testing.T) {
	l := NewLedger()
	l.WorkspaceSeeded(wsEnvID, "a.txt", "seed", true)
	l.WorkspaceWriteCalled(WorkspaceWriteOp{Call: 1, Return: 4, Session: "s-1", Env: wsEnvID, Path: "a.txt", Value: "one", Outcome: "completed"})
	l.ws.exported = append(l.ws.exported, exportedTree{
		op: WorkspaceExportOp{Call: 10, Return: 20, Session: "s-1", Env: wsEnvID}, files: map[string]string{"a.txt": "seed"}})
	if got := fileVerdict(l); got != porcupine.Illegal {
		t.Fatalf("verdict %s, want illegal", got)
	}
}

// TestWorkspaceExportWireOrder: Core's next carries exactly the chunk
// bytes delivered; the daemon's chunks are contiguous; no next after a
// cancel, which reaches the cancelled mark.
func TestWorkspaceExportWireOrder(t *testing.T) {
	chunk := func(off int64, n int) wire.Frame {
		return wire.Frame{ID: "x-1", Payload: wire.WorkspaceExportResult{Outcome: wire.OutcomeChunk, Offset: off, Data: make([]byte, n)}}
	}
	step := func(s string, off int64) wire.Frame {
		return wire.Frame{ID: "x-1", Payload: wire.WorkspaceExport{Step: s, Offset: off}}
	}
	run := func(frames func(w wireFeed)) []string {
		now := int64(0)
		l := NewLedger()
		w := wireFeed{l: l, now: &now}
		w.open(1, "d1")
		w.coreSends(1, "d1", wire.Frame{ID: "x-1", Payload: wire.WorkspaceExport{Step: wire.StepBegin, Handle: "h", EnvironmentID: wsEnvID}})
		frames(w)
		return violationsOf(l, CheckWorkspaceExport)
	}
	if vs := run(func(w wireFeed) {
		w.deviceSends(1, "d1", chunk(0, 10))
		w.coreSends(1, "d1", step(wire.StepNext, 10))
		w.deviceSends(1, "d1", chunk(10, 5))
		w.coreSends(1, "d1", step(wire.StepCancel, 0))
	}); len(vs) != 0 {
		t.Fatalf("a well ordered exchange: %v", vs)
	}
	bad := map[string]func(w wireFeed){
		"next asks again": func(w wireFeed) {
			w.deviceSends(1, "d1", chunk(0, 10))
			w.coreSends(1, "d1", step(wire.StepNext, 0))
		},
		"next skips": func(w wireFeed) {
			w.deviceSends(1, "d1", chunk(0, 10))
			w.coreSends(1, "d1", step(wire.StepNext, 20))
		},
		"daemon gap": func(w wireFeed) {
			w.deviceSends(1, "d1", chunk(0, 10))
			w.coreSends(1, "d1", step(wire.StepNext, 10))
			w.deviceSends(1, "d1", chunk(12, 5))
		},
		"next after cancel": func(w wireFeed) {
			w.deviceSends(1, "d1", chunk(0, 10))
			w.coreSends(1, "d1", step(wire.StepCancel, 0))
			w.coreSends(1, "d1", step(wire.StepNext, 10))
		},
	}
	for name, frames := range bad {
		if vs := run(frames); len(vs) != 1 {
			t.Errorf("%s: violations %v, want one", name, vs)
		}
	}
}

// committedWrite is a ledger that saw Core begin write m-1 of a.txt (one
// byte) on c1 and send its commit.
func committedWrite() (*Ledger, wireFeed, *int64) {
	now := int64(0)
	l := NewLedger()
	w := wireFeed{l: l, now: &now}
	w.open(1, "d1")
	w.coreSends(1, "d1", wire.Frame{ID: "m-1", Payload: wire.WorkspaceWrite{Step: wire.StepBegin, SessionID: wsSessID, EnvironmentID: wsEnvID, Path: "a.txt", SizeBytes: 1}})
	w.coreSends(1, "d1", wire.Frame{ID: "m-1", Payload: wire.WorkspaceWrite{Step: wire.StepCommit}})
	return l, w, &now
}

// TestWorkspaceWriteSettledLateMark: the exact receipt of a write Core
// answered unknown, delivered later, reaches the mark; one of a write
// answered completed does not.
func TestWorkspaceWriteSettledLateMark(t *testing.T) {
	for _, outcome := range []string{"unknown", "completed"} {
		l, w, now := committedWrite()
		l.WorkspaceWriteCalled(WorkspaceWriteOp{Call: 1, Return: *now, Session: "s-1", Env: wsEnvID, Path: "a.txt", Value: "x", Outcome: outcome, Code: "timeout", Mutation: "m-1"})
		w.deviceSends(1, "d1", wire.Frame{ID: "m-1", Payload: wire.WorkspaceWriteResult{Outcome: wire.OutcomeCompleted, SizeBytes: 1}})
		if got, want := l.marks[MarkWriteSettledLate], map[string]int{"unknown": 1, "completed": 0}[outcome]; got != want {
			t.Errorf("%s: mark %d, want %d", outcome, got, want)
		}
	}
}

// TestWorkspaceWriteRuntimeUnknownNeverSettles: a commit the Runtime
// itself answered unknown stays unsettled whatever result of that write
// reaches Core later (here its rejection of a replayed chunk): a later
// write refused as pending is lawful, and one admitted is a violation.
func TestWorkspaceWriteRuntimeUnknownNeverSettles(t *testing.T) {
	for _, later := range []string{"refused", "completed"} {
		l, w, now := committedWrite()
		w.deviceSends(1, "d1", wire.Frame{ID: "m-1", Payload: wire.WorkspaceWriteResult{Outcome: wire.OutcomeUnknown, ErrorCode: wire.WriteUnconfirmed}})
		l.WorkspaceWriteCalled(WorkspaceWriteOp{Call: 1, Return: *now, Session: "s-1", Env: wsEnvID, Path: "a.txt", Value: "x", Outcome: "unknown", Code: wire.WriteUnconfirmed, Mutation: "m-1"})
		w.deviceSends(1, "d1", wire.Frame{ID: "m-1", Payload: wire.WorkspaceWriteResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.WriteInvalidRequest}})
		op := WorkspaceWriteOp{Call: *now, Return: *now + 1, Session: "s-1", Env: wsEnvID, Path: "a.txt", Value: "y", Outcome: later, Mutation: "m-2"}
		if later == "refused" {
			op.Code, op.Mutation = WriteRefusedPending, ""
		}
		l.WorkspaceWriteCalled(op)
		if vs, want := violationsOf(l, CheckWriteSettlement), map[string]int{"refused": 0, "completed": 1}[later]; len(vs) != want {
			t.Errorf("later write %s: violations %v, want %d", later, vs, want)
		}
	}
}

// TestWorkspaceWriteReceiptAtZombieSettlesNothing: the exact receipt of
// a write Core answered unknown, reaching the Core the lease moved away
// from, cannot be made durable: a later write refused as pending is
// lawful.
func TestWorkspaceWriteReceiptAtZombieSettlesNothing(t *testing.T) {
	for _, zombie := range []bool{false, true} {
		l, w, now := committedWrite()
		l.WorkspaceWriteCalled(WorkspaceWriteOp{Call: 1, Return: *now, Session: "s-1", Env: wsEnvID, Path: "a.txt", Value: "x", Outcome: "unknown", Code: "invalid_receipt", Mutation: "m-1"})
		if zombie {
			l.Takeover(*now, 2, []uint64{1})
		}
		w.deviceSends(1, "d1", wire.Frame{ID: "m-1", Payload: wire.WorkspaceWriteResult{Outcome: wire.OutcomeCompleted, SizeBytes: 1}})
		l.WorkspaceWriteCalled(WorkspaceWriteOp{Call: *now, Return: *now + 1, Session: "s-1", Env: wsEnvID, Path: "a.txt", Value: "y", Outcome: "refused", Code: WriteRefusedPending})
		if vs, want := violationsOf(l, CheckWriteSettlement), map[bool]int{false: 1, true: 0}[zombie]; len(vs) != want {
			t.Errorf("receipt at a zombie %t: violations %v, want %d", zombie, vs, want)
		}
	}
}

// TestWorkspaceTransferMarks: a commit refused invalid_request reaches
// commit_refused; a connection ending between begin and commit reaches
// lost_mid_transfer, one ending after the commit does not.
func TestWorkspaceTransferMarks(t *testing.T) {
	begin := wire.Frame{ID: "m-1", Payload: wire.WorkspaceWrite{Step: wire.StepBegin, SessionID: wsSessID, EnvironmentID: wsEnvID, Path: "a.txt", SizeBytes: 1}}
	commit := wire.Frame{ID: "m-1", Payload: wire.WorkspaceWrite{Step: wire.StepCommit}}
	for _, committed := range []bool{false, true} {
		now := int64(0)
		l := NewLedger()
		w := wireFeed{l: l, now: &now}
		w.open(1, "d1")
		w.coreSends(1, "d1", begin)
		if committed {
			w.coreSends(1, "d1", commit)
			w.deviceSends(1, "d1", wire.Frame{ID: "m-1", Payload: wire.WorkspaceWriteResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.WriteInvalidRequest}})
		}
		w.close(1, "d1")
		lost, refused := l.marks[MarkWriteLostMidTransfer], l.marks[MarkWriteCommitRefused]
		if committed && (lost != 0 || refused != 1) || !committed && (lost != 1 || refused != 0) {
			t.Errorf("committed=%t: lost_mid_transfer %d, commit_refused %d", committed, lost, refused)
		}
	}
}

// TestExportStoppedRule: an export still open on the wire at its begin
// plus Core's 180 s export wait, without Core's cancel, is abandoned.
func TestExportStoppedRule(t *testing.T) {
	run := func(cancel bool) *Ledger {
		l := NewLedger()
		l.Wire(wev(WireSent, time.Second, 1, CoreNode, wsDev, "x1", wire.WorkspaceExport{Step: wire.StepBegin, Handle: "h1", EnvironmentID: rtEnv}))
		l.Wire(wev(WireDelivered, 2*time.Second, 1, wsDev, CoreNode, "x1", wire.WorkspaceExportResult{Outcome: wire.OutcomeChunk, Data: []byte("a")}))
		if cancel {
			l.Wire(wev(WireSent, 180*time.Second, 1, CoreNode, wsDev, "x1", wire.WorkspaceExport{Step: wire.StepCancel}))
		}
		l.Wire(wev(WireSent, 200*time.Second, 1, CoreNode, wsDev, "", wire.Heartbeat{TS: 2}))
		return l
	}
	if v := violationsOf(run(true), CheckExportStopped); v != nil {
		t.Fatalf("cancelled export judged: %v", v)
	}
	if v := violationsOf(run(false), CheckExportStopped); len(v) != 1 {
		t.Fatalf("abandoned export: %v, want one %s", v, CheckExportStopped)
	}
}

// A restarted Core numbers its exports afresh: an export with an ID an
// earlier connection's export used starts its own count from 0.
func TestWorkspaceExportIDReusedOnAnotherConnection(t *testing.T) {
	now := int64(0)
	l := NewLedger()
	w := wireFeed{l: l, now: &now}
	begin := wire.Frame{ID: "x-1", Payload: wire.WorkspaceExport{Step: wire.StepBegin, Handle: "h", EnvironmentID: wsEnvID}}
	chunk := wire.Frame{ID: "x-1", Payload: wire.WorkspaceExportResult{Outcome: wire.OutcomeChunk, Offset: 0, Data: make([]byte, 10)}}
	w.open(1, "d1")
	w.coreSends(1, "d1", begin)
	w.deviceSends(1, "d1", chunk)
	w.open(2, "d1")
	w.coreSends(2, "d1", begin)
	w.deviceSends(2, "d1", chunk)
	if vs := violationsOf(l, CheckWorkspaceExport); len(vs) != 0 {
		t.Fatalf("an export ID reused on a new connection judged as the old export: %v", vs)
	}
	w.deviceSends(2, "d1", chunk) // offset 0 again on the same connection
	wantViolation(t, l, CheckWorkspaceExport, "a chunk at offset 0 after sending 10 bytes")
}

// TestExportCancelBudgetRule: Core's export cancel reaches the daemon
// within 2 s plus the latency (10 ms here) or is dropped; one delivered
// later is a violation, and so is a cancel for an export Core never began
// on that connection or one whose completed Core had accepted.
func TestExportCancelBudgetRule(t *testing.T) {
	ms := time.Millisecond
	run := func(completed bool, fate string, at time.Duration) *Ledger {
		l := NewLedger()
		l.Wire(WireEvent{At: ns(5 * ms), Kind: WireOpened, Conn: 1, From: wsDev, To: CoreNode})
		l.Wire(WireEvent{At: ns(15 * ms), Kind: WireOpened, Conn: 1, From: CoreNode, To: wsDev})
		l.Wire(wev(WireSent, time.Second, 1, CoreNode, wsDev, "x1", wire.WorkspaceExport{Step: wire.StepBegin, Handle: "h1", EnvironmentID: rtEnv}))
		if completed {
			l.Wire(wev(WireDelivered, 2*time.Second, 1, wsDev, CoreNode, "x1", wire.WorkspaceExportResult{Outcome: wire.OutcomeCompleted}))
		}
		cancel := wev(WireSent, 3*time.Second, 1, CoreNode, wsDev, "x1", wire.WorkspaceExport{Step: wire.StepCancel})
		l.Wire(cancel)
		if fate != "" {
			arrived := cancel
			arrived.Kind, arrived.At = fate, ns(3*time.Second+at)
			l.Wire(arrived)
		}
		return l
	}
	for name, l := range map[string]*Ledger{
		"delivered at once":        run(false, WireDelivered, 10*ms),
		"held 1.5 s then released": run(false, WireDelivered, 1500*ms),
		"dropped after 2 s":        run(false, WireDropped, 2*time.Second),
		"never arrived (lost)":     run(false, "", 0),
	} {
		if v := violationsOf(l, CheckExportCancelBudget); v != nil {
			t.Fatalf("%s: judged %v", name, v)
		}
	}
	if l := run(false, WireDropped, 3*time.Second); l.marks[MarkExportCancelDropped] != 1 {
		t.Fatal("a dropped cancel reaches no mark")
	}
	wantViolation(t, run(false, WireDelivered, 2*time.Second+10*ms), CheckExportCancelBudget, "past its 2s best-effort budget")
	wantViolation(t, run(true, WireDelivered, 10*ms), CheckExportCancelBudget, "after a completed it accepts reached it")
	l := NewLedger()
	l.Wire(wev(WireSent, time.Second, 1, CoreNode, wsDev, "x9", wire.WorkspaceExport{Step: wire.StepCancel}))
	wantViolation(t, l, CheckExportCancelBudget, "where it began no such export")
}
