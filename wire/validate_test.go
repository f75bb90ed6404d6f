package wire

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

type validatorCase struct {
	name  string
	p     Payload
	want  error  // nil = valid
	field string // named in the message
	code  string // CodeError code, if any
}

func runValidatorCases(t *testing.T, cases []validatorCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(tt.p)
			if !requireNamedError(t, err, tt.want, tt.field) {
				return
			}
			if tt.code != "" && ErrorCode(err) != tt.code {
				t.Errorf("code %q, want %q", ErrorCode(err), tt.code)
			}
		})
	}
}

// requireNamedError checks err against a case: no error when want is nil,
// else an error that errors.Is want and names field. It reports whether
// an error was expected (and found).
func requireNamedError(t *testing.T, err, want error, field string) bool {
	t.Helper()
	if want == nil {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return false
	}
	if !errors.Is(err, want) {
		t.Fatalf("got %v, want %v", err, want)
	}
	if !strings.Contains(err.Error(), field) {
		t.Errorf("%q does not name %q", err, field)
	}
	return true
}

func prepareWith(mut func(*ExecutionConfiguration)) ExecutionPrepare {
	p := samplePrepare()
	mut(&p.Configuration)
	return p
}

func TestValidateExecutionPrepare(t *testing.T) {
	localEnv := &LocalEnvironment{ID: "env"}
	servers := func(s ...MCPHTTPServer) *[]MCPHTTPServer { return &s }
	runValidatorCases(t, []validatorCase{
		{"valid", samplePrepare(), nil, "", ""},
		{"blank session", ExecutionPrepare{SessionID: " ", Configuration: samplePrepare().Configuration}, ErrInvalid, "session_id", PrepInvalidConfiguration},
		{"run id", prepareWith(func(c *ExecutionConfiguration) { c.RunID = "r" }), ErrInvalid, "configuration.run_id", PrepInvalidConfiguration},
		{"conversation id", prepareWith(func(c *ExecutionConfiguration) { c.ConversationID = "c" }), ErrInvalid, "conversation_id", PrepInvalidConfiguration},
		{"input", prepareWith(func(c *ExecutionConfiguration) { c.Input = TextInput("x") }), ErrInvalid, "configuration.input", PrepInvalidConfiguration},
		{"authoring", prepareWith(func(c *ExecutionConfiguration) { c.WorkspaceAuthoring = true }), ErrInvalid, "workspace_authoring", PrepInvalidConfiguration},
		{"state key", prepareWith(func(c *ExecutionConfiguration) { c.AgentStateKey = "agents-api-other" }), ErrInvalid, "agent_state_key", PrepInvalidConfiguration},
		{"strict resume", prepareWith(func(c *ExecutionConfiguration) { c.StrictResume = false }), ErrInvalid, "strict_resume", PrepInvalidConfiguration},
		{"blank kind", prepareWith(func(c *ExecutionConfiguration) { c.AgentKind = "" }), ErrInvalid, "agent_kind", PrepInvalidConfiguration},
		{"no environment", prepareWith(func(c *ExecutionConfiguration) { c.DisableExecutionEnvironment = false }), ErrInvalid, "local_environment", PrepUnsupportedConfiguration},
		{"both environments", prepareWith(func(c *ExecutionConfiguration) { c.LocalEnvironment = localEnv }), ErrInvalid, "local_environment", PrepUnsupportedConfiguration},
		{"local only", prepareWith(func(c *ExecutionConfiguration) { c.LocalEnvironment, c.DisableExecutionEnvironment = localEnv, false }), nil, "", ""},
		{"local without id", prepareWith(func(c *ExecutionConfiguration) {
			c.LocalEnvironment, c.DisableExecutionEnvironment = &LocalEnvironment{}, false
		}), ErrInvalid, "local_environment.id", PrepInvalidConfiguration},
		{"unknown agent option", prepareWith(func(c *ExecutionConfiguration) { c.AgentOptions["temperature"] = json.RawMessage(`1`) }), ErrInvalid, "agent_options", PrepUnsupportedConfiguration},
		{"all agent options", prepareWith(func(c *ExecutionConfiguration) {
			for _, k := range AllowedAgentOptions {
				c.AgentOptions[k] = json.RawMessage(`"v"`)
			}
		}), nil, "", ""},
		{"negative subagents", prepareWith(func(c *ExecutionConfiguration) { c.MaxConcurrentSubagents = ptr(-1) }), ErrInvalid, "max_concurrent_subagents", PrepInvalidConfiguration},
		{"controls without web search", prepareWith(func(c *ExecutionConfiguration) { c.ExecutionControls.WebSearch = "" }), ErrInvalid, "web_search", PrepInvalidConfiguration},
		{"output format type", prepareWith(func(c *ExecutionConfiguration) {
			c.ExecutionControls.OutputFormat = &OutputFormat{Type: "text", Schema: json.RawMessage(`{}`)}
		}), ErrInvalid, "output_format.type", PrepUnsupportedConfiguration},
		{"mcp service origin", prepareWith(func(c *ExecutionConfiguration) {
			c.MCPHTTPServers = servers(MCPHTTPServer{ConnectionOrigin: OriginService, ServerLabel: "l", ServerURL: "u"})
		}), nil, "", ""},
		{"mcp missing origin", prepareWith(func(c *ExecutionConfiguration) {
			c.MCPHTTPServers = servers(MCPHTTPServer{ServerLabel: "l", ServerURL: "u"})
		}), ErrInvalid, "mcp_http_servers[0].connection_origin", PrepInvalidConfiguration},
		{"mcp unknown origin", prepareWith(func(c *ExecutionConfiguration) {
			c.MCPHTTPServers = servers(MCPHTTPServer{ConnectionOrigin: "cloud", ServerLabel: "l", ServerURL: "u"})
		}), ErrInvalid, "connection_origin", PrepInvalidConfiguration},
		{"mcp environment origin without local env", prepareWith(func(c *ExecutionConfiguration) {
			c.MCPHTTPServers = servers(MCPHTTPServer{ConnectionOrigin: OriginEnvironment, ServerLabel: "l", ServerURL: "u"})
		}), ErrInvalid, "connection_origin", PrepUnsupportedConfiguration},
		{"mcp service origin with local env", prepareWith(func(c *ExecutionConfiguration) {
			c.LocalEnvironment, c.DisableExecutionEnvironment = localEnv, false
			c.MCPHTTPServers = servers(MCPHTTPServer{ConnectionOrigin: OriginService, ServerLabel: "l", ServerURL: "u"})
		}), ErrInvalid, "connection_origin", PrepUnsupportedConfiguration},
		{"mcp blank url", prepareWith(func(c *ExecutionConfiguration) {
			c.MCPHTTPServers = servers(MCPHTTPServer{ConnectionOrigin: OriginService, ServerLabel: "l"})
		}), ErrInvalid, "server_url", PrepInvalidConfiguration},
		{"tool blank name", prepareWith(func(c *ExecutionConfiguration) { c.FunctionTools = []FunctionTool{{}} }), ErrInvalid, "function_tools[0].name", PrepInvalidConfiguration},
		{"tool duplicate", prepareWith(func(c *ExecutionConfiguration) { c.FunctionTools = []FunctionTool{{Name: "a"}, {Name: "a"}} }), ErrInvalid, "function_tools[1].name", PrepInvalidConfiguration},
		{"tool search without deferred", prepareWith(func(c *ExecutionConfiguration) {
			c.FunctionTools, c.ToolSearch = []FunctionTool{{Name: "a"}}, true
		}), ErrInvalid, "tool_search", PrepUnsupportedConfiguration},
		{"deferred without tool search", prepareWith(func(c *ExecutionConfiguration) {
			c.FunctionTools = []FunctionTool{{Name: "a", DeferLoading: true}}
		}), ErrInvalid, "tool_search", PrepUnsupportedConfiguration},
		{"tool search with deferred", prepareWith(func(c *ExecutionConfiguration) {
			c.FunctionTools, c.ToolSearch = []FunctionTool{{Name: "a", DeferLoading: true}, {Name: "b"}}, true
		}), nil, "", ""},
	})
}

