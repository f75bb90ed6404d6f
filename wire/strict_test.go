package wire

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

const (
	beginHead = `{"type":"runtime_prepare","id":"p","payload":{"step":"begin","environment_id":"` + sampleEnvID +
		`","session_id":"` + sampleSessionID + `","action":"initialize","initialization":`
	readOnlyHead = `{"type":"execution_prepare","id":"p","payload":{"session_id":"s","configuration":{"agent_kind":"k",` +
		`"conversation_id":"","run_id":"","workspace_read_only":true,"local_environment":{"id":"env"},` +
		`"agent_state_key":"agents-api-s","strict_resume":true,"release_on_completion":true`
)

// decodeValidate decodes a real frame and, when that succeeds, validates it.
func decodeValidate(frame string) error {
	f, err := Decode([]byte(frame))
	if err != nil {
		return err
	}
	return Validate(f.Payload)
}

type frameCase struct {
	name  string
	frame string
	want  error  // nil = accepted by Decode and Validate
	field string // named in the message
}

func runFrameCases(t *testing.T, cases []frameCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			requireNamedError(t, decodeValidate(tt.frame), tt.want, tt.field)
		})
	}
}

// TestExplicitEmptyRejected: an explicit {} or [] in a member the
// canonical encoding omits when empty is present, not absent (§3.2), and
// is rejected instead of silently dropped.
func TestExplicitEmptyRejected(t *testing.T) {
	runFrameCases(t, []frameCase{
		{"setup control", beginHead + `{"action":"setup","network":"enabled","command":"make"}}}`, nil, ""},
		{"setup env", beginHead + `{"action":"setup","network":"enabled","command":"make","env":{}}}}`, ErrInvalid, "explicit empty env"},
		{"setup packages", beginHead + `{"action":"setup","network":"enabled","command":"make","packages":[ ]}}}`, ErrInvalid, "initialization.packages: explicit empty packages"},
		{"configure control", beginHead + `{"action":"configure","env":{"A":"1"}}}}`, nil, ""},
		{"configure packages", beginHead + `{"action":"configure","packages":[]}}}`, ErrInvalid, "explicit empty packages"},
		{"npm env", beginHead + `{"action":"npm","network":"enabled","packages":["x"],"env":{ }}}}`, ErrInvalid, "explicit empty env"},
		{"read-only control", readOnlyHead + `}}}`, nil, ""},
		{"read-only agent_options empty is absent", readOnlyHead + `,"agent_options":{ }}}}`, nil, ""},
		{"read-only function_tools", readOnlyHead + `,"function_tools":[]}}}`, ErrInvalid, "explicit empty function_tools"},
		{"read-only input", readOnlyHead + `,"input":[]}}}`, ErrInvalid, "explicit empty input"},
		{"question answers", `{"type":"prompt_for_user_choice_decision","id":"a","payload":{"delivery_id":"d","question_answers":[]}}`, ErrInvalid, "explicit empty question_answers"},
		{"heartbeat kinds", `{"type":"heartbeat","payload":{"ts":1,"active_requests":0,"supported_agent_kinds":[]}}`, ErrInvalid, "explicit empty supported_agent_kinds"},
		{"required answers may be empty", `{"type":"prompt_for_user_choice_decision","id":"a","payload":{"delivery_id":"d","question_answers":[{"question_id":"q","answers":[]}]}}`, nil, ""},
		{"empty array where an object belongs", readOnlyHead + `,"agent_options":[]}}}`, ErrWrongType, "configuration.agent_options"},
		{"empty object where an array belongs", readOnlyHead + `,"function_tools":{}}}}`, ErrWrongType, "configuration.function_tools"},
		{"nullable mcp servers keep []", `{"type":"execution_prepare","id":"p","payload":{"session_id":"s","configuration":{"agent_kind":"k","conversation_id":"","run_id":"","agent_state_key":"agents-api-s","strict_resume":true,"disable_execution_environment":true,"mcp_http_servers":[]}}}`, nil, ""},
	})
}

