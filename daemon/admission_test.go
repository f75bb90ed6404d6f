package daemon

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/wire"
)

func TestHeartbeatOnConnectAndEveryInterval(t *testing.T) {
	r := newRig(t)
	hb := payloadsOf[wire.Heartbeat](r.sent())
	require.Truef(t, len(hb) == 1, "one heartbeat on connect, got %s", describeAll(r.out))
	require.Len(t, hb[0].SupportedAgentKinds, 1, "kinds declared")
	k := hb[0].SupportedAgentKinds[0]
	require.Equal(t, "contract", k.Kind, "kind")
	require.Truef(t, k.Available, "available")
	require.Truef(t, k.Capabilities.Validate() == nil, "complete capabilities: %v", k.Capabilities.Validate())
	require.Equal(t, t0.Unix(), hb[0].TS, "ts")
	at, ok := r.armed(heartbeatTimer(1))
	require.Truef(t, ok && at.Equal(t0.Add(15*time.Second)), "heartbeat timer at +15s, got %v %v", at, ok)
	r.fire(heartbeatTimer(1))
	require.Len(t, payloadsOf[wire.Heartbeat](r.sent()), 1, "heartbeat every interval")
	at, _ = r.armed(heartbeatTimer(1))
	require.Truef(t, at.Equal(t0.Add(30*time.Second)), "re-armed at +30s, got %v", at)
	r.step(ConnClosed{Conn: 1})
	r.step(TimerFired{Timer: heartbeatTimer(1)})
	require.Empty(t, r.sent(), "no heartbeat after disconnect")
}

func TestPrepareRevisionsAndExpiry(t *testing.T) {
	r := newRig(t)
	r.recv("p1", prepareFor("s1"))
	st := oneStatus(r)
	require.Equal(t, wire.StatePreparing, st.State, "state")
	require.Equal(t, uint64(1), st.Revision, "revision")
	require.Truef(t, st.Handle != "" && st.ExecutorID != "", "handle and executor on preparing: %+v", st)
	require.Equal(t, t0.Add(5*time.Minute).UnixMilli(), st.ExpiresAt, "expires_at is grant + 5 min in Unix ms")
	c, op := callOf[Prepare](r)
	require.Equal(t, "s1", op.Session, "prepare session")
	require.Equal(t, st.ExecutorID, op.Executor, "prepare executor")
	r.advance(time.Second)
	r.result(c, PrepareResult{})
	rd := oneStatus(r)
	require.Equal(t, wire.StateReady, rd.State, "ready")
	require.Equal(t, uint64(2), rd.Revision, "ready revision")
	require.Equal(t, st.Handle, rd.Handle, "same handle")
	require.Equal(t, st.ExpiresAt, rd.ExpiresAt, "expiry fixed at grant")
}

