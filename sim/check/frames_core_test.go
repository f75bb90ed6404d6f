package check

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

// prepareWorld is one Session on one device, the declaration known.
func prepareWorld(spec SessionSpec, kind wire.SupportedAgentKind) (*Ledger, wireFeed) {
	var now int64
	l := NewLedger()
	w := wireFeed{l: l, now: &now}
	l.SessionCreated(w.tick(), "s1", spec)
	w.open(1, "d1")
	w.heartbeat(1, "d1", kind)
	return l, w
}

func violationsOf(l *Ledger, check string) []string {
	var out []string
	for _, v := range l.Violations() {
		if v.Check == check {
			out = append(out, v.Message)
		}
	}
	return out
}

func wantOnly(t *testing.T, l *Ledger, check, fragment string) {
	t.Helper()
	vs := framesOnly(l.Violations())
	if len(vs) == 0 {
		t.Fatalf("no violation, want %s (%s)", check, fragment)
	}
	for _, v := range vs {
		if v.Check != check || !strings.Contains(v.Message, fragment) {
			t.Fatalf("violation %s, want only %s containing %q", v, check, fragment)
		}
	}
}

func TestPrepareConfigurationClean(t *testing.T) {
	spec := testSpec()
	spec.Environment, spec.EnvironmentID = "self_hosted", "env-1"
	spec.OutputSchema = []byte(`{"type": "object"}`)
	spec.MultiAgent, spec.TextVerbosity, spec.ModelProvider = true, "high", "prov"
	spec.FunctionTools = []wire.FunctionTool{{Name: "f", DeferLoading: true}}
	l, w := prepareWorld(spec, allKind())
	cfg := goodConfig("s1")
	cfg.DisableExecutionEnvironment, cfg.LocalEnvironment = false, &wire.LocalEnvironment{ID: "env-1"}
	cfg.ExecutionControls.TextVerbosity = "high"
	cfg.ExecutionControls.OutputFormat = &wire.OutputFormat{Type: "json_schema", Schema: json.RawMessage(`{"type":"object"}`)}
	cfg.DisableSubagents, cfg.ObserveSubagentIdentities = false, true
	cfg.AgentOptions["model_provider"] = json.RawMessage(`"prov"`)
	cfg.FunctionTools, cfg.ToolSearch = spec.FunctionTools, true
	w.coreSends(1, "d1", prepareFrame("p1", "s1", cfg))
	w.coreSends(1, "d1", startFrame("p1", "h1", "t-1", wire.TextInput("x")))
	if vs := framesOnly(l.Violations()); len(vs) > 0 {
		t.Fatalf("clean prepare judged: %v", vs)
	}
}

// Each mutation of the seeds' configuration is named.
func TestPrepareConfigurationMismatches(t *testing.T) {
	cases := map[string]struct {
		mutate   func(*wire.ExecutionConfiguration)
		fragment string
	}{
		"verbosity default": {func(c *wire.ExecutionConfiguration) { c.ExecutionControls.TextVerbosity = "low" }, `text_verbosity "low", want "medium"`},
		"web search":        {func(c *wire.ExecutionConfiguration) { c.ExecutionControls.WebSearch = "enabled" }, "web_search"},
		"no controls":       {func(c *wire.ExecutionConfiguration) { c.ExecutionControls = nil }, "execution_controls missing"},
		"extra option":      {func(c *wire.ExecutionConfiguration) { c.AgentOptions["temperature"] = json.RawMessage(`1`) }, `carries "temperature"`},
		"missing option":    {func(c *wire.ExecutionConfiguration) { delete(c.AgentOptions, "system_prompt") }, `lacks "system_prompt"`},
		"wrong model":       {func(c *wire.ExecutionConfiguration) { c.AgentOptions["model"] = json.RawMessage(`"n"`) }, `"model" is "n"`},
		"observe messages":  {func(c *wire.ExecutionConfiguration) { c.ObserveMessages = false }, "observe_messages"},
		"subagents":         {func(c *wire.ExecutionConfiguration) { c.DisableSubagents = false }, "disable_subagents"},
		"both environments": {func(c *wire.ExecutionConfiguration) { c.LocalEnvironment = &wire.LocalEnvironment{ID: "x"} }, "environment none"},
		"state key":         {func(c *wire.ExecutionConfiguration) { c.AgentStateKey = "agents-api-s2" }, "agent_state_key"},
		"run input":         {func(c *wire.ExecutionConfiguration) { c.RunID = "t-1" }, "Run input"},
		"strict resume":     {func(c *wire.ExecutionConfiguration) { c.StrictResume = false }, "strict_resume"},
		"kind":              {func(c *wire.ExecutionConfiguration) { c.AgentKind = "other" }, "agent_kind"},
		"tool search":       {func(c *wire.ExecutionConfiguration) { c.ToolSearch = true }, "tool_search"},
		"output format": {func(c *wire.ExecutionConfiguration) {
			c.ExecutionControls.OutputFormat = &wire.OutputFormat{Type: "json_schema"}
		}, "output_format"},
		"require history": {func(c *wire.ExecutionConfiguration) { c.RequireExistingNativeSession = true }, "never started a Run"},
		"session id":      {func(c *wire.ExecutionConfiguration) { c.AgentSessionID = "native-x" }, "never started a Run"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			l, w := prepareWorld(testSpec(), allKind())
			cfg := goodConfig("s1")
			tc.mutate(&cfg)
			w.coreSends(1, "d1", prepareFrame("p1", "s1", cfg))
			wantOnly(t, l, CheckPrepareConfiguration, tc.fragment)
		})
	}
}

