package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// runWireCases checks each case twice: Validate on the Go value, and, when
// the value marshals to a frame the strict decoder accepts, Decode of that
// real frame followed by Validate. Both must fail with the named sentinel
// and name the field. (A frame the decoder already rejects is a rejection
// too; such rows say so with decodeErr.)
func runWireCases(t *testing.T, cases []wireCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			check := func(how string, err error, want error) {
				t.Helper()
				if !errors.Is(err, want) {
					t.Fatalf("%s: got %v, want %v", how, err, want)
				}
				if !strings.Contains(err.Error(), tt.field) {
					t.Errorf("%s: %q does not name %q", how, err, tt.field)
				}
			}
			check("Validate", Validate(tt.p), tt.want)
			raw, err := json.Marshal(tt.p)
			if err != nil || bytes.Contains(raw, replacementEscape) {
				return // not expressible as a frame
			}
			frame := `{"type":"` + tt.p.MessageType() + `","id":"x","payload":` + string(raw) + `}`
			f, err := Decode([]byte(frame))
			if tt.decodeErr != nil {
				check("Decode", err, tt.decodeErr)
				return
			}
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			check("Decode+Validate", Validate(f.Payload), tt.want)
		})
	}
}

type wireCase struct {
	name      string
	p         Payload
	want      error
	field     string
	decodeErr error // the frame is already rejected by Decode with this
}

func readOnlyProfile(mut func(*ExecutionConfiguration)) ExecutionPrepare {
	p := ExecutionPrepare{SessionID: "s", Configuration: ExecutionConfiguration{AgentKind: "k",
		WorkspaceReadOnly: true, LocalEnvironment: &LocalEnvironment{ID: "env"}, AgentStateKey: "agents-api-s",
		StrictResume: true, ReleaseOnCompletion: true}}
	mut(&p.Configuration)
	return p
}

func TestRejectReadOnlyProfile(t *testing.T) {
	if err := Validate(readOnlyProfile(func(*ExecutionConfiguration) {})); err != nil {
		t.Fatalf("base: %v", err)
	}
	const f = "configuration."
	mcp := &[]MCPHTTPServer{}
	cases := []wireCase{
		{"agent_session_id", readOnlyProfile(func(c *ExecutionConfiguration) { c.AgentSessionID = "n" }), ErrInvalid, f + "agent_session_id", nil},
		{"require_existing_native_session", readOnlyProfile(func(c *ExecutionConfiguration) { c.RequireExistingNativeSession = true }), ErrInvalid, f + "require_existing_native_session", nil},
		{"disable_execution_environment", readOnlyProfile(func(c *ExecutionConfiguration) { c.DisableExecutionEnvironment = true }), ErrInvalid, f + "disable_execution_environment", nil},
		{"agent_options", readOnlyProfile(func(c *ExecutionConfiguration) { c.AgentOptions = map[string]json.RawMessage{"model": []byte(`"m"`)} }), ErrInvalid, f + "agent_options", nil},
		{"execution_controls", readOnlyProfile(func(c *ExecutionConfiguration) {
			c.ExecutionControls = &ExecutionControls{WebSearch: "disabled", TextVerbosity: "medium"}
		}), ErrInvalid, f + "execution_controls", nil},
		{"mcp_http_servers", readOnlyProfile(func(c *ExecutionConfiguration) { c.MCPHTTPServers = mcp }), ErrInvalid, f + "mcp_http_servers", nil},
		{"function_tools", readOnlyProfile(func(c *ExecutionConfiguration) { c.FunctionTools = []FunctionTool{{Name: "a"}} }), ErrInvalid, f + "function_tools", nil},
		{"tool_search", readOnlyProfile(func(c *ExecutionConfiguration) { c.ToolSearch = true }), ErrInvalid, f + "tool_search", nil},
		{"observe_messages", readOnlyProfile(func(c *ExecutionConfiguration) { c.ObserveMessages = true }), ErrInvalid, f + "observe_messages", nil},
		{"observe_tool_observations", readOnlyProfile(func(c *ExecutionConfiguration) { c.ObserveToolObservations = true }), ErrInvalid, f + "observe_tool_observations", nil},
		{"observe_subagent_identities", readOnlyProfile(func(c *ExecutionConfiguration) { c.ObserveSubagentIdentities = true }), ErrInvalid, f + "observe_subagent_identities", nil},
		{"no local_environment", readOnlyProfile(func(c *ExecutionConfiguration) { c.LocalEnvironment = nil }), ErrInvalid, f + "local_environment", nil},
		{"no release_on_completion", readOnlyProfile(func(c *ExecutionConfiguration) { c.ReleaseOnCompletion = false }), ErrInvalid, f + "release_on_completion", nil},
		{"blank agent_kind", readOnlyProfile(func(c *ExecutionConfiguration) { c.AgentKind = " " }), ErrInvalid, f + "agent_kind", nil},
		{"blank environment id", readOnlyProfile(func(c *ExecutionConfiguration) { c.LocalEnvironment.ID = " " }), ErrInvalid, f + "local_environment.id", nil},
	}
	runWireCases(t, cases)
	for _, tt := range cases {
		if code := ErrorCode(Validate(tt.p)); code == "" {
			t.Errorf("%s: no protocol code", tt.name)
		}
	}
}

