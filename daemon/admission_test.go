package daemon

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/wire"
)

func TestHeartbeatOnConnectAndEveryInterval(t *testing.T) {
	r := newRig(t)
	hb := payloadsOf[wire.Heartbeat](r.sent())
	require.Truef(t, len(hb) == 1, "one heartbeat on connect, got %s", describeAll(r.out))
	eq(t, len(hb[0].SupportedAgentKinds), 1, "kinds declared")
	k := hb[0].SupportedAgentKinds[0]
	eq(t, k.Kind, "contract", "kind")
	require.Truef(t, k.Available, "available")
	require.Truef(t, k.Capabilities.Validate() == nil, "complete capabilities: %v", k.Capabilities.Validate())
	eq(t, hb[0].TS, t0.Unix(), "ts")
	at, ok := r.armed(heartbeatTimer(1))
	require.Truef(t, ok && at.Equal(t0.Add(15*time.Second)), "heartbeat timer at +15s, got %v %v", at, ok)
	r.fire(heartbeatTimer(1))
	eq(t, len(payloadsOf[wire.Heartbeat](r.sent())), 1, "heartbeat every interval")
	at, _ = r.armed(heartbeatTimer(1))
	require.Truef(t, at.Equal(t0.Add(30*time.Second)), "re-armed at +30s, got %v", at)
	r.step(ConnClosed{Conn: 1})
	r.step(TimerFired{Timer: heartbeatTimer(1)})
	eq(t, len(r.sent()), 0, "no heartbeat after disconnect")
}

func TestPrepareRevisionsAndExpiry(t *testing.T) {
	r := newRig(t)
	r.recv("p1", prepareFor("s1"))
	st := oneStatus(r)
	eq(t, st.State, wire.StatePreparing, "state")
	eq(t, st.Revision, uint64(1), "revision")
	require.Truef(t, st.Handle != "" && st.ExecutorID != "", "handle and executor on preparing: %+v", st)
	eq(t, st.ExpiresAt, t0.Add(5*time.Minute).UnixMilli(), "expires_at is grant + 5 min in Unix ms")
	c, op := callOf[Prepare](r)
	eq(t, op.Session, "s1", "prepare session")
	eq(t, op.Executor, st.ExecutorID, "prepare executor")
	r.advance(time.Second)
	r.result(c, PrepareResult{})
	rd := oneStatus(r)
	eq(t, rd.State, wire.StateReady, "ready")
	eq(t, rd.Revision, uint64(2), "ready revision")
	eq(t, rd.Handle, st.Handle, "same handle")
	eq(t, rd.ExpiresAt, st.ExpiresAt, "expiry fixed at grant")
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
			eq(t, st.State, wire.StateRejected, "state")
			eq(t, st.ErrorCode, tc.code, "code")
			eq(t, st.Operation, wire.TypeExecutionPrepare, "operation")
			eq(t, st.Revision, uint64(0), "rejection carries no revision")
			eq(t, st.Handle, "", "no handle")
			eq(t, len(r.calls()), 0, "no native call")
		})
	}
	t.Run("allowed agent options", func(t *testing.T) {
		r := newRigWith(t, cfg)
		p := prepareFor("s1")
		p.Configuration.AgentOptions = map[string]json.RawMessage{"model": []byte(`"m"`), "system_prompt": []byte(`"s"`),
			"model_provider": []byte(`"p"`), "harness_config": []byte(`{}`)}
		r.recv("p1", p)
		eq(t, oneStatus(r).State, wire.StatePreparing, "accepted")
	})
}

func TestPrepareFailureFailsAdmission(t *testing.T) {
	r := newRig(t)
	r.recv("p1", prepareFor("s1"))
	c, _ := callOf[Prepare](r)
	r.result(c, PrepareResult{Err: "boom"})
	st := oneStatus(r)
	eq(t, st.State, wire.StateFailed, "failed")
	eq(t, st.ErrorCode, CodePreparationFailed, "code")
	eq(t, st.Revision, uint64(2), "revision")
	eq(t, len(r.m.Snapshot().Executors), 0, "failed preparation leaves no executor")
	eq(t, len(r.sent()), 1, "no run output")
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
	eq(t, st.State, wire.StateFailed, "failed")
	eq(t, st.ErrorCode, CodeExecutorCleanupUnconfirmed, "code")
	closeCall, cl := callOf[CloseExecutor](r)
	eq(t, cl.Executor, st.ExecutorID, "the retained executor is closed")
	snap := r.m.Snapshot().Executors
	eq(t, len(snap), 1, "the executor stays owned until its close is confirmed")
	r.recv("p2", prepareFor("s1"))
	eq(t, oneStatus(r).ErrorCode, CodeExecutorCleanupUnconfirmed, "the Session's next prepare while the close is pending")
	r.result(closeCall, CloseResult{Err: "still there"})
	noCall[CloseExecutor](r)
	r.advance(time.Minute)
	r.fire(closeRetryTimer(cl.Executor))
	retry, again := callOf[CloseExecutor](r)
	eq(t, again.Executor, cl.Executor, "the same target is retried")
	r.result(retry, CloseResult{})
	eq(t, len(r.m.Snapshot().Executors), 0, "a confirmed close frees the slot")
	r.recv("p3", prepareFor("s1"))
	eq(t, oneStatus(r).State, wire.StatePreparing, "the Session prepares again")
}

