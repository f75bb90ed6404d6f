package check

import (
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

// bindRun: executor ex-1 of Session s1 is prepared on connection 1 of d1
// and released (idle); the connection is lost at 5 (closed, or replaced
// by connection 2 when replaced), with the close of ex-1 called then
// when closed is true; a prepare of s1 on connection 2 is then answered
// at 9 by ex-1 reused when reuse is true.
func bindRun(replaced, closed, reuse bool) *Ledger {
	l := NewLedger()
	st := func(at int64, conn uint64, req string, s wire.PreparationStatus) {
		l.Wire(wf(at, WireSent, conn, "d1", "core", req, s))
	}
	l.Wire(wf(1, WireDelivered, 1, "core", "d1", "p-1", wire.ExecutionPrepare{SessionID: "s1"}))
	st(1, 1, "p-1", wire.PreparationStatus{ExecutorID: "ex-1", Handle: "h-1", Revision: 1, State: wire.StatePreparing})
	l.ExecutorCreated(2, "d1", "ex-1")
	st(2, 1, "p-1", wire.PreparationStatus{ExecutorID: "ex-1", Handle: "h-1", Revision: 2, State: wire.StateReady})
	st(3, 1, "p-1", wire.PreparationStatus{ExecutorID: "ex-1", Handle: "h-1", Revision: 3, State: wire.StateReleased})
	if replaced {
		l.Wire(WireEvent{At: 5, Kind: WireOpened, Conn: 2, From: "core", To: "d1"})
	} else {
		l.Wire(WireEvent{At: 5, Kind: WireClosed, Conn: 1, From: "core", To: "d1"})
	}
	if closed {
		l.CloseRequested(5, "d1", "ex-1")
		l.CloseCalled(5, "d1", "ex-1")
	}
	if !replaced {
		l.Wire(WireEvent{At: 6, Kind: WireOpened, Conn: 2, From: "core", To: "d1"})
	}
	l.Wire(wf(9, WireDelivered, 2, "core", "d1", "p-2", wire.ExecutionPrepare{SessionID: "s1"}))
	if reuse {
		st(9, 2, "p-2", wire.PreparationStatus{ExecutorID: "ex-1", Reused: true, Handle: "h-2", Revision: 1, State: wire.StateReady})
	} else {
		st(9, 2, "p-2", wire.PreparationStatus{ExecutorID: "ex-2", Handle: "h-2", Revision: 1, State: wire.StatePreparing})
	}
	l.advance(10)
	return l
}

func TestExecutorConnectionBound(t *testing.T) {
	cases := []struct {
		name                    string
		replaced, closed, reuse bool
		want                    string
	}{
		{"closed on loss, a new executor", false, true, false, ""},
		{"closed on replacement, a new executor", true, true, false, ""},
		{"idle executor kept on loss", false, false, false, "did not close executor ex-1, idle or ready on connection 1, when that connection was lost at 5ns"},
		{"idle executor kept on replacement", true, false, false, "did not close executor ex-1"},
		{"reused by the next connection", false, true, true, "answered p-2 ready on connection 2 with executor ex-1, which was prepared on connection 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := bindRun(c.replaced, c.closed, c.reuse)
			vs := checkOnly(l, CheckExecutorConnection)
			switch {
			case c.want == "" && len(vs) > 0:
				t.Fatalf("unexpected violations:\n%s", Render(vs))
			case c.want != "" && (len(vs) != 1 || !containsMsg(vs[0], c.want)):
				t.Fatalf("want one %s violation containing %q, got:\n%s", CheckExecutorConnection, c.want, Render(vs))
			}
			if c.want == "" && l.marks[MarkExecutorRetiredWithConnection] != 1 {
				t.Fatalf("retirement not marked: %v", l.Marks())
			}
		})
	}
}

