package core_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

func TestFIFOOneActiveTurnPerSession(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	sid := h.session(defaultAgent())
	t1 := h.submit(sid, "one")
	p1 := one[wire.ExecutionPrepare](t, h.last)
	t2 := h.submit(sid, "two")
	require.Empty(t, sends[wire.ExecutionPrepare](h.last), "one active Turn per Session")
	_, run1 := h.startedOn(1, []core.Effect{core.Send{Conn: 1, Frame: wire.Frame{ID: p1.ID, Payload: p1.P}}})
	require.Equal(t, t1, run1)
	require.Equal(t, core.TurnQueued, h.turn(t2).State)
	effs := h.frame(1, run1, wire.Done{Content: "1", Metadata: &wire.DoneMetadata{AgentSessionID: "n-1"}})
	p2 := one[wire.ExecutionPrepare](t, effs)
	require.NotEqual(t, p1.ID, p2.ID)
	start := one[wire.ExecutionStart](t, h.frame(1, p2.ID, status(wire.StateReady, 1)))
	require.Equal(t, t2, start.P.RunID)
	require.Equal(t, wire.TextInput("two"), start.P.Input)

	// Another Session is independent.
	s2 := h.session(defaultAgent())
	h.submit(s2, "other")
	require.Len(t, sends[wire.ExecutionPrepare](h.last), 1)
}

func TestPrepareCarriesExactlyCoreFields(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	sid := h.session(defaultAgent())
	h.submit(sid, "secret input")
	prep := one[wire.ExecutionPrepare](t, h.last)
	want := wire.ExecutionConfiguration{
		AgentKind: kind,
		AgentOptions: map[string]json.RawMessage{
			"model": []byte(`"m"`), "system_prompt": []byte(`"be brief"`),
		},
		ExecutionControls:           &wire.ExecutionControls{WebSearch: "disabled", TextVerbosity: "medium"},
		AgentStateKey:               "agents-api-" + sid,
		StrictResume:                true,
		DisableExecutionEnvironment: true,
		DisableSubagents:            true,
	}
	require.Equal(t, sid, prep.P.SessionID)
	require.Equal(t, want, prep.P.Configuration)
	require.Equal(t, "", prep.P.Configuration.RunID)
	require.Len(t, prep.P.Configuration.Input, 0)
	_, err := wire.Encode(wire.Frame{ID: prep.ID, Payload: prep.P})
	require.NoError(t, err)
}

func TestPrepareConfigurationFromAgent(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, hostedCaps(fullCaps()))
	a := defaultAgent()
	hosted(&a)
	a.ModelProvider = "prov"
	a.HarnessConfig = []byte(`{"k":1}`)
	a.TextVerbosity = "high"
	a.OutputSchema = []byte(`{"type":"object"}`)
	a.MultiAgent = true
	a.DisableProgrammaticToolCalling = true
	a.ToolSearch = true
	a.FunctionTools = []wire.FunctionTool{{Name: "f", DeferLoading: true}}
	a.MCPServers = []wire.MCPHTTPServer{{ServerLabel: "l", ServerURL: "https://x"}}
	sid := h.session(a)
	h.submit(sid, "x")
	c := one[wire.ExecutionPrepare](t, h.last).P.Configuration
	require.Len(t, c.AgentOptions, 4)
	require.Equal(t, `"prov"`, string(c.AgentOptions["model_provider"]))
	require.Equal(t, `{"k":1}`, string(c.AgentOptions["harness_config"]))
	require.Equal(t, "high", c.ExecutionControls.TextVerbosity)
	require.Equal(t, "disabled", c.ExecutionControls.WebSearch)
	require.True(t, c.ExecutionControls.DisableProgrammaticToolCalling)
	require.Equal(t, "json_schema", c.ExecutionControls.OutputFormat.Type)
	require.Equal(t, &wire.LocalEnvironment{ID: "env-1"}, c.LocalEnvironment)
	require.False(t, c.DisableExecutionEnvironment)
	require.True(t, c.ObserveMessages, "message_items declared")
	require.True(t, c.ObserveSubagentIdentities)
	require.False(t, c.DisableSubagents)
	require.True(t, c.ToolSearch)
	require.Len(t, c.FunctionTools, 1)
	require.Equal(t, wire.OriginEnvironment, (*c.MCPHTTPServers)[0].ConnectionOrigin, "origin frozen before dispatch")
	_, err := wire.Encode(wire.Frame{ID: "p", Payload: wire.ExecutionPrepare{SessionID: sid, Configuration: c}})
	require.NoError(t, err)
	require.Equal(t, "agents-api-"+sid, c.AgentStateKey)
	require.True(t, c.StrictResume)
}