func readOnlyPrepare(mut func(*ExecutionConfiguration)) ExecutionPrepare {
	p := ExecutionPrepare{SessionID: "s", Configuration: ExecutionConfiguration{AgentKind: "k",
		AgentStateKey: "agents-api-s", StrictResume: true, WorkspaceReadOnly: true, ReleaseOnCompletion: true,
		LocalEnvironment: &LocalEnvironment{ID: "env"}}}
	mut(&p.Configuration)
	return p
}

func TestValidateReadOnlyProfile(t *testing.T) {
	runValidatorCases(t, []validatorCase{
		{"valid", readOnlyPrepare(func(*ExecutionConfiguration) {}), nil, "", ""},
		{"no local env", readOnlyPrepare(func(c *ExecutionConfiguration) { c.LocalEnvironment = nil }), ErrInvalid, "local_environment", PrepUnsupportedReadPreparation},
		{"no release", readOnlyPrepare(func(c *ExecutionConfiguration) { c.ReleaseOnCompletion = false }), ErrInvalid, "release_on_completion", PrepUnsupportedReadPreparation},
		{"agent options", readOnlyPrepare(func(c *ExecutionConfiguration) { c.AgentOptions = map[string]json.RawMessage{} }), ErrInvalid, "agent_options", PrepUnsupportedReadPreparation},
		{"observe", readOnlyPrepare(func(c *ExecutionConfiguration) { c.ObserveMessages = true }), ErrInvalid, "observe_messages", PrepUnsupportedReadPreparation},
		{"session", readOnlyPrepare(func(c *ExecutionConfiguration) { c.AgentSessionID = "n" }), ErrInvalid, "agent_session_id", PrepUnsupportedReadPreparation},
		{"tools", readOnlyPrepare(func(c *ExecutionConfiguration) { c.FunctionTools = []FunctionTool{} }), ErrInvalid, "function_tools", PrepUnsupportedReadPreparation},
	})
}