func TestRejectConfiguration(t *testing.T) {
	svc := func(s MCPHTTPServer) *[]MCPHTTPServer { return &[]MCPHTTPServer{s} }
	runWireCases(t, []wireCase{
		{"empty agent option value", prepareWith(func(c *ExecutionConfiguration) { c.AgentOptions["model"] = json.RawMessage{} }), ErrInvalid, "agent_options.model", nil},
		{"text_verbosity", prepareWith(func(c *ExecutionConfiguration) { c.ExecutionControls.TextVerbosity = "" }), ErrInvalid, "execution_controls.text_verbosity", nil},
		{"output_format.schema", prepareWith(func(c *ExecutionConfiguration) {
			c.ExecutionControls.OutputFormat = &OutputFormat{Type: OutputFormatJSONSchema}
		}), ErrInvalid, "execution_controls.output_format.schema", nil},
		{"mcp blank server_label", prepareWith(func(c *ExecutionConfiguration) {
			c.MCPHTTPServers = svc(MCPHTTPServer{ConnectionOrigin: OriginService, ServerLabel: " ", ServerURL: "u"})
		}), ErrInvalid, "mcp_http_servers[0].server_label", nil},
	})
}

func TestRejectRunOutput(t *testing.T) {
	obs := func(o ToolObservation) ToolCall {
		return ToolCall{ID: "c", Name: "n", Stage: ToolStageAfter, Observation: &o}
	}
	runWireCases(t, []wireCase{
		{"heartbeat ts", Heartbeat{TS: -1}, ErrInvalid, "heartbeat.ts", nil},
		{"output id", OutputMessage{Status: OutputStatusInProgress}, ErrMissingField, "output_message.id", nil},
		{"tool_call id", ToolCall{Name: "n", Stage: ToolStageBefore}, ErrMissingField, "tool_call.id", nil},
		{"tool_call name", ToolCall{ID: "c", Stage: ToolStageBefore}, ErrMissingField, "tool_call.name", nil},
		{"observation status", obs(ToolObservation{Kind: "command"}), ErrMissingField, "tool_call.observation.status", nil},
		{"observation duration", obs(ToolObservation{Kind: "command", Status: "completed", DurationMS: ptr(int64(-1))}), ErrInvalid, "tool_call.observation.duration_ms", nil},
		{"done completed_at", Done{SourceCompletedAtMS: -1}, ErrInvalid, "done.source_completed_at_ms", nil},
		{"function_call call_id", FunctionCall{Name: "n", Arguments: []byte(`{}`)}, ErrMissingField, "function_call.call_id", nil},
		{"function_call name", FunctionCall{CallID: "c", Arguments: []byte(`{}`)}, ErrMissingField, "function_call.name", nil},
		{"function_result delivery_id", FunctionResult{CallID: "c", Content: []InputContent{}}, ErrMissingField, "function_result.delivery_id", nil},
		{"prompt_request input part", PromptRequest{ExecutionConfiguration{AgentKind: "k", RunID: "r", DisableExecutionEnvironment: true,
			Input: MessageInput{{Content: []InputContent{{Type: ContentInputText}}}}}}, ErrMissingField, "prompt_request.input[0].content[0].text", nil},
		{"image without url", ExecutionStart{ExecutorID: "e", Handle: "h", RunID: "r",
			Input: MessageInput{{Content: []InputContent{TextPart("x"), {Type: ContentInputImage}}}}}, ErrMissingField, "content[1].image_url", nil},
	})
}