func TestCreateSessionRejectsInvalidConfig(t *testing.T) {
	bad := map[string]func(*core.AgentConfig){
		"no kind":      func(a *core.AgentConfig) { a.Kind = "" },
		"no model":     func(a *core.AgentConfig) { a.Model = "" },
		"env type":     func(a *core.AgentConfig) { a.Environment = "cloud" },
		"hosted no id": func(a *core.AgentConfig) { a.Environment = core.EnvSelfHosted },
		"none with id": func(a *core.AgentConfig) { a.EnvironmentID = "e" },
		"verbosity":    func(a *core.AgentConfig) { a.TextVerbosity = "loud" },
		"dup tool":     func(a *core.AgentConfig) { a.FunctionTools = []wire.FunctionTool{{Name: "f"}, {Name: "f"}} },
		"mcp origin": func(a *core.AgentConfig) {
			a.MCPServers = []wire.MCPHTTPServer{{ServerLabel: "l", ServerURL: "u", ConnectionOrigin: "environment"}}
		},
		"mcp bad origin": func(a *core.AgentConfig) {
			a.MCPServers = []wire.MCPHTTPServer{{ServerLabel: "l", ServerURL: "u", ConnectionOrigin: "x"}}
		},
		"search no defer": func(a *core.AgentConfig) { a.ToolSearch = true; a.FunctionTools = []wire.FunctionTool{{Name: "f"}} },
		"mcp no url":      func(a *core.AgentConfig) { a.MCPServers = []wire.MCPHTTPServer{{ServerLabel: "l"}} },
	}
	for name, mutate := range bad {
		t.Run(name, func(t *testing.T) {
			h := newRig(t)
			a := defaultAgent()
			mutate(&a)
			r := h.api(core.CreateSession{Call: "c", Agent: a})
			require.ErrorIs(t, r.Err, core.ErrInvalidConfig)
			require.EqualValues(t, 0, h.st.Writes(), "rejected call wrote to the store")
		})
	}
}

func TestSubmitTurnRejections(t *testing.T) {
	h := newRigCfg(t, core.Config{TurnsPerSessionMax: 1})
	sid := h.session(defaultAgent())
	w := h.st.Writes()
	r := h.api(core.SubmitTurn{Call: "a", Session: "s-404", Input: wire.TextInput("x")})
	require.ErrorIs(t, r.Err, core.ErrUnknownSession)
	r = h.api(core.SubmitTurn{Call: "b", Session: sid, Input: wire.MessageInput{}})
	require.ErrorIs(t, r.Err, core.ErrInvalidInput)
	r = h.api(core.SubmitTurn{Call: "c", Session: sid, Input: wire.TextInput("")})
	require.ErrorIs(t, r.Err, core.ErrInvalidInput)
	require.Equal(t, w, h.st.Writes())
	h.submit(sid, "ok")
	w = h.st.Writes()
	r = h.api(core.SubmitTurn{Call: "d", Session: sid, Input: wire.TextInput("x")})
	require.ErrorIs(t, r.Err, core.ErrQueueFull)
	require.Equal(t, w, h.st.Writes())
}

