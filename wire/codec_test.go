package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

const capsJSON = `{"subagent_observations":false,"streaming":true,"permissions":false,"usage":false,"resume":false,"native_session_recovery":false,"workspace_authoring":false,"steering":true,"message_items":false,"tool_observations":true,"environment_none":true,"local_environment":false,"preparation":true,"workspace_read_preparation":false,"workspace_output_export":false,"programmatic_tool_calling_disable":false,"web_search_control":false,"execution_controls":true,"text_verbosity":false,"structured_output":false,"tool_search":false,"message_images":false,"function_result_images":false,"subagent_control":false,"durable_input_receipts":true,"durable_turns":true,"function_tools":false,"mcp_http_tools":false,"mcp_http_required":false,"mcp_http_bearer_auth":false}`

func heartbeatWith(caps string) string {
	return `{"type":"heartbeat","payload":{"ts":1,"active_requests":0,"supported_agent_kinds":[{"kind":"codex","available":true,"capabilities":` + caps + `}]}}`
}

type rejectCase struct {
	name  string
	frame string
	want  error
	field string // must appear in the message
}

func decodeRejectCases() []rejectCase {
	longID := strings.Repeat("s3cr3t", 30)
	return []rejectCase{
		{"syntax", `{"type":"delta"`, ErrSyntax, ""},
		{"not an object", `[1]`, ErrWrongType, "envelope"},
		{"trailing data", `{"type":"delta","payload":{"delta":"a","sequence":1}} {}`, ErrTrailingData, ""},
		{"case-folded envelope member", `{"type":"delta","Payload":{},"payload":{"delta":"a","sequence":1}}`, ErrUnknownField, "envelope.Payload"},
		{"malformed unknown envelope member", `{"type":"delta","assignment":{"a":tru},"payload":{"delta":"a","sequence":1}}`, ErrSyntax, ""},
		{"duplicate envelope member", `{"type":"delta","type":"delta","payload":{"delta":"a","sequence":1}}`, ErrDuplicateField, "envelope.type"},
		{"missing type", `{"id":"r","payload":{}}`, ErrMissingField, "envelope.type"},
		{"type not a string", `{"type":7}`, ErrWrongType, "envelope.type"},
		{"null type", `{"type":null}`, ErrNull, "envelope.type"},
		{"null id", `{"type":"delta","id":null,"payload":{"delta":"a","sequence":1}}`, ErrNull, "envelope.id"},
		{"null payload", `{"type":"delta","payload":null}`, ErrNull, "envelope.payload"},
		{"unknown type", `{"type":"delta_v2","payload":{}}`, ErrUnknownType, "delta_v2"},
		{"case-folded type", `{"type":"Delta","payload":{}}`, ErrUnknownType, "Delta"},
		{"oversize id", `{"type":"delta","id":"` + longID + `","payload":{"delta":"a","sequence":1}}`, ErrTooLarge, "envelope.id"},
		{"missing payload", `{"type":"delta","id":"r"}`, ErrMissingField, "delta.payload"},
		{"missing required member", `{"type":"delta","payload":{"delta":"a"}}`, ErrMissingField, "delta.sequence"},
		{"null member", `{"type":"delta","payload":{"delta":null,"sequence":1}}`, ErrNull, "delta.delta"},
		{"null optional member", `{"type":"delta","payload":{"delta":"a","sequence":1,"item_id":null}}`, ErrNull, "delta.item_id"},
		{"malformed unknown member", `{"type":"delta","payload":{"delta":"a","sequence":1,"extra":[1,}}`, ErrSyntax, ""},
		{"case-folded member", `{"type":"delta","payload":{"Delta":"a","sequence":1}}`, ErrUnknownField, "delta.Delta: differs from member delta only in case"},
		{"duplicate member", `{"type":"delta","payload":{"delta":"a","delta":"b","sequence":1}}`, ErrDuplicateField, "delta.delta"},
		{"negative uint", `{"type":"delta","payload":{"delta":"a","sequence":-1}}`, ErrWrongType, "delta.sequence"},
		{"fractional int", `{"type":"delta","payload":{"delta":"a","sequence":1.5}}`, ErrWrongType, "delta.sequence"},
		{"uint overflow", `{"type":"delta","payload":{"delta":"a","sequence":18446744073709551616}}`, ErrWrongType, "delta.sequence"},
		{"int32 overflow", `{"type":"usage","payload":{"input_tokens":2147483648}}`, ErrWrongType, "usage.input_tokens"},
		{"string for number", `{"type":"delta","payload":{"delta":"a","sequence":"1"}}`, ErrWrongType, "delta.sequence"},
		{"deep wrong type", `{"type":"execution_start","id":"p","payload":{"executor_id":"e","handle":"h","run_id":"r","input":[{"content":[{"type":"input_text","text":"a"},{"type":"input_text","text":5}]}]}}`, ErrWrongType, "execution_start.input[0].content[1].text"},
		{"deep case-folded member", `{"type":"execution_start","payload":{"executor_id":"e","handle":"h","run_id":"r","input":[{"content":[{"type":"input_text","text":"a","TEXT":"b"}]}]}}`, ErrUnknownField, "execution_start.input[0].content[0].TEXT"},
		{"tool observation unknown member", `{"type":"tool_call","payload":{"id":"c","name":"n","stage":"after","observation":{"kind":"k","status":"s","content":[{"type":"input_text","text":"a","lang":"en"}]}}}`, ErrUnknownField, "tool_call.observation.content[0].lang"},
		{"directory entry unknown member", `{"type":"workspace_read_result","payload":{"outcome":"completed","directory":{"entries":[{"name":"a","kind":"other","size_bytes":null,"mode":1}],"truncated":false}}}`, ErrUnknownField, "directory.entries[0].mode"},
		{"payload array", `{"type":"prompt_for_user_choice_decision","payload":[]}`, ErrWrongType, "prompt_for_user_choice_decision"},
		{"decision legacy answers", `{"type":"prompt_for_user_choice_decision","payload":{"delivery_id":"d","answers":{}}}`, ErrUnknownField, "answers"},
		{"decision null answers", `{"type":"prompt_for_user_choice_decision","payload":{"delivery_id":"d","question_answers":[{"question_id":"q","answers":null}]}}`, ErrNull, "question_answers[0].answers"},
		{"tool_call native_item", `{"type":"tool_call","payload":{"id":"c","name":"n","stage":"before","native_item":{}}}`, ErrUnknownField, "tool_call.native_item"},
		{"tool_call args not object", `{"type":"tool_call","payload":{"id":"c","name":"n","stage":"before","args":[1]}}`, ErrWrongType, "tool_call.args"},
		{"directory truncated missing", `{"type":"workspace_read_result","payload":{"outcome":"completed","close_acknowledged":true,"directory":{"entries":[]}}}`, ErrMissingField, "directory.truncated"},
		{"directory truncated string", `{"type":"workspace_read_result","payload":{"outcome":"completed","directory":{"entries":[],"truncated":"false"}}}`, ErrWrongType, "directory.truncated"},
		{"directory truncated null", `{"type":"workspace_read_result","payload":{"outcome":"completed","directory":{"entries":[],"truncated":null}}}`, ErrNull, "directory.truncated"},
		{"entry size omitted", `{"type":"workspace_read_result","payload":{"outcome":"completed","directory":{"entries":[{"name":"a","kind":"directory"}],"truncated":false}}}`, ErrMissingField, "entries[0].size_bytes"},
		{"run error non-string", `{"type":"error","payload":{"error":5}}`, ErrWrongType, "error.error"},
		{"run error missing", `{"type":"error","payload":{"code":"server_error"}}`, ErrMissingField, "error.error"},
		{"bad base64", `{"type":"workspace_export_result","payload":{"outcome":"chunk","offset":0,"data":"!!"}}`, ErrWrongType, "workspace_export_result.data"},
		{"mcp origin missing", `{"type":"execution_prepare","payload":{"session_id":"s","configuration":{"agent_kind":"k","conversation_id":"","run_id":"","mcp_http_servers":[{"allowed_tools":null}]}}}`, ErrMissingField, "mcp_http_servers[0].connection_origin"},
		{"capabilities missing", `{"type":"heartbeat","payload":{"ts":1,"active_requests":0,"supported_agent_kinds":[{"kind":"k","available":true}]}}`, ErrMissingField, "supported_agent_kinds[0].capabilities"},
		{"capabilities null", heartbeatWith(`null`), ErrNull, "capabilities"},
		{"capability string", heartbeatWith(strings.Replace(capsJSON, `"streaming":true`, `"streaming":"true"`, 1)), ErrWrongType, "capabilities.streaming"},
		{"capability number", heartbeatWith(strings.Replace(capsJSON, `"streaming":true`, `"streaming":1`, 1)), ErrWrongType, "capabilities.streaming"},
		{"capability null", heartbeatWith(strings.Replace(capsJSON, `"streaming":true`, `"streaming":null`, 1)), ErrNull, "capabilities.streaming"},
		{"capability omitted", heartbeatWith(strings.Replace(capsJSON, `"streaming":true,`, ``, 1)), ErrMissingField, "capabilities.streaming"},
		{"capability unknown", heartbeatWith(strings.Replace(capsJSON, `"streaming":true`, `"streaming":true,"hunter2":true`, 1)), ErrUnknownField, "capabilities"},
		{"nesting bomb", `{"type":"tool_call","payload":{"id":"c","name":"n","stage":"before","args":{"a":` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `}}}`, ErrTooLarge, "nesting too deep"},
	}
}