func TestCheckCapabilities(t *testing.T) {
	cfg := samplePrepare().Configuration
	if err := cfg.CheckCapabilities(sampleCaps()); err != nil {
		t.Fatal(err)
	}
	cfg.FunctionTools = []FunctionTool{{Name: "f"}}
	err := cfg.CheckCapabilities(sampleCaps())
	if ErrorCode(err) != PrepUnsupportedConfiguration || !strings.Contains(err.Error(), "function_tools") {
		t.Fatalf("got %v", err)
	}
	if err := cfg.CheckCapabilities(AllCapabilities(CapabilitySupported)); err != nil {
		t.Fatal(err)
	}
	ro := readOnlyPrepare(func(*ExecutionConfiguration) {}).Configuration
	if ErrorCode(ro.CheckCapabilities(sampleCaps())) != PrepUnsupportedReadPreparation {
		t.Fatal("read-only without workspace_read_preparation accepted")
	}
}

func TestValidateMessageInput(t *testing.T) {
	msg := func(parts ...InputContent) InputMessage { return InputMessage{Content: parts} }
	empty := ""
	url := "data:image/png;base64,AAAA"
	tests := []struct {
		name  string
		in    MessageInput
		want  error
		field string
	}{
		{"text", TextInput("hi"), nil, ""},
		{"whitespace counts", TextInput(" \n\t"), nil, ""},
		{"empty text next to image", MessageInput{msg(TextPart(""), ImagePart(url))}, nil, ""},
		{"no messages", MessageInput{}, ErrInvalid, "input"},
		{"only empty text", MessageInput{msg(TextPart(""))}, ErrInvalid, "input[0].content"},
		{"no parts", MessageInput{msg()}, ErrMissingField, "input[0].content"},
		{"blank image", MessageInput{msg(ImagePart("  "))}, ErrInvalid, "input[0].content[0].image_url"},
		{"text missing", MessageInput{msg(TextPart("a"), InputContent{Type: ContentInputText})}, ErrMissingField, "input[0].content[1].text"},
		{"image with text", MessageInput{msg(InputContent{Type: ContentInputImage, ImageURL: &url, Text: &empty})}, ErrInvalid, "content[0].text"},
		{"text with image", MessageInput{msg(InputContent{Type: ContentInputText, ImageURL: &url, Text: &empty})}, ErrInvalid, "content[0].image_url"},
		{"audio", MessageInput{msg(InputContent{Type: "input_audio"})}, ErrInvalid, "content[0].type"},
		{"second message empty", MessageInput{msg(TextPart("a")), msg(TextPart(""))}, ErrInvalid, "input[1].content"},
	}
	for _, tt := range tests {
		err := tt.in.Validate()
		if (tt.want == nil) != (err == nil) || (err != nil && (!errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.field))) {
			t.Errorf("%s: got %v, want %v naming %s", tt.name, err, tt.want, tt.field)
		}
	}
	in := MessageInput{msg(TextPart("a"), TextPart("b")), msg(TextPart("c"))}
	if s, err := in.TextOnly(); s != "ab\n\nc" || err != nil {
		t.Errorf("TextOnly = %q, %v", s, err)
	}
	withImage := MessageInput{msg(TextPart("a"), ImagePart(url))}
	if _, err := withImage.TextOnly(); !errors.Is(err, ErrImageUnsupported) || !withImage.HasImages() {
		t.Errorf("image dropped: %v", err)
	}
}