func TestSessionLimit(t *testing.T) {
	h := newRigCfg(t, core.Config{SessionsMax: 1})
	h.session(defaultAgent())
	w := h.st.Writes()
	r := h.api(core.CreateSession{Call: "c", Agent: defaultAgent()})
	require.ErrorIs(t, r.Err, core.ErrSessionLimit)
	require.Equal(t, w, h.st.Writes())
}

// TestStaleAndDuplicateRevisionsIgnored: only strictly increasing
// revisions on the first handle seen count.
func TestStaleAndDuplicateRevisionsIgnored(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	sid := h.session(defaultAgent())
	tid := h.submit(sid, "x")
	prep := one[wire.ExecutionPrepare](t, h.last)
	h.frame(1, prep.ID, status(wire.StatePreparing, 3))
	require.Empty(t, h.frame(1, prep.ID, status(wire.StateReady, 2)), "stale revision")
	require.Empty(t, h.frame(1, prep.ID, status(wire.StateReady, 3)), "duplicate revision")
	other := status(wire.StateReady, 9)
	other.Handle = "h-other"
	require.Empty(t, h.frame(1, prep.ID, other), "another handle")
	noHandle := status(wire.StateReady, 10)
	noHandle.Handle = ""
	require.Empty(t, h.frame(1, prep.ID, noHandle), "no handle")
	require.Empty(t, h.frame(1, "p-999", status(wire.StateReady, 11)), "unknown stream")
	require.Equal(t, core.TurnQueued, h.turn(tid).State)
	one[wire.ExecutionStart](t, h.frame(1, prep.ID, status(wire.StateReady, 4)))
	require.Empty(t, h.frame(1, prep.ID, status(wire.StateReady, 5)), "a second ready starts nothing")
}

func TestStatusFromOtherConnectionIgnored(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	h.connect("d2", 2, baseCaps())
	sid := h.session(defaultAgent())
	h.submit(sid, "x")
	prep := one[wire.ExecutionPrepare](t, h.last)
	require.Equal(t, core.ConnID(1), prep.Conn)
	require.Empty(t, h.frame(2, prep.ID, status(wire.StateReady, 1)))
}

func TestStartCarriesExecutorHandleRunAndOrderedInput(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	sid := h.session(defaultAgent())
	in := wire.MessageInput{
		{Content: []wire.InputContent{wire.TextPart("a"), wire.TextPart("b")}},
		{Content: []wire.InputContent{wire.TextPart("c")}},
	}
	r := h.api(core.SubmitTurn{Call: "c", Session: sid, Input: in})
	prep := one[wire.ExecutionPrepare](t, h.last)
	start := one[wire.ExecutionStart](t, h.frame(1, prep.ID, status(wire.StateReady, 1)))
	require.Equal(t, prep.ID, start.ID, "start travels on the preparation request ID")
	require.Equal(t, wire.ExecutionStart{ExecutorID: "exec-1", Handle: "h-1", RunID: r.Value.(core.TurnSubmitted).Turn, Input: in}, start.P)
	require.Equal(t, core.TurnStarting, h.turn(r.Value.(core.TurnSubmitted).Turn).State)
}

func TestPreparationCapacityKeepsTurnUnclaimedAndRetries(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	sid := h.session(defaultAgent())
	tid := h.submit(sid, "x")
	prep := one[wire.ExecutionPrepare](t, h.last)
	effs := h.frame(1, prep.ID, wire.PreparationStatus{State: wire.StateRejected, ErrorCode: "preparation_capacity", Operation: wire.TypeExecutionPrepare})
	require.Empty(t, sends[wire.ExecutionPrepare](effs), "no immediate retry")
	require.Equal(t, core.TurnQueued, h.turn(tid).State)
	effs = h.fire(core.TimerID("prepare-retry:" + sid))
	again := one[wire.ExecutionPrepare](t, effs)
	require.NotEqual(t, prep.ID, again.ID)
}