// The Harness's ground truth: a native turn created on an executor for a
// Run whose start came on another connection than the executor's.
func TestExecutorConnectionNativeTurn(t *testing.T) {
	l := NewLedger()
	l.Wire(wf(1, WireSent, 1, "d1", "core", "p-1", wire.PreparationStatus{ExecutorID: "ex-1", Handle: "h-1", Revision: 1, State: wire.StatePreparing}))
	l.Wire(WireEvent{At: 3, Kind: WireOpened, Conn: 2, From: "core", To: "d1"})
	l.Wire(wf(4, WireDelivered, 2, "core", "d1", "p-2", wire.ExecutionStart{ExecutorID: "ex-1", Handle: "h-2", RunID: "r2"}))
	l.TurnCreated(4, "d1", "r2")
	vs := checkOnly(l, CheckExecutorConnection)
	if len(vs) != 1 || !containsMsg(vs[0], "started run r2 natively on executor ex-1, prepared on connection 1, for a start that came on connection 2") {
		t.Fatalf("want one native-turn breach, got:\n%s", Render(vs))
	}
}

// busyRun: ex-1 runs r1 (started on connection 1) when the connection is
// lost at 5; a native decision of r1 is outstanding when pending; the
// settlement answers settled at 8, the decision at 12, and the close is
// called at closeAt (0: never).
func busyRun(pending bool, closeAt int64) *Ledger {
	l := NewLedger()
	l.Wire(wf(1, WireSent, 1, "d1", "core", "p-1", wire.PreparationStatus{ExecutorID: "ex-1", Handle: "h-1", Revision: 1, State: wire.StatePreparing}))
	l.ExecutorCreated(2, "d1", "ex-1")
	l.Wire(wf(2, WireSent, 1, "d1", "core", "p-1", wire.PreparationStatus{ExecutorID: "ex-1", Handle: "h-1", Revision: 2, State: wire.StateReady}))
	l.Wire(wf(3, WireDelivered, 1, "core", "d1", "p-1", wire.ExecutionStart{ExecutorID: "ex-1", Handle: "h-1", RunID: "r1"}))
	l.Wire(wf(3, WireSent, 1, "d1", "core", "p-1", wire.PreparationStatus{ExecutorID: "ex-1", Handle: "h-1", Revision: 4, State: wire.StateStarted, RunID: "r1"}))
	l.TurnCreated(3, "d1", "r1")
	if pending {
		l.DecisionCalled(4, "d1", "r1", "k1", false)
	}
	l.Wire(WireEvent{At: 5, Kind: WireClosed, Conn: 1, From: "core", To: "d1"})
	l.SettleAnswered(8, "d1", "r1", true)
	if pending {
		l.DecisionAnswered(12, "d1", "r1", "k1", false)
	}
	if closeAt > 0 {
		l.CloseCalled(closeAt, "d1", "ex-1")
	}
	l.advance(20)
	return l
}

func TestExecutorConnectionBusyClosedWhenRunOver(t *testing.T) {
	cases := []struct {
		name    string
		pending bool
		closeAt int64
		want    string
	}{
		{"closed at settlement", false, 8, ""},
		{"closed once the decision is answered", true, 12, ""},
		{"kept after settlement", false, 0, "did not close executor ex-1 of lost connection 1 at 8ns, when its Run r1 was over"},
		{"kept after the decision", true, 0, "at 12ns, when its Run r1 was over"},
		{"closed later than the Run's end", false, 9, "at 8ns, when its Run r1 was over"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vs := checkOnly(busyRun(c.pending, c.closeAt), CheckExecutorConnection)
			switch {
			case c.want == "" && len(vs) > 0:
				t.Fatalf("unexpected violations:\n%s", Render(vs))
			case c.want != "" && (len(vs) != 1 || !containsMsg(vs[0], c.want)):
				t.Fatalf("want one %s violation containing %q, got:\n%s", CheckExecutorConnection, c.want, Render(vs))
			}
		})
	}
}