func TestDecodeRejects(t *testing.T) {
	for _, tt := range decodeRejectCases() {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode([]byte(tt.frame))
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.field) {
				t.Errorf("%q does not name %q", err, tt.field)
			}
			if strings.Contains(err.Error(), "s3cr3t") || strings.Contains(err.Error(), "hunter2") {
				t.Errorf("error echoes a withheld value: %v", err)
			}
		})
	}
}

func TestDecodeOversizeFrame(t *testing.T) {
	frame := []byte(`{"type":"delta","payload":{"delta":"` + strings.Repeat("a", FrameBytesMax) + `","sequence":1}}`)
	if _, err := Decode(frame); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "frame") {
		t.Fatalf("got %v", err)
	}
	if _, err := Encode(Frame{Payload: Delta{Delta: strings.Repeat("a", FrameBytesMax), Sequence: 1}}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("encode: got %v", err)
	}
}

func TestDecodeErrorCarriesTypeAndID(t *testing.T) {
	_, err := Decode([]byte(`{"type":"execution_start","id":"prepare","payload":{"handle":"h"}}`))
	var de *DecodeError
	if !errors.As(err, &de) || de.Type != TypeExecutionStart || de.ID != "prepare" {
		t.Fatalf("got %#v", err)
	}
	if !errors.Is(err, ErrMissingField) {
		t.Fatalf("lost sentinel: %v", err)
	}
}