func TestDuplicatePrepare(t *testing.T) {
	r := newRig(t)
	first := r.ready("p1", "s1")
	r.advance(4 * time.Minute)
	r.recv("p1", prepareFor("s1"))
	again := oneStatus(r)
	eq(t, again, first, "identical request republishes the current status")
	eq(t, len(r.calls()), 0, "no native work for a repeat")
	other := prepareFor("s1")
	other.Configuration.ObserveMessages = true
	r.recv("p1", other)
	rej := oneStatus(r)
	eq(t, rej.State, wire.StateRejected, "conflict rejected")
	eq(t, rej.ErrorCode, CodeRequestConflict, "code")
	// The rejection did not replace the handle's revision.
	r.recv("p1", wire.ExecutionRelease{Handle: first.Handle})
	rel := oneStatus(r)
	eq(t, rel.Revision, first.Revision+1, "next revision follows ready")
	eq(t, rel.State, wire.StateReleased, "released")
}

func TestExpiryNotExtendedByRetries(t *testing.T) {
	r := newRig(t)
	first := r.ready("p1", "s1")
	r.advance(4 * time.Minute)
	r.recv("p1", prepareFor("s1"))
	eq(t, oneStatus(r).ExpiresAt, first.ExpiresAt, "repeat keeps expiry")
	at, ok := r.armed(expiryTimer(first.Handle))
	require.Truef(t, ok && at.Equal(t0.Add(5*time.Minute)), "expiry timer still at grant + 5 min: %v", at)
	r.fire(expiryTimer(first.Handle))
	st := oneStatus(r)
	eq(t, st.State, wire.StateExpired, "expired")
	eq(t, st.ErrorCode, "", "expiry has no code")
	eq(t, st.Revision, uint64(3), "revision")
	ex := r.m.Snapshot().Executors
	require.Truef(t, len(ex) == 1 && ex[0].Phase == "idle", "expired admission's executor kept for cleanup: %+v", ex)
	// A start after expiry answers the expired status and starts nothing.
	r.recv("p1", startFor(first, "run1"))
	eq(t, oneStatus(r).State, wire.StateExpired, "start after expiry")
	noCall[StartTurn](r)
}

func TestStartAtExpiryInstantBeforeTimer(t *testing.T) {
	r := newRig(t)
	st := r.ready("p1", "s1")
	r.now = t0.Add(5 * time.Minute)
	r.recv("p1", startFor(st, "run1"))
	eq(t, oneStatus(r).State, wire.StateExpired, "deadline reached: expired")
	noCall[StartTurn](r)
}

func TestExpiryWhilePreparingKeepsCleanupObligation(t *testing.T) {
	r := newRig(t)
	r.recv("p1", prepareFor("s1"))
	st := oneStatus(r)
	c, _ := callOf[Prepare](r)
	r.fire(expiryTimer(st.Handle))
	eq(t, oneStatus(r).State, wire.StateExpired, "expired while preparing")
	eq(t, len(r.m.Owned()), 2, "executor and prepare call still owned")
	r.result(c, PrepareResult{})
	eq(t, len(r.sent()), 0, "no ready after expiry")
	ex := r.m.Snapshot().Executors
	require.Truef(t, len(ex) == 1 && ex[0].Phase == "idle", "prepared executor parked idle: %+v", ex)
	r.fire(idleTimer(ex[0].ID))
	_, op := callOf[CloseExecutor](r)
	eq(t, op.Executor, ex[0].ID, "idle expiry closes")
}