func TestPrepareValidation(t *testing.T) {
	caps := testCaps()
	noPrep := caps
	noPrep.Preparation = wire.CapabilityUnsupported
	cfg := testConfig()
	cfg.Kinds = append(cfg.Kinds,
		KindConfig{Kind: "down", Available: false, Capabilities: caps},
		KindConfig{Kind: "noprep", Available: true, Capabilities: noPrep})
	cases := []struct {
		name string
		mut  func(p *wire.ExecutionPrepare)
		code string
	}{
		{"blank session", func(p *wire.ExecutionPrepare) { p.SessionID = " "; p.Configuration.AgentStateKey = "agents-api- " }, CodeInvalidConfiguration},
		{"run id", func(p *wire.ExecutionPrepare) { p.Configuration.RunID = "r" }, CodeInvalidConfiguration},
		{"input", func(p *wire.ExecutionPrepare) { p.Configuration.Input = wire.TextInput("x") }, CodeInvalidConfiguration},
		{"conversation", func(p *wire.ExecutionPrepare) { p.Configuration.ConversationID = "c" }, CodeInvalidConfiguration},
		{"authoring", func(p *wire.ExecutionPrepare) { p.Configuration.WorkspaceAuthoring = true }, CodeInvalidConfiguration},
		{"state key", func(p *wire.ExecutionPrepare) { p.Configuration.AgentStateKey = "agents-api-other" }, CodeInvalidConfiguration},
		{"strict resume", func(p *wire.ExecutionPrepare) { p.Configuration.StrictResume = false }, CodeInvalidConfiguration},
		{"unknown kind", func(p *wire.ExecutionPrepare) { p.Configuration.AgentKind = "nope" }, CodeResourceUnavailable},
		{"unavailable kind", func(p *wire.ExecutionPrepare) { p.Configuration.AgentKind = "down" }, CodeResourceUnavailable},
		{"read only", func(p *wire.ExecutionPrepare) { p.Configuration.WorkspaceReadOnly = true }, CodeUnsupportedReadPreparation},
		{"no preparation", func(p *wire.ExecutionPrepare) { p.Configuration.AgentKind = "noprep" }, CodeUnsupportedPreparation},
		{"no environment", func(p *wire.ExecutionPrepare) { p.Configuration.DisableExecutionEnvironment = false }, CodeUnsupportedConfiguration},
		{"both environments", func(p *wire.ExecutionPrepare) {
			p.Configuration.LocalEnvironment = &wire.LocalEnvironment{ID: "e"}
		}, CodeUnsupportedConfiguration},
		{"local without capability", func(p *wire.ExecutionPrepare) {
			p.Configuration.DisableExecutionEnvironment = false
			p.Configuration.LocalEnvironment = &wire.LocalEnvironment{ID: "e"}
		}, CodeUnsupportedConfiguration},
		{"function tools", func(p *wire.ExecutionPrepare) {
			p.Configuration.FunctionTools = []wire.FunctionTool{{Name: "f"}}
		}, CodeUnsupportedConfiguration},
		{"mcp origin missing", func(p *wire.ExecutionPrepare) {
			p.Configuration.MCPHTTPServers = &[]wire.MCPHTTPServer{{ServerLabel: "m"}}
		}, CodeInvalidConfiguration},
		{"mcp environment origin without environment", func(p *wire.ExecutionPrepare) {
			p.Configuration.MCPHTTPServers = &[]wire.MCPHTTPServer{{ConnectionOrigin: wire.OriginEnvironment}}
		}, CodeUnsupportedConfiguration},
		{"observe messages without message_items", func(p *wire.ExecutionPrepare) { p.Configuration.ObserveMessages = true }, CodeUnsupportedConfiguration},
		{"observe subagent identities", func(p *wire.ExecutionPrepare) { p.Configuration.ObserveSubagentIdentities = true }, CodeUnsupportedConfiguration},
		{"disable subagents without subagent_control", func(p *wire.ExecutionPrepare) { p.Configuration.DisableSubagents = true }, CodeUnsupportedConfiguration},
		{"tool search", func(p *wire.ExecutionPrepare) { p.Configuration.ToolSearch = true }, CodeUnsupportedConfiguration},
		{"agent option", func(p *wire.ExecutionPrepare) {
			p.Configuration.AgentOptions = map[string]json.RawMessage{"model": []byte(`"m"`), "temperature": []byte(`1`)}
		}, CodeUnsupportedConfiguration},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRigWith(t, cfg)
			p := prepareFor("s1")
			tc.mut(&p)
			r.recv("p1", p)
			st := oneStatus(r)
			require.Equal(t, wire.StateRejected, st.State, "state")
			require.Equal(t, tc.code, st.ErrorCode, "code")
			require.Equal(t, wire.TypeExecutionPrepare, st.Operation, "operation")
			require.Equal(t, uint64(0), st.Revision, "rejection carries no revision")
			require.Equal(t, "", st.Handle, "no handle")
			require.Empty(t, r.calls(), "no native call")
		})
	}
	t.Run("allowed agent options", func(t *testing.T) {
		r := newRigWith(t, cfg)
		p := prepareFor("s1")
		p.Configuration.AgentOptions = map[string]json.RawMessage{"model": []byte(`"m"`), "system_prompt": []byte(`"s"`),
			"model_provider": []byte(`"p"`), "harness_config": []byte(`{}`)}
		r.recv("p1", p)
		require.Equal(t, wire.StatePreparing, oneStatus(r).State, "accepted")
	})
}