func TestMCPEmptyListStaysPresent(t *testing.T) {
	f, err := Decode([]byte(`{"type":"execution_prepare","id":"p","payload":{"session_id":"s","configuration":{"agent_kind":"k","conversation_id":"","run_id":"","disable_execution_environment":true,"mcp_http_servers":[]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	s := f.Payload.(ExecutionPrepare).Configuration.MCPHTTPServers
	if s == nil || *s == nil || len(*s) != 0 {
		t.Fatalf("mcp_http_servers [] decoded as %#v", s)
	}
}

// TestDecodeInvalidUTF8: strings and member names must be valid UTF-8 and
// escapes must not encode lone surrogates.
func TestDecodeInvalidUTF8(t *testing.T) {
	ff := strings.Repeat("\xff", 100)
	runFrameCases(t, []frameCase{
		{"envelope id", `{"type":"delta","id":"` + ff + `","payload":{"delta":"x","sequence":0}}`, ErrInvalidUTF8, "envelope.id"},
		{"type", "{\"type\":\"del\xfeta\",\"payload\":{}}", ErrInvalidUTF8, "envelope.type"},
		{"map keys", beginHead + "{\"action\":\"configure\",\"env\":{\"\xff\":\"1\",\"\xfe\":\"2\"}}}}", ErrInvalidUTF8, "initialization.env"},
		{"path", `{"type":"workspace_read","id":"r","payload":{"handle":"h","environment_id":"e","path":"a` + "\xff" + `b","operation":"bytes","max_bytes":1}}`, ErrInvalidUTF8, "workspace_read.path"},
		{"member name", `{"type":"delta","id":"r","payload":{"delta":"x","sequence":0,"` + "\xc3" + `":1}}`, ErrInvalidUTF8, "delta"},
		{"truncated sequence", `{"type":"delta","id":"r","payload":{"delta":"` + "\xe2\x82" + `","sequence":0}}`, ErrInvalidUTF8, "delta.delta"},
		{"surrogate bytes", `{"type":"delta","id":"r","payload":{"delta":"` + "\xed\xa0\x80" + `","sequence":0}}`, ErrInvalidUTF8, "delta.delta"},
		{"raw member", `{"type":"tool_call","id":"r","payload":{"id":"c","name":"n","stage":"before","args":{"k":"` + "\xff" + `"}}}`, ErrInvalidUTF8, "tool_call.args"},
		{"lone high surrogate", `{"type":"delta","id":"r","payload":{"delta":"\ud800","sequence":0}}`, ErrInvalidUTF8, "delta.delta"},
		{"high surrogate then text", `{"type":"delta","id":"r","payload":{"delta":"\ud800\u0041","sequence":0}}`, ErrInvalidUTF8, "delta.delta"},
		{"lone low surrogate", `{"type":"delta","id":"r","payload":{"delta":"\udc00","sequence":0}}`, ErrInvalidUTF8, "delta.delta"},
		{"escaped key surrogate", beginHead + `{"action":"configure","env":{"\ud800":"1"}}}}`, ErrInvalidUTF8, "initialization.env"},
		{"pair accepted", `{"type":"delta","id":"r","payload":{"delta":"\ud83d\ude00\uD83D\uDE00 \u00e9 é 😀","sequence":0}}`, nil, ""},
	})
}

func TestDecodeTraceInvalidUTF8Dropped(t *testing.T) {
	f, err := Decode([]byte(`{"type":"delta","id":"r","payload":{"delta":"x","sequence":0},"trace":"` + "\xff" + `\ud800"}`))
	if err != nil {
		t.Fatal(err)
	}
	if f.Trace != "" {
		t.Fatalf("trace %q kept", f.Trace)
	}
}

func TestEncodeInvalidUTF8(t *testing.T) {
	ff := strings.Repeat("\xff", 100)
	cases := []struct {
		name  string
		f     Frame
		field string
	}{
		{"envelope id", Frame{ID: ff, Payload: Delta{Delta: "x"}}, "envelope.id"},
		{"trace", Frame{ID: "r", Trace: "\xff", Payload: Delta{Delta: "x"}}, "envelope.trace"},
		{"steer input id", Frame{ID: "r", Payload: PromptSteer{InputID: strings.Repeat("\xff", 200), Input: TextInput("x")}}, "prompt_steer.input_id"},
		{"nested text", Frame{ID: "r", Payload: ExecutionStart{ExecutorID: "e", Handle: "h", RunID: "r",
			Input: MessageInput{{Content: []InputContent{TextPart("ok"), TextPart("a\xffb")}}}}}, "execution_start.input[0].content[1].text"},
		{"pointer", Frame{ID: "r", Payload: OutputMessage{ID: "m", Status: OutputStatusCompleted, Text: ptr("\xfe")}}, "output_message.text"},
		{"embedded", Frame{ID: "r", Payload: UsageUpdate{Usage{Model: "m\xff"}}}, "usage.model"},
		{"raw member", Frame{ID: "r", Payload: ToolCall{ID: "c", Name: "n", Stage: ToolStageBefore, Args: []byte("{\"k\":\"\xff\"}")}}, "tool_call.args"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Encode(tt.f)
			if !errors.Is(err, ErrInvalidUTF8) {
				t.Fatalf("got %v, want ErrInvalidUTF8", err)
			}
			if !strings.Contains(err.Error(), tt.field) {
				t.Errorf("%q does not name %q", err, tt.field)
			}
		})
	}
	// A valid U+FFFD and a raw escape spelling it are not errors.
	for _, p := range []Payload{Delta{Delta: "\uFFFD"}, ToolCall{ID: "c", Name: "n", Stage: ToolStageBefore, Args: []byte(`{"k":"\ufffd"}`)}} {
		if _, err := Encode(Frame{ID: "r", Payload: p}); err != nil {
			t.Errorf("%#v: %v", p, err)
		}
	}
}

func TestCheckUTF8MapKeys(t *testing.T) {
	v := Initialization{Action: "configure", Env: map[string]string{"\xfe": "x", "a": "1"}}
	err := checkUTF8("init", reflectValue(v))
	if !errors.Is(err, ErrInvalidUTF8) || !strings.Contains(err.Error(), "init.env: member name") {
		t.Fatalf("got %v", err)
	}
	v.Env = map[string]string{"b": "\xff", "a": "1"}
	err = checkUTF8("init", reflectValue(v))
	if !errors.Is(err, ErrInvalidUTF8) || !strings.Contains(err.Error(), "init.env.b") {
		t.Fatalf("got %v", err)
	}
}

// TestRawDuplicateMembers: repeated member names are rejected at any depth,
// including inside raw JSON members.
func TestRawDuplicateMembers(t *testing.T) {
	head := `{"type":"tool_call","id":"r","payload":{"id":"c","name":"n","stage":"before","args":`
	var many, manyDup strings.Builder
	for i := 0; i < 40; i++ {
		many.WriteString(`"k` + strconv.Itoa(i) + `":1,`)
	}
	manyDup.WriteString(many.String() + `"k0":1,`)
	runFrameCases(t, []frameCase{
		{"top", head + `{"a":1,"a":2}}}`, ErrDuplicateField, "tool_call.args"},
		{"escaped", head + `{"a":1,"\u0061":2}}}`, ErrDuplicateField, "tool_call.args"},
		{"nested", head + `{"x":[{"b":1},{"c":{"d":0,"d":0}}]}}}`, ErrDuplicateField, `"d"`},
		{"large object", head + `{` + manyDup.String() + `"z":0}}}`, ErrDuplicateField, `"k0"`},
		{"large distinct", head + `{` + many.String() + `"z":0}}}`, nil, ""},
		{"same key in siblings", head + `{"x":[{"a":1},{"a":1}],"a":{"a":{"a":1}}}}}`, nil, ""},
		{"lenient code", `{"type":"error","id":"r","payload":{"error":"e","code":{"a":1,"a":1}}}`, ErrDuplicateField, "error.code"},
		{"agent option value", `{"type":"execution_prepare","id":"p","payload":{"session_id":"s","configuration":{"agent_kind":"k","conversation_id":"","run_id":"","disable_execution_environment":true,"agent_options":{"harness_config":{"m":1,"m":1}}}}}`, ErrDuplicateField, "agent_options.harness_config"},
		{"map keys large", beginHead + `{"action":"configure","env":{` + strings.ReplaceAll(manyDup.String(), ":1", `:"1"`) + `"z":"0"}}}}`, ErrDuplicateField, "initialization.env.k0"},
	})
}

func TestDirectoryTruncatedNamed(t *testing.T) {
	frame := `{"type":"workspace_read_result","id":"r","payload":{"outcome":"completed","close_acknowledged":true,"truncated":true,"directory":{"entries":[],"truncated":false}}}`
	err := decodeValidate(frame)
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "workspace_read_result.truncated") {
		t.Fatalf("got %v", err)
	}
}

func TestPreparationStatusOperation(t *testing.T) {
	st := func(op string) string {
		return `{"type":"preparation_status","id":"p","payload":{"revision":0,"state":"rejected","error_code":"invalid_start","operation":"` + op + `"}}`
	}
	runFrameCases(t, []frameCase{
		{"prepare", st(TypeExecutionPrepare), nil, ""},
		{"start", st(TypeExecutionStart), nil, ""},
		{"release", st(TypeExecutionRelease), nil, ""},
		{"delta", st(TypeDelta), ErrInvalid, "preparation_status.operation"},
		{"heartbeat", st(TypeHeartbeat), ErrInvalid, "preparation_status.operation"},
		{"unregistered", st("launch"), ErrInvalid, "preparation_status.operation"},
	})
}

func TestCompatible(t *testing.T) {
	if !Compatible(Version) {
		t.Fatal("Version incompatible with itself")
	}
	for _, v := range []string{"0.10.1", "0.10.0-dev", "0.10.0+build", " 0.10.0", "0.10.0 ", "0.10.", "",
		"0.7.0", "0.8.99", "0.8.", "0.10", "v0.10.0", "0.10.0\x00"} {
		if Compatible(v) {
			t.Errorf("Compatible(%q) = true", v)
		}
	}
}

// TestOversizeIDDecodeError: an oversize ID in a readable envelope yields a
// *DecodeError with the type and without the ID.
func TestOversizeIDDecodeError(t *testing.T) {
	id := strings.Repeat("i", IDBytesMax+1)
	for _, tt := range []struct{ frame, typ string }{
		{`{"type":"delta","id":"` + id + `","payload":{"delta":"x","sequence":0}}`, TypeDelta},
		{`{"id":"` + id + `","type":"delta"}`, TypeDelta},
		{`{"type":"no_such","id":"` + id + `"}`, ""},
	} {
		_, err := Decode([]byte(tt.frame))
		var de *DecodeError
		if !errors.As(err, &de) || !errors.Is(err, ErrTooLarge) {
			t.Fatalf("%s: got %v", tt.frame, err)
		}
		if de.Type != tt.typ || de.ID != "" || strings.Contains(err.Error(), id[:IDBytesMax]) || !strings.Contains(err.Error(), "envelope.id") {
			t.Errorf("%s: %#v %v", tt.frame, de, err)
		}
	}
	if _, err := Decode([]byte(`{"type":"delta","id":"` + strings.Repeat("i", IDBytesMax) + `","payload":{"delta":"x","sequence":0}}`)); err != nil {
		t.Errorf("128-byte ID: %v", err)
	}
}

func reflectValue(v any) reflect.Value { return reflect.ValueOf(v) }

// TestCapabilityErrorsNameKnownMembers: capability errors name a known
// member (the doc's promise) and withhold only unknown member names.
func TestCapabilityErrorsNameKnownMembers(t *testing.T) {
	frame, err := Encode(Frame{Payload: Heartbeat{TS: 1, SupportedAgentKinds: []SupportedAgentKind{{Kind: "k", Capabilities: sampleCaps()}}}})
	if err != nil {
		t.Fatal(err)
	}
	good := string(frame)
	const member = `"steering":true`
	if !strings.Contains(good, member) {
		t.Fatalf("sample lacks %s: %s", member, good)
	}
	const path = "heartbeat.supported_agent_kinds[0].capabilities"
	for _, tt := range []struct {
		name, frame string
		want        error
		named       bool
	}{
		{"wrong type", strings.Replace(good, member, `"steering":1`, 1), ErrWrongType, true},
		{"null", strings.Replace(good, member, `"steering":null`, 1), ErrNull, true},
		{"missing", strings.Replace(good, member+",", "", 1), ErrMissingField, true},
		{"duplicate", strings.Replace(good, member, member+","+member, 1), ErrDuplicateField, true},
		{"unknown", strings.Replace(good, member, member+`,"secret_flag":true`, 1), ErrUnknownField, false},
	} {
		_, err := Decode([]byte(tt.frame))
		if !errors.Is(err, tt.want) {
			t.Fatalf("%s: got %v", tt.name, err)
		}
		msg := err.Error()
		if tt.named && !strings.Contains(msg, path+".steering") {
			t.Errorf("%s: %q does not name the member", tt.name, msg)
		}
		if !tt.named && (strings.Contains(msg, "secret_flag") || !strings.Contains(msg, path)) {
			t.Errorf("%s: %q", tt.name, msg)
		}
	}
}

// TestAgentOptionsEmptyIsAbsent: a peer's explicit "agent_options":{}
// means no options. Both decode paths (the inline one and the two-pass
// one) read it as absent, the configuration passes the normal profile's
// validation, and the canonical encoding omits it.
func TestAgentOptionsEmptyIsAbsent(t *testing.T) {
	const frame = `{"type":"execution_prepare","id":"p","payload":{"session_id":"s","configuration":{"agent_kind":"k","conversation_id":"","run_id":"",` +
		`"agent_state_key":"agents-api-s","strict_resume":true,"disable_execution_environment":true,"agent_options":{}}}}`
	decoders := map[string]func([]byte) (Frame, error){
		"inline": Decode,
		"two-pass": func(b []byte) (Frame, error) {
			return decodeFrame(b, (*messageType).decodePayload)
		},
	}
	for _, name := range []string{"inline", "two-pass"} {
		f, err := decoders[name]([]byte(frame))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if c := f.Payload.(ExecutionPrepare).Configuration; c.AgentOptions != nil {
			t.Fatalf("%s: {} decoded as %v, want absent", name, c.AgentOptions)
		}
		if err := Validate(f.Payload); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, err := Encode(f)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if strings.Contains(string(b), "agent_options") {
			t.Fatalf("%s: re-encoded with agent_options: %s", name, b)
		}
	}
}