func TestIdleReuseAndConflicts(t *testing.T) {
	r := newRig(t)
	turn := r.started("p1", "s1", "run1")
	r.settle(turn, SettleResult{Settled: true, Reusable: true, Outcome: wire.Done{Metadata: &wire.DoneMetadata{AgentSessionID: "n1"}}})
	r.recv("p2", prepareFor("s1"))
	st := oneStatus(r)
	eq(t, st.State, wire.StateReady, "reuse answers ready")
	eq(t, st.Revision, uint64(1), "at revision 1")
	require.Truef(t, st.Reused, "reused flag")
	eq(t, len(r.calls()), 0, "no native preparation")
	// While reserved: another prepare for the Session is told to retry.
	r.recv("p3", prepareFor("s1"))
	eq(t, oneStatus(r).ErrorCode, CodePreparationCapacity, "owner busy: retry later")
	r.recv("p2", wire.ExecutionRelease{Handle: st.Handle})
	conflict := prepareFor("s1")
	conflict.Configuration.DisableSubagents = true
	r.recv("p4", conflict)
	eq(t, oneStatus(r).ErrorCode, CodeConfigurationConflict, "different fingerprint")
	resume := prepareFor("s1")
	resume.Configuration.AgentSessionID = "other"
	r.recv("p5", resume)
	eq(t, oneStatus(r).ErrorCode, CodeNativeSessionConflict, "different native session")
	hist := prepareFor("s2")
	hist.Configuration.RequireExistingNativeSession = true
	r.recv("p6", hist)
	eq(t, oneStatus(r).ErrorCode, CodeHistoryUnavailable, "no history to resume")
}

func TestActiveCapacity(t *testing.T) {
	r := newRig(t)
	for i, s := range []string{"a", "b", "c", "d"} {
		r.recv("p"+s, prepareFor(s))
		eq(t, oneStatus(r).State, wire.StatePreparing, "prepare "+s)
		_ = i
	}
	r.recv("pe", prepareFor("e"))
	st := oneStatus(r)
	eq(t, st.ErrorCode, CodePreparationCapacity, "fifth active preparation")
	eq(t, st.State, wire.StateRejected, "rejected")
	eq(t, len(r.calls()), 0, "no native work")
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
	eq(t, oneStatus(r).ErrorCode, CodePreparationCapacity, "uncertain close still holds its slot")
	eq(t, r.m.Snapshot().Capacity.Active, 4, "active count includes the closing executor")
	// Confirmed close frees it.
	ex := r.m.Snapshot().Executors[0].ID
	r.fire(closeRetryTimer(ex))
	c, _ = callOf[CloseExecutor](r)
	r.result(c, CloseResult{})
	eq(t, frameTypes(r.sent()), "done", "done after the confirmed close")
	r.recv("pe", prepareFor("e"))
	eq(t, oneStatus(r).State, wire.StatePreparing, "slot free after cleanup")
}

// A full executor table answers preparation_capacity (retryable: every
// slot frees once its cleanup succeeds), closing the oldest idle executor
// to make room; closing executors keep counting until confirmed.
func TestExecutorTableFullIsPreparationCapacity(t *testing.T) {
	cfg := testConfig()
	cfg.Limits.ExecutorsMax = 4
	cfg.Limits.ActiveMax = 2
	r := newRigWith(t, cfg)
	for _, s := range []string{"a", "b", "c", "d"} {
		st := r.ready("p"+s, s)
		r.recv("p"+s, wire.ExecutionRelease{Handle: st.Handle})
	}
	eq(t, r.m.Snapshot().Capacity.Idle, 4, "four idle executors")
	r.recv("pe", prepareFor("e"))
	eq(t, oneStatus(r).ErrorCode, CodePreparationCapacity, "a new executor is needed while the table is full")
	c, op := callOf[CloseExecutor](r)
	eq(t, op.Executor, "ex-1", "oldest idle executor closed to make room")
	r.recv("pf", prepareFor("f"))
	eq(t, oneStatus(r).ErrorCode, CodePreparationCapacity, "closing executor still counts")
	r.result(c, CloseResult{Err: "busy"})
	r.recv("pg", prepareFor("g"))
	eq(t, oneStatus(r).ErrorCode, CodePreparationCapacity, "uncertain executor still counts")
	r.fire(closeRetryTimer("ex-1"))
	c, _ = callOf[CloseExecutor](r)
	r.result(c, CloseResult{})
	r.recv("ph", prepareFor("h"))
	eq(t, oneStatus(r).State, wire.StatePreparing, "the retry succeeds once cleanup freed the slot")
	for _, e := range r.allSent() {
		if s, ok := e.Payload.(wire.PreparationStatus); ok && s.ErrorCode == CodeExecutorCapacity {
			t.Fatalf("executor_capacity answered: Core would never retry")
		}
	}
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
	eq(t, r.m.Snapshot().Capacity.Records, 4, "records kept")
	r.ready("pe", "s")
	eq(t, r.m.Snapshot().Capacity.Records, 4, "oldest terminal record evicted")
	r.recv("pa", wire.ExecutionRelease{Handle: first.Handle})
	eq(t, oneStatus(r).ErrorCode, CodeUnknownPreparation, "evicted handle is gone")
}