func TestPrepareFailureFailsAdmission(t *testing.T) {
	r := newRig(t)
	r.recv("p1", prepareFor("s1"))
	c, _ := callOf[Prepare](r)
	r.result(c, PrepareResult{Err: "boom"})
	st := oneStatus(r)
	require.Equal(t, wire.StateFailed, st.State, "failed")
	require.Equal(t, CodePreparationFailed, st.ErrorCode, "code")
	require.Equal(t, uint64(2), st.Revision, "revision")
	require.Empty(t, r.m.Snapshot().Executors, "failed preparation leaves no executor")
	require.Len(t, r.sent(), 1, "no run output")
}

// A failed preparation that left its executor (Retained) fails its
// admission executor_cleanup_unconfirmed, keeps the executor owned and
// closes it: while the close is unconfirmed the Session's next prepare
// is refused as uncertain and a failed close is retried; a confirmed
// close frees the slot, and the Session prepares again.
func TestPrepareFailureThatRetainsItsExecutorClosesIt(t *testing.T) {
	r := newRig(t)
	r.recv("p1", prepareFor("s1"))
	c, _ := callOf[Prepare](r)
	r.result(c, PrepareResult{Err: "boom", Retained: true})
	st := oneStatus(r)
	require.Equal(t, wire.StateFailed, st.State, "failed")
	require.Equal(t, CodeExecutorCleanupUnconfirmed, st.ErrorCode, "code")
	closeCall, cl := callOf[CloseExecutor](r)
	require.Equal(t, st.ExecutorID, cl.Executor, "the retained executor is closed")
	snap := r.m.Snapshot().Executors
	require.Len(t, snap, 1, "the executor stays owned until its close is confirmed")
	r.recv("p2", prepareFor("s1"))
	require.Equal(t, CodeExecutorCleanupUnconfirmed, oneStatus(r).ErrorCode, "the Session's next prepare while the close is pending")
	r.result(closeCall, CloseResult{Err: "still there"})
	noCall[CloseExecutor](r)
	r.advance(time.Minute)
	r.fire(closeRetryTimer(cl.Executor))
	retry, again := callOf[CloseExecutor](r)
	require.Equal(t, cl.Executor, again.Executor, "the same target is retried")
	r.result(retry, CloseResult{})
	require.Empty(t, r.m.Snapshot().Executors, "a confirmed close frees the slot")
	r.recv("p3", prepareFor("s1"))
	require.Equal(t, wire.StatePreparing, oneStatus(r).State, "the Session prepares again")
}

func TestDuplicatePrepare(t *testing.T) {
	r := newRig(t)
	first := r.ready("p1", "s1")
	r.advance(4 * time.Minute)
	r.recv("p1", prepareFor("s1"))
	again := oneStatus(r)
	require.Equal(t, first, again, "identical request republishes the current status")
	require.Empty(t, r.calls(), "no native work for a repeat")
	other := prepareFor("s1")
	other.Configuration.ObserveMessages = true
	r.recv("p1", other)
	rej := oneStatus(r)
	require.Equal(t, wire.StateRejected, rej.State, "conflict rejected")
	require.Equal(t, CodeRequestConflict, rej.ErrorCode, "code")
	// The rejection did not replace the handle's revision.
	r.recv("p1", wire.ExecutionRelease{Handle: first.Handle})
	rel := oneStatus(r)
	require.Equal(t, first.Revision+1, rel.Revision, "next revision follows ready")
	require.Equal(t, wire.StateReleased, rel.State, "released")
}