func TestRejectInteractions(t *testing.T) {
	runWireCases(t, []wireCase{
		{"steer ack input_id over 256", PromptSteerAck{InputID: strings.Repeat("i", InputIDBytesMax+1), Written: true}, ErrTooLarge, "prompt_steer_ack.input_id", nil},
		{"permission tool", PermissionRequest{RequestID: "r", Title: "t"}, ErrMissingField, "permission_request.tool", nil},
		{"ask id", UserChoicePrompt{Questions: []UserQuestion{{ID: "q", Question: "?", Options: []UserOption{}}}}, ErrMissingField, "prompt_for_user_choice.ask_id", nil},
		{"question id", UserChoicePrompt{AskID: "a", Questions: []UserQuestion{{Question: "?", Options: []UserOption{}}}}, ErrMissingField, "questions[0].id", nil},
		{"question text", UserChoicePrompt{AskID: "a", Questions: []UserQuestion{{ID: "q", Options: []UserOption{}}}}, ErrMissingField, "questions[0].question", nil},
	})
	err := UserChoiceDecision{}.ValidateAgainst(nil)
	if !errors.Is(err, ErrMissingField) || !strings.Contains(err.Error(), "delivery_id") {
		t.Errorf("decision against: %v", err)
	}
}

func TestRejectSubagentAndAuthoring(t *testing.T) {
	big := strings.Repeat("x", AuthoringBytesMax)
	runWireCases(t, []wireCase{
		{"identity native_id", SubagentIdentity{}, ErrMissingField, "subagent_identity.native_id", nil},
		{"lifecycle native_id", SubagentLifecycle{Status: "s"}, ErrMissingField, "subagent_lifecycle.native_id", nil},
		{"lifecycle status", SubagentLifecycle{NativeID: "n"}, ErrMissingField, "subagent_lifecycle.status", nil},
		{"turn native_id", SubagentTurn{TurnID: "t", Status: "s"}, ErrMissingField, "subagent_turn.native_id", nil},
		{"turn turn_id", SubagentTurn{NativeID: "n", Status: "s"}, ErrMissingField, "subagent_turn.turn_id", nil},
		{"turn usage", SubagentTurn{NativeID: "n", TurnID: "t", Status: "s", Usage: &Usage{InputTokens: ptr(int32(-1))}}, ErrInvalid, "subagent_turn.usage.input_tokens", nil},
		{"item native_id", SubagentItem{TurnID: "t", ItemID: "i", Kind: "k", Payload: []byte(`{}`)}, ErrMissingField, "subagent_item.native_id", nil},
		{"item turn_id", SubagentItem{NativeID: "n", ItemID: "i", Kind: "k", Payload: []byte(`{}`)}, ErrMissingField, "subagent_item.turn_id", nil},
		{"item item_id", SubagentItem{NativeID: "n", TurnID: "t", Kind: "k", Payload: []byte(`{}`)}, ErrMissingField, "subagent_item.item_id", nil},
		{"item kind", SubagentItem{NativeID: "n", TurnID: "t", ItemID: "i", Payload: []byte(`{}`)}, ErrMissingField, "subagent_item.kind", nil},
		{"item payload", SubagentItem{NativeID: "n", TurnID: "t", ItemID: "i", Kind: "k"}, ErrMissingField, "subagent_item.payload", ErrNull},
		{"authoring request 1 MiB", AuthoringRequest{Operation: AuthoringSkillList, Content: big}, ErrTooLarge, "authoring_request", nil},
		{"authoring response 1 MiB", AuthoringResponse{Error: big}, ErrTooLarge, "authoring_response", nil},
	})
}