func TestDecodeTrace(t *testing.T) {
	for _, tt := range []struct {
		trace string
		keep  bool
	}{
		{`"` + sampleTrace + `"`, true},
		{`"00-00000000000000000000000000000000-b7ad6b7169203331-01"`, false},
		{`"00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01"`, false},
		{`"01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"`, false},
		{`"garbage"`, false},
		{`17`, false},
		{`null`, false},
		{`{"a":1}`, false},
	} {
		f, err := Decode([]byte(`{"type":"delta","id":"r","trace":` + tt.trace + `,"payload":{"delta":"a","sequence":1}}`))
		if err != nil {
			t.Fatalf("trace %s rejected the frame: %v", tt.trace, err)
		}
		if (f.Trace != "") != tt.keep {
			t.Errorf("trace %s: kept %q", tt.trace, f.Trace)
		}
	}
	b, err := Encode(Frame{ID: "r", Trace: "not-a-trace", Payload: Delta{Delta: "a", Sequence: 1}})
	if err != nil || bytes.Contains(b, []byte("trace")) {
		t.Fatalf("encode kept an invalid trace: %s %v", b, err)
	}
}

func TestBodylessTypes(t *testing.T) {
	for _, typ := range Types() {
		want := typ == TypePromptCancel || typ == TypePermissionCancel || typ == TypeDeviceShutdown
		if Bodyless(typ) != want {
			t.Errorf("%s: Bodyless = %v", typ, !want)
		}
		f, err := Decode([]byte(`{"type":"` + typ + `","id":"x"}`))
		if want != (err == nil) {
			t.Errorf("%s without payload: %v", typ, err)
		}
		if want {
			zero, _ := ZeroPayload(typ)
			if f.Payload != zero {
				t.Errorf("%s: got %#v", typ, f.Payload)
			}
			b, err := Encode(f)
			if err != nil || bytes.Contains(b, []byte("payload")) {
				t.Errorf("%s: zero payload encodes as %s (%v)", typ, b, err)
			}
		}
	}
}