func TestExpiryNotExtendedByRetries(t *testing.T) {
	r := newRig(t)
	first := r.ready("p1", "s1")
	r.advance(4 * time.Minute)
	r.recv("p1", prepareFor("s1"))
	require.Equal(t, first.ExpiresAt, oneStatus(r).ExpiresAt, "repeat keeps expiry")
	at, ok := r.armed(expiryTimer(first.Handle))
	require.Truef(t, ok && at.Equal(t0.Add(5*time.Minute)), "expiry timer still at grant + 5 min: %v", at)
	r.fire(expiryTimer(first.Handle))
	st := oneStatus(r)
	require.Equal(t, wire.StateExpired, st.State, "expired")
	require.Equal(t, "", st.ErrorCode, "expiry has no code")
	require.Equal(t, uint64(3), st.Revision, "revision")
	ex := r.m.Snapshot().Executors
	require.Truef(t, len(ex) == 1 && ex[0].Phase == "idle", "expired admission's executor kept for cleanup: %+v", ex)
	// A start after expiry answers the expired status and starts nothing.
	r.recv("p1", startFor(first, "run1"))
	require.Equal(t, wire.StateExpired, oneStatus(r).State, "start after expiry")
	noCall[StartTurn](r)
}

func TestStartAtExpiryInstantBeforeTimer(t *testing.T) {
	r := newRig(t)
	st := r.ready("p1", "s1")
	r.now = t0.Add(5 * time.Minute)
	r.recv("p1", startFor(st, "run1"))
	require.Equal(t, wire.StateExpired, oneStatus(r).State, "deadline reached: expired")
	noCall[StartTurn](r)
}

func TestExpiryWhilePreparingKeepsCleanupObligation(t *testing.T) {
	r := newRig(t)
	r.recv("p1", prepareFor("s1"))
	st := oneStatus(r)
	c, _ := callOf[Prepare](r)
	r.fire(expiryTimer(st.Handle))
	require.Equal(t, wire.StateExpired, oneStatus(r).State, "expired while preparing")
	require.Len(t, r.m.Owned(), 2, "executor and prepare call still owned")
	r.result(c, PrepareResult{})
	require.Empty(t, r.sent(), "no ready after expiry")
	ex := r.m.Snapshot().Executors
	require.Truef(t, len(ex) == 1 && ex[0].Phase == "idle", "prepared executor parked idle: %+v", ex)
	r.fire(idleTimer(ex[0].ID))
	_, op := callOf[CloseExecutor](r)
	require.Equal(t, ex[0].ID, op.Executor, "idle expiry closes")
}

func TestIdleReuseAndConflicts(t *testing.T) {
	r := newRig(t)
	turn := r.started("p1", "s1", "run1")
	r.settle(turn, SettleResult{Settled: true, Reusable: true, Outcome: wire.Done{Metadata: &wire.DoneMetadata{AgentSessionID: "n1"}}})
	r.recv("p2", prepareFor("s1"))
	st := oneStatus(r)
	require.Equal(t, wire.StateReady, st.State, "reuse answers ready")
	require.Equal(t, uint64(1), st.Revision, "at revision 1")
	require.Truef(t, st.Reused, "reused flag")
	require.Empty(t, r.calls(), "no native preparation")
	// While reserved: another prepare for the Session is told to retry.
	r.recv("p3", prepareFor("s1"))
	require.Equal(t, CodePreparationCapacity, oneStatus(r).ErrorCode, "owner busy: retry later")
	r.recv("p2", wire.ExecutionRelease{Handle: st.Handle})
	conflict := prepareFor("s1")
	conflict.Configuration.AgentOptions = map[string]json.RawMessage{"model": []byte(`"other"`)}
	r.recv("p4", conflict)
	require.Equal(t, CodeConfigurationConflict, oneStatus(r).ErrorCode, "different fingerprint")
	resume := prepareFor("s1")
	resume.Configuration.AgentSessionID = "other"
	r.recv("p5", resume)
	require.Equal(t, CodeNativeSessionConflict, oneStatus(r).ErrorCode, "different native session")
	hist := prepareFor("s2")
	hist.Configuration.RequireExistingNativeSession = true
	r.recv("p6", hist)
	require.Equal(t, CodeHistoryUnavailable, oneStatus(r).ErrorCode, "no history to resume")
}