func TestRejectTransfer(t *testing.T) {
	begin := func(mut func(*RuntimePrepare)) RuntimePrepare {
		p := RuntimePrepare{Step: StepBegin, EnvironmentID: sampleEnvID, SessionID: sampleSessionID}
		mut(&p)
		return p
	}
	plugin := &PackageMeta{Type: PackageTypeInline, Name: "p", Description: "d"}
	initialize := func(in Initialization) RuntimePrepare {
		return begin(func(p *RuntimePrepare) { p.Action, p.Initialization = PrepareActionInitialize, &in })
	}
	finalize := func(sources string) RuntimePrepare {
		return begin(func(p *RuntimePrepare) { p.Action, p.Sources = PrepareActionFinalize, json.RawMessage(sources) })
	}
	env := map[string]string{}
	for i := 0; i <= InitializationEntriesMax; i++ {
		env["K"+strings.Repeat("k", i%7)+string(rune('a'+i%26))+strings.Repeat("z", i/182)] = "v"
	}
	for len(env) <= InitializationEntriesMax {
		env["E"+string(rune(0x4e00+len(env)))] = "v"
	}
	dirs := `{"directories":["a"` + strings.Repeat(`,"a"`, FinalizeDirectoriesMax) + `]}`
	runWireCases(t, []wireCase{
		{"chunk offset", RuntimePrepare{Step: StepChunk, Offset: -1, Data: []byte("x")}, ErrInvalid, "runtime_prepare.offset", nil},
		{"begin over 1 MiB", begin(func(p *RuntimePrepare) {
			p.Action, p.SizeBytes, p.SHA256 = PrepareActionSkill, 1, sampleDigest
			p.Skill = &PackageMeta{Type: PackageTypeInline, Name: "s", Description: strings.Repeat("d", RuntimePrepareBytesMax)}
		}), ErrTooLarge, "runtime_prepare", nil},
		{"skill missing", begin(func(p *RuntimePrepare) { p.Action, p.Plugin = PrepareActionSkill, plugin }), ErrMissingField, "runtime_prepare.skill", nil},
		{"file missing", begin(func(p *RuntimePrepare) { p.Action, p.Plugin = PrepareActionFile, plugin }), ErrMissingField, "runtime_prepare.file", nil},
		{"initialization missing", begin(func(p *RuntimePrepare) { p.Action, p.Plugin = PrepareActionInitialize, plugin }), ErrMissingField, "runtime_prepare.initialization", nil},
		{"sources missing", begin(func(p *RuntimePrepare) { p.Action, p.Plugin = PrepareActionFinalize, plugin }), ErrMissingField, "runtime_prepare.sources", nil},
		{"package name", begin(func(p *RuntimePrepare) {
			p.Action, p.SizeBytes, p.SHA256 = PrepareActionPlugin, 1, sampleDigest
			p.Plugin = &PackageMeta{Type: PackageTypeInline, Description: "d"}
		}), ErrMissingField, "runtime_prepare.plugin.name", nil},
		{"file path over 4096", begin(func(p *RuntimePrepare) {
			p.Action, p.SHA256 = PrepareActionFile, sampleDigest
			p.File = &PrepareFile{Path: WorkspaceRoot + "/" + strings.Repeat("p", WorkspacePathBytesMax)}
		}), ErrTooLarge, "runtime_prepare.file.path", nil},
		{"npm with env", initialize(Initialization{Action: InitNPM, Network: NetworkEnabled, Packages: []string{"x"}, Env: map[string]string{"A": "1"}}), ErrInvalid, "runtime_prepare.initialization", nil},
		{"npm without network", initialize(Initialization{Action: InitNPM, Packages: []string{"x"}}), ErrMissingField, "initialization.network", nil},
		{"setup without network", initialize(Initialization{Action: InitSetup, Command: "make"}), ErrMissingField, "initialization.network", nil},
		{"setup without command", initialize(Initialization{Action: InitSetup, Network: NetworkEnabled}), ErrInvalid, "initialization.command", nil},
		{"setup command NUL", initialize(Initialization{Action: InitSetup, Network: NetworkEnabled, Command: "a\x00b"}), ErrInvalid, "initialization.command", nil},
		{"env over 1000", initialize(Initialization{Action: InitConfigure, Env: env}), ErrTooLarge, "initialization.env", nil},
		{"sources not object", finalize(`[1]`), ErrInvalid, "runtime_prepare.sources", ErrWrongType},
		{"directories not array", finalize(`{"directories":"a"}`), ErrInvalid, "sources.directories", nil},
		{"directories null", finalize(`{"directories":null}`), ErrInvalid, "sources.directories", nil},
		{"over 50 directories", finalize(dirs), ErrTooLarge, "sources.directories", nil},
	})
}