func TestRunErrorLenientDecode(t *testing.T) {
	tests := []struct {
		payload string
		want    RunError
	}{
		{`{"error":"e","code":"connection_failed","http_status":502}`, RunError{"e", EngineConnectionFailed, 502}},
		{`{"error":"e","code":"connection_failed","http_status":99}`, RunError{"e", EngineConnectionFailed, 0}},
		{`{"error":"e","code":"connection_failed","http_status":600}`, RunError{"e", EngineConnectionFailed, 0}},
		{`{"error":"e","code":"connection_failed","http_status":502.5}`, RunError{"e", EngineConnectionFailed, 0}},
		{`{"error":"e","code":"connection_failed","http_status":"502"}`, RunError{"e", EngineConnectionFailed, 0}},
		{`{"error":"e","code":"server_error","http_status":502}`, RunError{"e", EngineServerError, 0}},
		{`{"error":"e","code":"made_up","http_status":502}`, RunError{"e", "", 0}},
		{`{"error":"e","code":7,"http_status":null}`, RunError{"e", "", 0}},
		{`{"error":"e","code":null}`, RunError{"e", "", 0}},
		{`{"error":""}`, RunError{"", "", 0}},
	}
	for _, tt := range tests {
		f, err := Decode([]byte(`{"type":"error","id":"r","payload":` + tt.payload + `}`))
		if err != nil {
			t.Fatalf("%s: %v", tt.payload, err)
		}
		if f.Payload != tt.want {
			t.Errorf("%s: got %#v", tt.payload, f.Payload)
		}
		if err := Validate(f.Payload); err != nil {
			t.Errorf("%s: normalised value invalid: %v", tt.payload, err)
		}
	}
}

func TestClassifyEngineError(t *testing.T) {
	if len(EngineErrorCodes) != 11 {
		t.Fatalf("%d engine codes", len(EngineErrorCodes))
	}
	for _, c := range EngineErrorCodes {
		if got, s := ClassifyEngineError(c, 503); got != c || (s != 0) != (c == EngineConnectionFailed) {
			t.Errorf("%s: got %s %d", c, got, s)
		}
	}
	if c, s := ClassifyEngineError("", 503); c != "" || s != 0 {
		t.Errorf("unclassified kept %s %d", c, s)
	}
}

func TestEncodeRefuses(t *testing.T) {
	incomplete := sampleCaps()
	incomplete.Usage = CapabilityUnspecified
	tests := []struct {
		name  string
		frame Frame
		want  error
		field string
	}{
		{"nil payload", Frame{}, ErrInvalid, "nil payload"},
		{"incomplete capabilities", Frame{Payload: Heartbeat{SupportedAgentKinds: []SupportedAgentKind{{Kind: "k", Capabilities: incomplete}}}}, ErrMissingField, "capabilities.usage"},
		{"oversize id", Frame{ID: strings.Repeat("x", IDBytesMax+1), Payload: Delta{Delta: "a"}}, ErrTooLarge, "envelope.id"},
		{"nil answers", Frame{Payload: UserChoiceDecision{DeliveryID: "d", QuestionAnswers: []QuestionAnswer{{QuestionID: "q"}}}}, ErrMissingField, "answers"},
		{"nil function content", Frame{Payload: FunctionResult{DeliveryID: "d", CallID: "c"}}, ErrMissingField, "function_result.content"},
		{"nil allowed options", Frame{Payload: UserChoicePrompt{AskID: "a", Questions: []UserQuestion{{ID: "q", Question: "?"}}}}, ErrMissingField, "options"},
		{"invalid status", Frame{Payload: PreparationStatus{State: "sleeping"}}, ErrInvalid, "preparation_status.state"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Encode(tt.frame)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.field) {
				t.Fatalf("got %v, want %v naming %s", err, tt.want, tt.field)
			}
		})
	}
}