func TestActiveCapacity(t *testing.T) {
	r := newRig(t)
	for i, s := range []string{"a", "b", "c", "d"} {
		r.recv("p"+s, prepareFor(s))
		require.Equal(t, wire.StatePreparing, oneStatus(r).State, "prepare "+s)
		_ = i
	}
	r.recv("pe", prepareFor("e"))
	st := oneStatus(r)
	require.Equal(t, CodePreparationCapacity, st.ErrorCode, "fifth active preparation")
	require.Equal(t, wire.StateRejected, st.State, "rejected")
	require.Empty(t, r.calls(), "no native work")
}

func TestClosingResourcesCountAgainstCapacity(t *testing.T) {
	r := newRig(t)
	var turns []TurnID
	for _, s := range []string{"a", "b", "c", "d"} {
		turns = append(turns, r.started("p"+s, s, "run-"+s))
	}
	// Turn a settles non-reusable; its close fails: still counted.
	r.settle(turns[0], SettleResult{Settled: true, Reusable: false, Reason: "retired"})
	c, _ := callOf[CloseExecutor](r)
	r.result(c, CloseResult{Err: "close failed"})
	r.recv("pe", prepareFor("e"))
	require.Equal(t, CodePreparationCapacity, oneStatus(r).ErrorCode, "uncertain close still holds its slot")
	require.Equal(t, 4, r.m.Snapshot().Capacity.Active, "active count includes the closing executor")
	// Confirmed close frees it.
	ex := r.m.Snapshot().Executors[0].ID
	r.fire(closeRetryTimer(ex))
	c, _ = callOf[CloseExecutor](r)
	r.result(c, CloseResult{})
	require.Equal(t, "done", frameTypes(r.sent()), "done after the confirmed close")
	r.recv("pe", prepareFor("e"))
	require.Equal(t, wire.StatePreparing, oneStatus(r).State, "slot free after cleanup")
}

// A new executor needed while the table is full of idle executors is
// refused executor_capacity (wire-reference §3.3: the executor limit
// refuses), and the oldest idle executor is closed once the refusal is
// sent; while closing or uncertain executors hold slots, cleanup occupies
// the capacity and the answer is preparation_capacity (retryable: each
// slot frees once its cleanup succeeds).
func TestExecutorTableFull(t *testing.T) {
	cfg := testConfig()
	cfg.Limits.ExecutorsMax = 4
	cfg.Limits.ActiveMax = 2
	r := newRigWith(t, cfg)
	for _, s := range []string{"a", "b", "c", "d"} {
		st := r.ready("p"+s, s)
		r.recv("p"+s, wire.ExecutionRelease{Handle: st.Handle})
	}
	require.Equal(t, 4, r.m.Snapshot().Capacity.Idle, "four idle executors")
	r.recv("pe", prepareFor("e"))
	st := oneStatus(r)
	require.Equal(t, wire.StateRejected, st.State, "refused")
	require.Equal(t, CodeExecutorCapacity, st.ErrorCode, "a new executor is needed while the table holds four idle executors")
	require.Empty(t, st.Handle, "no handle")
	noCall[Prepare](r)
	sendAt := slices.IndexFunc(r.out, func(e Effect) bool { _, ok := e.(Send); return ok })
	closeAt := slices.IndexFunc(r.out, func(e Effect) bool { c, ok := e.(NativeCall); _, closes := c.Op.(CloseExecutor); return ok && closes })
	require.Truef(t, sendAt >= 0 && closeAt > sendAt, "the oldest idle executor is closed after the refusal is sent: %s", describeAll(r.out))
	c, op := callOf[CloseExecutor](r)
	require.Equal(t, "ex-1", op.Executor, "oldest idle executor closed to make room")
	r.recv("pf", prepareFor("f"))
	require.Equal(t, CodePreparationCapacity, oneStatus(r).ErrorCode, "closing executor still counts: cleanup occupies the table")
	r.result(c, CloseResult{Err: "busy"})
	r.recv("pg", prepareFor("g"))
	require.Equal(t, CodePreparationCapacity, oneStatus(r).ErrorCode, "uncertain executor still counts")
	r.fire(closeRetryTimer("ex-1"))
	c, _ = callOf[CloseExecutor](r)
	r.result(c, CloseResult{})
	r.recv("ph", prepareFor("h"))
	require.Equal(t, wire.StatePreparing, oneStatus(r).State, "the retry succeeds once cleanup freed the slot")
}