// secondPrepare runs a first Turn of s1 to its native turn (and, with
// nativeID, a done naming the native session), then sends a second
// prepare with cfg.
func secondPrepare(nativeID string, cfg wire.ExecutionConfiguration) *Ledger {
	l, w := prepareWorld(testSpec(), allKind())
	w.coreSends(1, "d1", prepareFrame("p1", "s1", goodConfig("s1")))
	w.coreSends(1, "d1", startFrame("p1", "h1", "t-1", wire.TextInput("x")))
	l.TurnCreated(w.tick(), "d1", "t-1")
	if nativeID != "" {
		w.deviceSends(1, "d1", wire.Frame{ID: "t-1", Payload: wire.Done{Metadata: &wire.DoneMetadata{AgentSessionID: nativeID}}})
	}
	w.coreSends(1, "d1", prepareFrame("p2", "s1", cfg))
	return l
}

func TestNativeHistoryRules(t *testing.T) {
	resume := goodConfig("s1")
	resume.AgentSessionID = "native-s1"
	if vs := framesOnly(secondPrepare("native-s1", resume).Violations()); len(vs) > 0 {
		t.Fatalf("resume by the received ID judged: %v", vs)
	}
	require := goodConfig("s1")
	require.RequireExistingNativeSession = true
	if vs := framesOnly(secondPrepare("", require).Violations()); len(vs) > 0 {
		t.Fatalf("requiring unnamed history judged: %v", vs)
	}
	wantOnly(t, secondPrepare("", goodConfig("s1")), CheckNativeHistory, "run t-1 created native history")
	wantOnly(t, secondPrepare("native-s1", goodConfig("s1")), CheckNativeHistory, "run t-1 created native history")
	wrong := goodConfig("s1")
	wrong.AgentSessionID = "native-other"
	wantOnly(t, secondPrepare("native-s1", wrong), CheckPrepareConfiguration, `agent_session_id "native-other"`)
	both := resume
	both.RequireExistingNativeSession = true
	wantOnly(t, secondPrepare("native-s1", both), CheckPrepareConfiguration, "require_existing_native_session with agent_session_id")
}

// Recovery needs native_session_recovery of the chosen device.
func TestCapabilityRecoveryRequired(t *testing.T) {
	require := goodConfig("s1")
	require.RequireExistingNativeSession = true
	l, w := prepareWorld(testSpec(), allKind())
	w.coreSends(1, "d1", prepareFrame("p1", "s1", goodConfig("s1")))
	w.coreSends(1, "d1", startFrame("p1", "h1", "t-1", wire.TextInput("x")))
	l.TurnCreated(w.tick(), "d1", "t-1")
	lacking := allKind()
	lacking.Capabilities.NativeSessionRecovery = wire.CapabilityUnsupported
	w.heartbeat(1, "d1", lacking)
	w.coreSends(1, "d1", prepareFrame("p2", "s1", require))
	wantOnly(t, l, CheckCapability, "lacks native_session_recovery")
}