func TestOtherPreparationErrorsAreNotReplayed(t *testing.T) {
	cases := map[string]wire.PreparationStatus{
		"rejected": {State: wire.StateRejected, ErrorCode: "unsupported_configuration"},
		// the executor limit and an Environment busy with a transfer:
		// only preparation_capacity keeps the Turn unclaimed
		"executor_capacity":    {State: wire.StateRejected, ErrorCode: "executor_capacity", Operation: wire.TypeExecutionPrepare},
		"resource_unavailable": {State: wire.StateRejected, ErrorCode: "resource_unavailable", Operation: wire.TypeExecutionPrepare},
		"failed":               {ExecutorID: "e", Handle: "h", Revision: 2, State: wire.StateFailed, ErrorCode: "preparation_failed"},
		"expired":              {ExecutorID: "e", Handle: "h", Revision: 2, State: wire.StateExpired},
	}
	for name, st := range cases {
		t.Run(name, func(t *testing.T) {
			h := newRig(t)
			h.connect("d1", 1, baseCaps())
			sid := h.session(defaultAgent())
			tid := h.submit(sid, "x")
			prep := one[wire.ExecutionPrepare](t, h.last)
			effs := h.frame(1, prep.ID, st)
			require.Empty(t, sends[wire.ExecutionPrepare](effs))
			v := h.turn(tid)
			require.Equal(t, core.TurnFailed, v.State)
			require.Equal(t, core.CodePreparationStartFailed, v.ErrorCode)
			if st.ErrorCode != "" {
				require.Equal(t, st.ErrorCode, v.ErrorDetail, "the Runtime's code recorded")
			}
			require.Empty(t, h.m.Timers()[1:], "no retry timer")
		})
	}
}

func startRefusal(code string) []wire.PreparationStatus {
	return []wire.PreparationStatus{
		{ExecutorID: "exec-1", Handle: "h-1", Revision: 3, State: wire.StateFailed},
		{ExecutorID: "exec-1", Handle: "h-1", State: wire.StateRejected, ErrorCode: code, Operation: wire.TypeExecutionStart},
	}
}

// TestExecutorUnavailableRetriedExactlyOnce: the single retry rule.
func TestExecutorUnavailableRetriedExactlyOnce(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	sid := h.session(defaultAgent())
	tid := h.submit(sid, "x")
	prep := one[wire.ExecutionPrepare](t, h.last)
	one[wire.ExecutionStart](t, h.frame(1, prep.ID, status(wire.StateReady, 1)))
	var effs []core.Effect
	for _, st := range startRefusal("executor_unavailable") {
		effs = h.frame(1, prep.ID, st)
	}
	retry := one[wire.ExecutionPrepare](t, effs)
	require.Equal(t, core.TurnQueued, h.turn(tid).State)
	start := one[wire.ExecutionStart](t, h.frame(1, retry.ID, status(wire.StateReady, 1)))
	require.Equal(t, tid+".2", start.P.RunID, "a fresh attempt gets a fresh Run ID")
	for _, st := range startRefusal("executor_unavailable") {
		effs = h.frame(1, retry.ID, st)
	}
	require.Empty(t, sends[wire.ExecutionPrepare](effs), "only one retry")
	v := h.turn(tid)
	require.Equal(t, core.TurnFailed, v.State)
	require.Equal(t, "executor_unavailable", v.ErrorDetail)
}

func TestStartRefusalNotRetriedAfterCancelOrOtherCode(t *testing.T) {
	for _, cancel := range []bool{true, false} {
		h := newRig(t)
		h.connect("d1", 1, baseCaps())
		sid := h.session(defaultAgent())
		tid := h.submit(sid, "x")
		prep := one[wire.ExecutionPrepare](t, h.last)
		h.frame(1, prep.ID, status(wire.StateReady, 1))
		code := "start_cancelled"
		if cancel {
			code = "executor_unavailable"
			one[wire.PromptCancel](t, h.step(core.CancelTurn{Call: "x", Turn: tid}))
		}
		var effs []core.Effect
		for _, st := range startRefusal(code) {
			effs = h.frame(1, prep.ID, st)
		}
		require.Empty(t, sends[wire.ExecutionPrepare](effs))
		require.Equal(t, core.CodePreparationStartFailed, h.turn(tid).ErrorCode)
	}
}