func TestAdmissionRecordsBounded(t *testing.T) {
	cfg := testConfig()
	cfg.Limits.AdmissionRecordsMax = 4
	r := newRigWith(t, cfg)
	var first wire.PreparationStatus
	for i, s := range []string{"a", "b", "c", "d"} {
		st := r.ready("p"+s, "s")
		if i == 0 {
			first = st
		}
		r.recv("p"+s, wire.ExecutionRelease{Handle: st.Handle})
	}
	require.Equal(t, 4, r.m.Snapshot().Capacity.Records, "records kept")
	r.ready("pe", "s")
	require.Equal(t, 4, r.m.Snapshot().Capacity.Records, "oldest terminal record evicted")
	r.recv("pa", wire.ExecutionRelease{Handle: first.Handle})
	require.Equal(t, CodeUnknownPreparation, oneStatus(r).ErrorCode, "evicted handle is gone")
}

// Handles, routes, timers and executors are connection-local: the
// executor a lost connection reserved is closed, and the next
// connection's prepare of the Session creates a new one.
func TestHandlesAreConnectionLocal(t *testing.T) {
	r := newRig(t)
	st := r.ready("p1", "s1")
	r.step(ConnClosed{Conn: 1})
	ex := r.m.Snapshot().Executors
	require.Truef(t, len(ex) == 1 && ex[0].Phase == "closing", "the retired admission's executor is closed on disconnect: %+v", ex)
	cc, _ := callOf[CloseExecutor](r)
	r.connect()
	require.Equal(t, "heartbeat", frameTypes(r.sent()), "reconnect sends only a heartbeat")
	r.recv("p1", startFor(st, "run1"))
	require.Equal(t, CodeUnknownPreparation, oneStatus(r).ErrorCode, "old handle unknown on the new connection")
	noCall[StartTurn](r)
	r.step(TimerFired{Timer: expiryTimer(st.Handle)})
	require.Empty(t, r.out, "old connection's expiry timer has no effect")
	r.recv("p2", prepareFor("s1"))
	require.Equal(t, CodePreparationCapacity, oneStatus(r).ErrorCode, "the old executor is not reused while it closes: retry later")
	r.result(cc, CloseResult{})
	r.recv("p3", prepareFor("s1"))
	s := oneStatus(r)
	require.Truef(t, s.State == wire.StatePreparing && !s.Reused && s.ExecutorID != st.ExecutorID, "a new executor on the new connection: %+v", s)
}

