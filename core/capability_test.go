package core_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

// admissionRow is one row of the admission table: an Agent (and input)
// that needs capability cap.
type admissionRow struct {
	name    string
	cap     string
	agent   func(*core.AgentConfig)
	input   wire.MessageInput
	profile core.EngineProfile
	// base: the capabilities the Agent otherwise needs.
	base func(wire.AgentKindCapabilities) wire.AgentKindCapabilities
}

func hosted(a *core.AgentConfig) { a.Environment, a.EnvironmentID = core.EnvSelfHosted, "env-1" }

func hostedCaps(c wire.AgentKindCapabilities) wire.AgentKindCapabilities {
	c = with(c, "environment_none", wire.CapabilityUnsupported)
	for _, n := range []string{"local_environment", "workspace_read_preparation", "workspace_output_export"} {
		c = with(c, n, wire.CapabilitySupported)
	}
	return c
}

func admissionRows() []admissionRow {
	same := func(c wire.AgentKindCapabilities) wire.AgentKindCapabilities { return c }
	none := func(*core.AgentConfig) {}
	rows := []admissionRow{}
	for _, c := range []string{"streaming", "steering", "durable_turns", "durable_input_receipts", "preparation", "execution_controls", "tool_observations"} {
		rows = append(rows, admissionRow{name: "always " + c, cap: c, agent: none, base: same})
	}
	schema := func(a *core.AgentConfig) { a.OutputSchema = []byte(`{"type":"object"}`) }
	mcp := func(req bool, token string) func(*core.AgentConfig) {
		return func(a *core.AgentConfig) {
			a.MCPServers = []wire.MCPHTTPServer{{ServerLabel: "l", ServerURL: "https://x", Required: req, BearerToken: token}}
		}
	}
	withCaps := func(names ...string) func(wire.AgentKindCapabilities) wire.AgentKindCapabilities {
		return func(c wire.AgentKindCapabilities) wire.AgentKindCapabilities {
			for _, n := range names {
				c = with(c, n, wire.CapabilitySupported)
			}
			return c
		}
	}
	multi := func(c wire.AgentKindCapabilities) wire.AgentKindCapabilities {
		return with(with(c, "subagent_control", wire.CapabilityUnsupported), "subagent_observations", wire.CapabilitySupported)
	}
	rows = append(rows,
		admissionRow{name: "environment none", cap: "environment_none", agent: none, base: same},
		admissionRow{name: "hosted local", cap: "local_environment", agent: hosted, base: hostedCaps},
		admissionRow{name: "hosted read prep", cap: "workspace_read_preparation", agent: hosted, base: hostedCaps},
		admissionRow{name: "hosted export", cap: "workspace_output_export", agent: func(a *core.AgentConfig) {
			a.Environment, a.EnvironmentID = core.EnvOpenAIHosted, "env-2"
		}, base: hostedCaps},
		admissionRow{name: "web search control", cap: "web_search_control", agent: none, base: withCaps("web_search_control"), profile: core.EngineProfile{WebSearchControl: true}},
		admissionRow{name: "text verbosity", cap: "text_verbosity", agent: none, base: withCaps("text_verbosity"), profile: core.EngineProfile{TextVerbosity: true}},
		admissionRow{name: "json schema structured", cap: "structured_output", agent: schema, base: withCaps("structured_output", "message_items")},
		admissionRow{name: "json schema items", cap: "message_items", agent: schema, base: withCaps("structured_output", "message_items")},
		admissionRow{name: "multi agent on", cap: "subagent_observations", agent: func(a *core.AgentConfig) { a.MultiAgent = true }, base: multi},
		admissionRow{name: "multi agent off", cap: "subagent_control", agent: none, base: same},
		admissionRow{name: "tool search", cap: "tool_search", agent: func(a *core.AgentConfig) {
			a.ToolSearch = true
			a.FunctionTools = []wire.FunctionTool{{Name: "f", DeferLoading: true}}
		}, base: withCaps("tool_search", "function_tools")},
		admissionRow{name: "deferred functions", cap: "tool_search", agent: func(a *core.AgentConfig) {
			a.FunctionTools = []wire.FunctionTool{{Name: "f", DeferLoading: true}}
		}, base: withCaps("tool_search", "function_tools")},
		admissionRow{name: "programmatic disable", cap: "programmatic_tool_calling_disable", agent: func(a *core.AgentConfig) { a.DisableProgrammaticToolCalling = true }, base: withCaps("programmatic_tool_calling_disable")},
		admissionRow{name: "function tools", cap: "function_tools", agent: func(a *core.AgentConfig) {
			a.FunctionTools = []wire.FunctionTool{{Name: "f"}}
		}, base: withCaps("function_tools")},
		admissionRow{name: "message images", cap: "message_images", agent: none, base: withCaps("message_images"),
			input: wire.MessageInput{{Content: []wire.InputContent{wire.ImagePart("data:image/png;base64,AAAA")}}}},
		admissionRow{name: "function result images", cap: "function_result_images", agent: func(a *core.AgentConfig) { a.FunctionResultImages = true }, base: withCaps("function_result_images")},
		admissionRow{name: "mcp tools", cap: "mcp_http_tools", agent: mcp(false, ""), base: withCaps("mcp_http_tools")},
		admissionRow{name: "mcp required", cap: "mcp_http_required", agent: mcp(true, ""), base: withCaps("mcp_http_tools", "mcp_http_required")},
		admissionRow{name: "mcp bearer", cap: "mcp_http_bearer_auth", agent: mcp(false, "vault-token"), base: withCaps("mcp_http_tools", "mcp_http_bearer_auth")},
	)
	return rows
}