func TestCapabilityFromTheWire(t *testing.T) {
	image := wire.MessageInput{{Content: []wire.InputContent{wire.TextPart("x"), wire.ImagePart("https://i")}}}
	noImages := allKind()
	noImages.Capabilities.MessageImages = wire.CapabilityUnsupported
	unavailable := allKind()
	unavailable.Available = false
	cases := map[string]struct {
		kind     wire.SupportedAgentKind
		noBeat   bool
		input    wire.MessageInput
		fragment string
	}{
		"unavailable": {kind: unavailable, input: wire.TextInput("x"), fragment: "does not declare kind"},
		"undeclared":  {kind: wire.SupportedAgentKind{Kind: "other", Available: true, Capabilities: allKind().Capabilities}, input: wire.TextInput("x"), fragment: "does not declare kind"},
		"no beat":     {kind: allKind(), noBeat: true, input: wire.TextInput("x"), fragment: "before any heartbeat"},
		"images":      {kind: noImages, input: image, fragment: "lacks message_images"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var now int64
			l := NewLedger()
			w := wireFeed{l: l, now: &now}
			l.SessionCreated(w.tick(), "s1", testSpec())
			w.open(1, "d1")
			if !tc.noBeat {
				w.heartbeat(1, "d1", tc.kind)
			}
			cfg := goodConfig("s1")
			cfg.ObserveMessages = tc.kind.Capabilities.MessageItems.IsSupported() && tc.kind.Kind == testKind
			w.coreSends(1, "d1", prepareFrame("p1", "s1", cfg))
			w.coreSends(1, "d1", startFrame("p1", "h1", "t-1", tc.input))
			if got := violationsOf(l, CheckCapability); len(got) == 0 || !strings.Contains(got[0], tc.fragment) {
				t.Fatalf("capability violations %v, want %q", got, tc.fragment)
			}
		})
	}
}

// A steer the API accepted before the start makes images required at the
// final check; a later heartbeat's loss of a capability too.
func TestCapabilityFinalCheck(t *testing.T) {
	noImages := allKind()
	noImages.Capabilities.MessageImages = wire.CapabilityUnsupported
	l, w := prepareWorld(testSpec(), noImages)
	w.coreSends(1, "d1", prepareFrame("p1", "s1", goodConfig("s1")))
	l.SteerAnswered(w.tick(), "t-1", wire.MessageInput{{Content: []wire.InputContent{wire.ImagePart("https://i")}}})
	w.coreSends(1, "d1", startFrame("p1", "h1", "t-1", wire.TextInput("x")))
	wantOnly(t, l, CheckCapability, "lacks message_images")

	l, w = prepareWorld(testSpec(), allKind())
	w.coreSends(1, "d1", prepareFrame("p1", "s1", goodConfig("s1")))
	lost := allKind()
	lost.Capabilities.Steering = wire.CapabilityUnsupported
	w.heartbeat(1, "d1", lost)
	w.coreSends(1, "d1", startFrame("p1", "h1", "t-1", wire.TextInput("x")))
	wantOnly(t, l, CheckCapability, "lacks steering")

	l, w = prepareWorld(testSpec(), allKind())
	w.open(2, "d2")
	w.heartbeat(2, "d2", allKind())
	w.coreSends(1, "d1", prepareFrame("p1", "s1", goodConfig("s1")))
	w.coreSends(2, "d2", startFrame("p1", "h1", "t-1", wire.TextInput("x")))
	wantOnly(t, l, CheckCapability, "prepared on conn c1")
}

func TestRequiredCapabilitiesTable(t *testing.T) {
	s := SessionSpec{Environment: "openai_hosted", OutputSchema: []byte(`{}`), MultiAgent: true,
		FunctionTools: []wire.FunctionTool{{Name: "f", DeferLoading: true}}, DisableProgrammaticToolCalling: true,
		FunctionResultImages: true, ProfileWebSearchControl: true, ProfileTextVerbosity: true,
		MCPServers: []wire.MCPHTTPServer{{Required: true}, {BearerToken: "vault"}}}
	got := strings.Join(RequiredCapabilities(s, true, true), ",")
	want := "streaming,steering,durable_turns,durable_input_receipts,preparation,execution_controls,tool_observations," +
		"local_environment,workspace_read_preparation,workspace_output_export,native_session_recovery," +
		"web_search_control,text_verbosity,structured_output,message_items,subagent_observations,tool_search," +
		"programmatic_tool_calling_disable,function_tools,message_images,function_result_images," +
		"mcp_http_tools,mcp_http_required,mcp_http_bearer_auth"
	if got != want {
		t.Fatalf("requirements\n got %s\nwant %s", got, want)
	}
	got = strings.Join(RequiredCapabilities(SessionSpec{Environment: EnvNone}, false, false), ",")
	want = "streaming,steering,durable_turns,durable_input_receipts,preparation,execution_controls,tool_observations," +
		"environment_none,subagent_control"
	if got != want {
		t.Fatalf("plain requirements\n got %s\nwant %s", got, want)
	}
}