func TestReleaseBeforeStart(t *testing.T) {
	r := newRig(t)
	st := r.ready("p1", "s1")
	r.recv("p1", wire.ExecutionRelease{Handle: st.Handle})
	rel := oneStatus(r)
	require.Equal(t, wire.StateReleased, rel.State, "released")
	require.Equal(t, uint64(3), rel.Revision, "revision")
	noCall[CloseExecutor](r)
	ex := r.m.Snapshot().Executors
	require.Truef(t, len(ex) == 1 && ex[0].Phase == "idle", "release never closes the session's executor: %+v", ex)
	r.recv("p1", wire.ExecutionRelease{Handle: st.Handle})
	require.Equal(t, rel, oneStatus(r), "repeat republishes")
	r.recv("p1", wire.ExecutionRelease{})
	require.Equal(t, CodeInvalidRelease, oneStatus(r).ErrorCode, "empty handle")
	r.recv("p9", wire.ExecutionRelease{Handle: st.Handle})
	require.Equal(t, CodeUnknownPreparation, oneStatus(r).ErrorCode, "handle of another request")
}

func TestReleaseAfterStartDoesNotCancel(t *testing.T) {
	r := newRig(t)
	r.started("p1", "s1", "run1")
	st := r.m.Snapshot().Admissions[0]
	r.recv("p1", wire.ExecutionRelease{Handle: st.Handle})
	require.Equal(t, wire.StateStarted, oneStatus(r).State, "release after start republishes started")
	noCall[Cancel](r)
	require.Len(t, r.m.Snapshot().Turns, 1, "turn untouched")
}

func TestOldRecordsNeverConsumeSuccessorAdmissions(t *testing.T) {
	cfg := testConfig()
	cfg.Limits.AdmissionRecordsMax = 4
	r := newRigWith(t, cfg)
	for _, s := range []string{"a", "b", "c", "d"} {
		r.recv("p"+s, prepareFor(s))
	}
	r.recv("pe", prepareFor("e"))
	require.Equal(t, CodePreparationCapacity, oneStatus(r).ErrorCode, "full on the first connection")
	r.step(ConnClosed{Conn: 1})
	r.connect()
	require.Equal(t, 0, r.m.Snapshot().Capacity.Records, "records belong to their connection")
	// The old preparations still hold active slots until they settle.
	r.recv("pe", prepareFor("e"))
	require.Equal(t, CodePreparationCapacity, oneStatus(r).ErrorCode, "old native preparations still count")
	var prepares []CallID
	for _, e := range r.all {
		if c, ok := e.(NativeCall); ok {
			if _, ok := c.Op.(Prepare); ok {
				prepares = append(prepares, c.Call)
			}
		}
	}
	r.result(prepares[0], PrepareResult{})
	require.Empty(t, r.sent(), "a retired admission publishes nothing")
	r.recv("pe", prepareFor("e"))
	require.Equal(t, wire.StatePreparing, oneStatus(r).State, "the successor admits once a slot is free")
}

func TestIdleExecutorsBounded(t *testing.T) {
	cfg := testConfig()
	cfg.Limits.IdleExecutorsMax = 2
	r := newRigWith(t, cfg)
	for _, s := range []string{"a", "b", "c"} {
		st := r.ready("p"+s, s)
		r.advance(time.Second)
		r.recv("p"+s, wire.ExecutionRelease{Handle: st.Handle})
	}
	_, op := callOf[CloseExecutor](r)
	require.Equal(t, "ex-1", op.Executor, "least recently idle executor closed")
	require.Equal(t, 2, r.m.Snapshot().Capacity.Idle, "idle bound kept")
}

func TestReleaseOfOldHandleNeverTouchesSuccessor(t *testing.T) {
	r := newRig(t)
	old := r.ready("p1", "s1")
	r.recv("p1", wire.ExecutionRelease{Handle: old.Handle})
	turn := r.started("p2", "s1", "run2")
	r.recv("p1", wire.ExecutionRelease{Handle: old.Handle})
	require.Equal(t, wire.StateReleased, oneStatus(r).State, "old handle republishes released")
	noCall[Cancel](r)
	noCall[CloseExecutor](r)
	v := r.m.Snapshot().Turns
	require.Truef(t, len(v) == 1 && v[0].ID == turn && v[0].State == "running", "successor turn untouched: %+v", v)
}