// TestAdmissionTable: for every row, a device declaring everything the
// Agent needs gets the preparation, and the same device without the row's
// capability makes the Turn fail naming it, never dispatching it.
func TestAdmissionTable(t *testing.T) {
	for _, row := range admissionRows() {
		t.Run(row.name, func(t *testing.T) {
			for _, supported := range []bool{true, false} {
				h := profileHarness(t, row.profile)
				caps := row.base(baseCaps())
				if !supported {
					caps = with(caps, row.cap, wire.CapabilityUnsupported)
				}
				h.connect("d1", 1, caps)
				a := defaultAgent()
				row.agent(&a)
				sid := h.session(a)
				in := row.input
				if in == nil {
					in = wire.TextInput("x")
				}
				r := h.api(core.SubmitTurn{Call: "c", Session: sid, Input: in})
				require.NoError(t, r.Err)
				v := h.turn(r.Value.(core.TurnSubmitted).Turn)
				if supported {
					require.Len(t, sends[wire.ExecutionPrepare](h.last), 1, "%v", describeAll(h.last))
					p := sends[wire.ExecutionPrepare](h.last)[0]
					_, err := wire.Encode(wire.Frame{ID: p.ID, Payload: p.P})
					require.NoError(t, err, "Core's execution_prepare passes the wire validator")
					require.Equal(t, core.TurnQueued, v.State)
					continue
				}
				require.Empty(t, sends[wire.ExecutionPrepare](h.last))
				require.Equal(t, core.TurnFailed, v.State)
				require.Equal(t, core.CodeCapabilityUnsupported, v.ErrorCode)
				require.Equal(t, row.cap, v.ErrorDetail)
			}
		})
	}
}

func TestNativeSessionRecoveryRequiredWithoutRecordedNativeSession(t *testing.T) {
	for _, recorded := range []bool{false, true} {
		h := newRig(t)
		_, _, runID := h.running()
		done := wire.Done{Content: "ok"}
		if recorded {
			done.Metadata = &wire.DoneMetadata{AgentSessionID: "native-1"}
		}
		h.frame(1, runID, done)
		if recorded {
			h.submit("s-1", "again")
			prep := one[wire.ExecutionPrepare](t, h.last)
			require.Equal(t, "native-1", prep.P.Configuration.AgentSessionID)
			require.False(t, prep.P.Configuration.RequireExistingNativeSession)
			continue
		}
		// The only device lacks the capability: the API refuses early,
		// naming it, and queues nothing.
		r := h.api(core.SubmitTurn{Call: h.nextCall(), Session: "s-1", Input: wire.TextInput("again")})
		require.ErrorIs(t, r.Err, core.ErrSessionUnrecoverable)
		require.ErrorContains(t, r.Err, "native_session_recovery")
		require.Empty(t, sends[wire.ExecutionPrepare](h.last))
	}
	// With the capability the recovery is requested explicitly.
	h := newRig(t)
	h.connect("d1", 1, with(baseCaps(), "native_session_recovery", wire.CapabilitySupported))
	sid := h.session(defaultAgent())
	h.submit(sid, "x")
	_, runID := h.startedOn(1, h.last)
	h.frame(1, runID, wire.Done{})
	h.submit(sid, "y")
	prep := one[wire.ExecutionPrepare](t, h.last)
	require.True(t, prep.P.Configuration.RequireExistingNativeSession)
}

// TestFinalCheckBeforeClaim: a heartbeat withdrawing a capability between
// prepare and ready makes the final check reject: the admission is
// released and no execution_start is sent.
func TestFinalCheckBeforeClaim(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	sid := h.session(defaultAgent())
	tid := h.submit(sid, "x")
	prep := one[wire.ExecutionPrepare](t, h.last)
	h.frame(1, "", heartbeat(with(baseCaps(), "steering", wire.CapabilityUnsupported)))
	requireRefusedAtReady(t, h, h.frame(1, prep.ID, status(wire.StateReady, 1)), tid, "steering")
}

// TestNeverSubstitutesAnotherKind: a device offering a different, fully
// capable kind is never used for the Session's kind.
func TestNeverSubstitutesAnotherKind(t *testing.T) {
	h := newRig(t)
	h.step(core.ConnOpened{Device: "d1", Conn: 1})
	h.frame(1, "", wire.Heartbeat{SupportedAgentKinds: []wire.SupportedAgentKind{
		{Kind: "other", Available: true, Capabilities: fullCaps()},
		{Kind: kind, Available: true, Capabilities: with(baseCaps(), "streaming", wire.CapabilityUnsupported)},
	}})
	sid := h.session(defaultAgent())
	tid := h.submit(sid, "x")
	require.Empty(t, sends[wire.ExecutionPrepare](h.last))
	require.Equal(t, "streaming", h.turn(tid).ErrorDetail)
}

func TestCapabilityCheckUsesOnlyRequiredRows(t *testing.T) {
	require.Equal(t, "", core.Missing(baseCaps(), core.Requirements(core.SessionRecord{Agent: defaultAgent()}, core.EngineProfile{}, false)))
	require.Equal(t, "message_images", core.Missing(baseCaps(), core.Requirements(core.SessionRecord{Agent: defaultAgent()}, core.EngineProfile{}, true)))
}

func TestMissingPanicsOnANameOutsideTheDeclaration(t *testing.T) {
	require.PanicsWithValue(t, `core: assertion failed: required capability "no_such_capability" is not a declaration field`, func() {
		core.Missing(baseCaps(), []string{"streaming", "no_such_capability"})
	})
}