func TestValidateAdmission(t *testing.T) {
	st := func(mut func(*PreparationStatus)) PreparationStatus {
		s := PreparationStatus{ExecutorID: "e", Handle: "h", Revision: 2, State: StateReady}
		mut(&s)
		return s
	}
	runValidatorCases(t, []validatorCase{
		{"start valid", ExecutionStart{ExecutorID: "e", Handle: "h", RunID: "r", Input: TextInput("x")}, nil, "", ""},
		{"start no executor", ExecutionStart{Handle: "h", RunID: "r", Input: TextInput("x")}, ErrMissingField, "execution_start.executor_id", ""},
		{"start no handle", ExecutionStart{ExecutorID: "e", RunID: "r", Input: TextInput("x")}, ErrMissingField, "execution_start.handle", ""},
		{"start blank run", ExecutionStart{ExecutorID: "e", Handle: "h", RunID: " ", Input: TextInput("x")}, ErrInvalid, "execution_start.run_id", ""},
		{"start bad input", ExecutionStart{ExecutorID: "e", Handle: "h", RunID: "r", Input: TextInput("")}, ErrInvalid, "execution_start.input[0]", ""},
		{"release no handle", ExecutionRelease{}, ErrMissingField, "execution_release.handle", ""},
		{"status valid", st(func(*PreparationStatus) {}), nil, "", ""},
		{"status unknown state", st(func(s *PreparationStatus) { s.State = "paused" }), ErrInvalid, "preparation_status.state", ""},
		{"status no handle", st(func(s *PreparationStatus) { s.Handle = "" }), ErrMissingField, "preparation_status.handle", ""},
		{"status revision 0", st(func(s *PreparationStatus) { s.Revision = 0 }), ErrInvalid, "preparation_status.revision", ""},
		{"status failed no code", st(func(s *PreparationStatus) { s.State = StateFailed }), ErrMissingField, "error_code", ""},
		{"status failed", st(func(s *PreparationStatus) { s.State, s.ErrorCode = StateFailed, PrepPreparationFailed }), nil, "", ""},
		{"status ready with code", st(func(s *PreparationStatus) { s.ErrorCode = PrepPreparationFailed }), ErrInvalid, "error_code", ""},
		{"status unknown code", st(func(s *PreparationStatus) { s.State, s.ErrorCode = StateFailed, "oops" }), ErrInvalid, "error_code", ""},
		{"status starting without run", st(func(s *PreparationStatus) { s.State = StateStarting }), ErrMissingField, "run_id", ""},
		{"status operation on ready", st(func(s *PreparationStatus) { s.Operation = TypeExecutionStart }), ErrInvalid, "operation", ""},
		{"rejected control", PreparationStatus{State: StateRejected, ErrorCode: PrepInvalidStart, Operation: TypeExecutionStart}, nil, "", ""},
		{"rejected no code", PreparationStatus{State: StateRejected}, ErrMissingField, "error_code", ""},
		{"rejected bad operation", PreparationStatus{State: StateRejected, ErrorCode: PrepInvalidStart, Operation: "launch"}, ErrInvalid, "operation", ""},
	})
	s := PreparationStatus{Handle: "h", Revision: 3, State: StateStarting, RunID: "r"}
	if !s.Deliverable("h", 2) || s.Deliverable("h", 3) || s.Deliverable("other", 1) || !s.Deliverable("", 0) {
		t.Error("Deliverable")
	}
	if !(PreparationStatus{State: StateRejected}).Deliverable("h", 9) {
		t.Error("rejected must always be delivered")
	}
	if len(PreparationErrorCodes) != 28 || !TerminalState(StateExpired) || TerminalState(StateReady) {
		t.Error("preparation code set or terminal states")
	}
}