// keepRun: executor ex-1 of Session s1, prepared on connection 1 of d1
// (executors_max max) to resume native session n1, is released (idle);
// with other, ex-9 of Session s2 too. Connection 1 is lost at 5 and the
// closes are called then; connection 2 opens at 6. When crashed, the
// daemon restarts at 7. A prepare of s1 on connection 2 naming n1 is
// granted a new executor at 8 when resumed. At 9 a prepare of s1
// requiring existing history and naming none is answered by answer.
func keepRun(max int, other, crashed, resumed bool, answer wire.PreparationStatus) *Ledger {
	l := NewLedger()
	l.DeviceConfigured("d1", DeviceLimits{ActiveMax: 4, ExecutorsMax: max})
	st := func(at int64, conn uint64, req string, s wire.PreparationStatus) {
		l.Wire(wf(at, WireSent, conn, "d1", "core", req, s))
	}
	idle := func(req, session, ex string) {
		l.Wire(wf(1, WireDelivered, 1, "core", "d1", req, wire.ExecutionPrepare{SessionID: session,
			Configuration: wire.ExecutionConfiguration{AgentSessionID: "n-" + session}}))
		st(1, 1, req, wire.PreparationStatus{ExecutorID: ex, Handle: "h-" + req, Revision: 1, State: wire.StatePreparing})
		l.ExecutorCreated(2, "d1", ex)
		st(2, 1, req, wire.PreparationStatus{ExecutorID: ex, Handle: "h-" + req, Revision: 2, State: wire.StateReady})
		st(3, 1, req, wire.PreparationStatus{ExecutorID: ex, Handle: "h-" + req, Revision: 3, State: wire.StateReleased})
	}
	idle("p-1", "s1", "ex-1")
	if other {
		idle("p-9", "s2", "ex-9")
	}
	l.Wire(WireEvent{At: 5, Kind: WireClosed, Conn: 1, From: "core", To: "d1"})
	l.CloseCalled(5, "d1", "ex-1")
	if other {
		l.CloseCalled(5, "d1", "ex-9")
	}
	l.Wire(WireEvent{At: 6, Kind: WireOpened, Conn: 2, From: "core", To: "d1"})
	l.ExecutorClosed(6, "d1", "ex-1")
	if crashed {
		l.NodeCrashed(7, "d1")
	}
	if resumed {
		l.Wire(wf(8, WireDelivered, 2, "core", "d1", "p-2", wire.ExecutionPrepare{SessionID: "s1",
			Configuration: wire.ExecutionConfiguration{AgentSessionID: "n-s1"}}))
		st(8, 2, "p-2", wire.PreparationStatus{ExecutorID: "ex-2", Handle: "h-2", Revision: 1, State: wire.StatePreparing})
	}
	l.Wire(wf(9, WireDelivered, 2, "core", "d1", "p-3", wire.ExecutionPrepare{SessionID: "s1",
		Configuration: wire.ExecutionConfiguration{RequireExistingNativeSession: true}}))
	st(9, 2, "p-3", answer)
	l.advance(10)
	return l
}

// The native session an idle executor held when its connection was lost
// is kept for its Session: a later prepare requiring existing history
// without naming it resumes it, never history_unavailable, unless a
// restart or the bound of executors_max kept Sessions forgot it, or an
// earlier prepare moved it to a new executor.
func TestExecutorConnectionKeepsNativeSession(t *testing.T) {
	refused := wire.PreparationStatus{State: wire.StateRejected, Operation: wire.TypeExecutionPrepare, ErrorCode: wire.PrepHistoryUnavailable}
	resumes := wire.PreparationStatus{ExecutorID: "ex-3", Handle: "h-3", Revision: 1, State: wire.StatePreparing}
	cases := []struct {
		name                    string
		max                     int
		other, crashed, resumed bool
		answer                  wire.PreparationStatus
		want                    string
	}{
		{"resumed on a new executor", 16, false, false, false, resumes, ""},
		{"refused while kept", 16, false, false, false, refused, `refused prepare p-3 of Session s1 (require_existing_native_session, no agent_session_id) history_unavailable, but it keeps native session "n-s1" of executor ex-1`},
		{"refused while kept, one other Session kept", 2, true, false, false, refused, "keeps native session"},
		{"forgotten: executors_max other Sessions kept since", 1, true, false, false, refused, ""},
		{"forgotten: the daemon restarted", 16, false, true, false, refused, ""},
		{"moved to a new executor by an earlier prepare", 16, false, false, true, refused, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vs := checkOnly(keepRun(c.max, c.other, c.crashed, c.resumed, c.answer), CheckExecutorConnection)
			switch {
			case c.want == "" && len(vs) > 0:
				t.Fatalf("unexpected violations:\n%s", Render(vs))
			case c.want != "" && (len(vs) != 1 || !containsMsg(vs[0], c.want)):
				t.Fatalf("want one %s violation containing %q, got:\n%s", CheckExecutorConnection, c.want, Render(vs))
			}
		})
	}
}