func TestCancelQueuedTurnReleasesAdmission(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	sid := h.session(defaultAgent())
	tid := h.submit(sid, "x")
	prep := one[wire.ExecutionPrepare](t, h.last)
	// Cancelled before any handle is known: the handle is released when it appears.
	r := h.api(core.CancelTurn{Call: "c", Turn: tid})
	require.NoError(t, r.Err)
	require.Equal(t, core.TurnCancelled, h.turn(tid).State)
	effs := h.frame(1, prep.ID, status(wire.StateReady, 1))
	require.Empty(t, sends[wire.ExecutionStart](effs))
	require.Equal(t, "h-1", one[wire.ExecutionRelease](t, effs).P.Handle)
	require.Empty(t, h.m.Preparations())
}

func TestExpiredAfterStartFailsWithoutRetry(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	sid := h.session(defaultAgent())
	tid := h.submit(sid, "x")
	prep := one[wire.ExecutionPrepare](t, h.last)
	h.frame(1, prep.ID, status(wire.StateReady, 1))
	effs := h.frame(1, prep.ID, status(wire.StateExpired, 2))
	require.Empty(t, sends[wire.ExecutionPrepare](effs))
	v := h.turn(tid)
	require.Equal(t, core.CodePreparationStartFailed, v.ErrorCode)
	require.Equal(t, "expired", v.ErrorDetail)
}

// TestFailedWithCodeAfterStart: a `failed executor_unavailable` status is
// enough for the single retry; the rejected that follows changes nothing.
func TestFailedWithCodeAfterStart(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	sid := h.session(defaultAgent())
	tid := h.submit(sid, "x")
	prep := one[wire.ExecutionPrepare](t, h.last)
	h.frame(1, prep.ID, status(wire.StateReady, 1))
	st := status(wire.StateFailed, 2)
	st.ErrorCode = "executor_unavailable"
	retry := one[wire.ExecutionPrepare](t, h.frame(1, prep.ID, st))
	require.NotEqual(t, prep.ID, retry.ID)
	require.Empty(t, h.frame(1, prep.ID, wire.PreparationStatus{State: wire.StateRejected, ErrorCode: "executor_unavailable", Operation: wire.TypeExecutionStart}))
	require.Equal(t, core.TurnQueued, h.turn(tid).State)
}

func TestAbandonedPreparationRefusedIsForgotten(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	sid := h.session(defaultAgent())
	tid := h.submit(sid, "x")
	prep := one[wire.ExecutionPrepare](t, h.last)
	h.step(core.CancelTurn{Call: "c", Turn: tid})
	require.Len(t, h.m.Preparations(), 1)
	h.frame(1, prep.ID, wire.PreparationStatus{State: wire.StateRejected, ErrorCode: "preparation_capacity"})
	require.Empty(t, h.m.Preparations())
}

func TestStartedForAnotherRunIgnored(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	sid := h.session(defaultAgent())
	tid := h.submit(sid, "x")
	prep := one[wire.ExecutionPrepare](t, h.last)
	h.frame(1, prep.ID, status(wire.StateReady, 1))
	h.frame(1, prep.ID, wire.PreparationStatus{ExecutorID: "exec-1", Handle: "h-1", Revision: 2, State: wire.StateStarted, RunID: "t-99"})
	require.Equal(t, core.TurnStarting, h.turn(tid).State)
	h.frame(1, prep.ID, wire.PreparationStatus{ExecutorID: "exec-1", Handle: "h-1", Revision: 3, State: wire.StateStarted, RunID: tid})
	require.Equal(t, core.TurnRunning, h.turn(tid).State)
}