func TestDescribeBoundedAndSecretFree(t *testing.T) {
	cfg := samplePrepare()
	cfg.Configuration.DisableExecutionEnvironment = true
	cfg.Configuration.MCPHTTPServers = &[]MCPHTTPServer{{ConnectionOrigin: OriginService, ServerLabel: "l",
		ServerURL: "https://x", BearerToken: "tok-SECRET"}}
	cfg.Configuration.AgentOptions = map[string]json.RawMessage{"system_prompt": []byte(`"p"`), "model": []byte(`"m"`)}
	got := Describe(Frame{ID: "prepare", Payload: cfg})
	if strings.Contains(got, "SECRET") || !strings.Contains(got, "agent_options={model,system_prompt}") {
		t.Errorf("Describe: %s", got)
	}
	long := Describe(Frame{Payload: Delta{Delta: strings.Repeat("é", 5000)}})
	if len(long) > describeBytesMax || !utf8.ValidString(long) {
		t.Errorf("unbounded or broken: %d bytes", len(long))
	}
	if Describe(Frame{}) != "<nil>" {
		t.Error("nil payload")
	}
}

// TestDecodeCanonical checks that accepted input re-encodes to a frame that
// decodes to an equal value (the fuzz property), for the inputs where the
// wire allows several spellings of one value.
func TestDecodeCanonical(t *testing.T) {
	for _, frame := range []string{
		`{"type":"tool_call","id":"r","payload":{"id":"c","name":"n","stage":"before","args":{ "a" : "<&>" }}}`,
		`{"type":"workspace_export_result","id":"x","payload":{"outcome":"completed","offset":3,"data":""}}`,
		`{"type":"execution_prepare","id":"p","payload":{"session_id":"s","configuration":{"agent_kind":"k","conversation_id":"","run_id":"","agent_options":{"model": "m","system_prompt":[ 1 ]},"mcp_http_servers":[]}}}`,
		`{"type":"workspace_export_result","id":"x","payload":{"outcome":"chunk","offset":0,"data":"QR=="}}`,
		`{"type":"delta","id":"\u0072\ud83d\ude00","payload":{"delta":"\u003c\ud800\udc00\ufffd","sequence":0}}`,
	} {
		f, err := Decode([]byte(frame))
		if err != nil {
			t.Fatalf("%s: %v", frame, err)
		}
		b, err := json.Marshal(f.Payload)
		if err != nil {
			t.Fatal(err)
		}
		env := Envelope{Type: f.Type(), ID: f.ID, Payload: b}
		again, _ := json.Marshal(env)
		g, err := Decode(again)
		if err != nil {
			t.Fatalf("%s: re-decode: %v", again, err)
		}
		if !reflect.DeepEqual(f, g) {
			t.Errorf("%s:\n first %#v\nsecond %#v", frame, f, g)
		}
	}
}

type unregisteredPayload struct{}

func (unregisteredPayload) MessageType() string { return "no_such_type" }

func TestRejectEncode(t *testing.T) {
	_, err := Encode(Frame{Payload: unregisteredPayload{}})
	if !errors.Is(err, ErrUnknownType) || !strings.Contains(err.Error(), "no_such_type") {
		t.Errorf("unregistered: %v", err)
	}
	_, err = Encode(Frame{ID: "r", Payload: ToolCall{ID: "c", Name: "n", Stage: ToolStageBefore, Args: json.RawMessage(`{"a":`)}})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "tool_call") {
		t.Errorf("unmarshalable raw member: %v", err)
	}
	_, err = Encode(Frame{ID: "r", Payload: ToolCall{ID: "c", Name: "n", Stage: ToolStageBefore, Args: json.RawMessage(`{"a":1,"a":2}`)}})
	if !errors.Is(err, ErrDuplicateField) || !strings.Contains(err.Error(), "tool_call.args") {
		t.Errorf("repeated raw member: %v", err)
	}
}