// Handles, routes and timers are connection-local; the executor is a
// Session resource that outlives the connection and is reused by the
// next connection's prepare of the same Session and configuration.
func TestHandlesAreConnectionLocal(t *testing.T) {
	r := newRig(t)
	st := r.ready("p1", "s1")
	r.step(ConnClosed{Conn: 1})
	ex := r.m.Snapshot().Executors
	require.Truef(t, len(ex) == 1 && ex[0].Phase == "idle", "ready executor parked on disconnect: %+v", ex)
	noCall[CloseExecutor](r)
	r.connect()
	eq(t, frameTypes(r.sent()), "heartbeat", "reconnect sends only a heartbeat")
	r.recv("p1", startFor(st, "run1"))
	eq(t, oneStatus(r).ErrorCode, CodeUnknownPreparation, "old handle unknown on the new connection")
	noCall[StartTurn](r)
	r.step(TimerFired{Timer: expiryTimer(st.Handle)})
	eq(t, len(r.out), 0, "old connection's expiry timer has no effect")
	r.recv("p2", prepareFor("s1"))
	s := oneStatus(r)
	require.Truef(t, s.State == wire.StateReady && s.Reused && s.ExecutorID == st.ExecutorID && s.Handle != st.Handle,
		"the parked executor is reused under a new handle: %+v", s)

	eq(t, len(r.calls()), 0, "no native preparation")
}

func TestReleaseBeforeStart(t *testing.T) {
	r := newRig(t)
	st := r.ready("p1", "s1")
	r.recv("p1", wire.ExecutionRelease{Handle: st.Handle})
	rel := oneStatus(r)
	eq(t, rel.State, wire.StateReleased, "released")
	eq(t, rel.Revision, uint64(3), "revision")
	noCall[CloseExecutor](r)
	ex := r.m.Snapshot().Executors
	require.Truef(t, len(ex) == 1 && ex[0].Phase == "idle", "release never closes the session's executor: %+v", ex)
	r.recv("p1", wire.ExecutionRelease{Handle: st.Handle})
	eq(t, oneStatus(r), rel, "repeat republishes")
	r.recv("p1", wire.ExecutionRelease{})
	eq(t, oneStatus(r).ErrorCode, CodeInvalidRelease, "empty handle")
	r.recv("p9", wire.ExecutionRelease{Handle: st.Handle})
	eq(t, oneStatus(r).ErrorCode, CodeUnknownPreparation, "handle of another request")
}

func TestReleaseAfterStartDoesNotCancel(t *testing.T) {
	r := newRig(t)
	r.started("p1", "s1", "run1")
	st := r.m.Snapshot().Admissions[0]
	r.recv("p1", wire.ExecutionRelease{Handle: st.Handle})
	eq(t, oneStatus(r).State, wire.StateStarted, "release after start republishes started")
	noCall[Cancel](r)
	eq(t, len(r.m.Snapshot().Turns), 1, "turn untouched")
}

func TestOldRecordsNeverConsumeSuccessorAdmissions(t *testing.T) {
	cfg := testConfig()
	cfg.Limits.AdmissionRecordsMax = 4
	r := newRigWith(t, cfg)
	for _, s := range []string{"a", "b", "c", "d"} {
		r.recv("p"+s, prepareFor(s))
	}
	r.recv("pe", prepareFor("e"))
	eq(t, oneStatus(r).ErrorCode, CodePreparationCapacity, "full on the first connection")
	r.step(ConnClosed{Conn: 1})
	r.connect()
	eq(t, r.m.Snapshot().Capacity.Records, 0, "records belong to their connection")
	// The old preparations still hold active slots until they settle.
	r.recv("pe", prepareFor("e"))
	eq(t, oneStatus(r).ErrorCode, CodePreparationCapacity, "old native preparations still count")
	var prepares []CallID
	for _, e := range r.all {
		if c, ok := e.(NativeCall); ok {
			if _, ok := c.Op.(Prepare); ok {
				prepares = append(prepares, c.Call)
			}
		}
	}
	r.result(prepares[0], PrepareResult{})
	eq(t, len(r.sent()), 0, "a retired admission publishes nothing")
	r.recv("pe", prepareFor("e"))
	eq(t, oneStatus(r).State, wire.StatePreparing, "the successor admits once a slot is free")
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
	eq(t, op.Executor, "ex-1", "least recently idle executor closed")
	eq(t, r.m.Snapshot().Capacity.Idle, 2, "idle bound kept")
}

func TestReleaseOfOldHandleNeverTouchesSuccessor(t *testing.T) {
	r := newRig(t)
	old := r.ready("p1", "s1")
	r.recv("p1", wire.ExecutionRelease{Handle: old.Handle})
	turn := r.started("p2", "s1", "run2")
	r.recv("p1", wire.ExecutionRelease{Handle: old.Handle})
	eq(t, oneStatus(r).State, wire.StateReleased, "old handle republishes released")
	noCall[Cancel](r)
	noCall[CloseExecutor](r)
	v := r.m.Snapshot().Turns
	require.Truef(t, len(v) == 1 && v[0].ID == turn && v[0].State == "running", "successor turn untouched: %+v", v)
}
