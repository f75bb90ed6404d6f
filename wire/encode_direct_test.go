package wire

import (
	"bytes"
	"encoding/json"
	"testing"

	"pgregory.net/rapid"
)

// hostileStrings covers every escape encoding/json makes: quotes,
// backslashes, the short and \u00XX control escapes, HTML characters,
// DEL, invalid UTF-8 (lone, truncated, overlong, surrogate), U+2028,
// U+2029 and U+FFFD itself.
var hostileStrings = []string{"", "plain", `q"uote`, `back\slash`, "\b\f\n\r\t", "\x00\x01\x1f", "<a href='x'>&amp;</a>",
	"\x7f", "\xff", "a\xe2\x80", "\xc0\xaf", "\xed\xa0\x80", "line\u2028para\u2029", "\ufffd", "é€😀", "\u2027\u202a"}

var genHostileString = rapid.OneOf(
	rapid.SampledFrom(hostileStrings),
	rapid.String(),
	rapid.Map(rapid.SliceOfN(rapid.Byte(), 0, 12), func(b []byte) string { return string(b) }),
)

func hostileStr(t *rapid.T, label string) string { return genHostileString.Draw(t, label) }

// hostileRaw draws raw JSON as a sender might hold it: absent, empty,
// compact, spaced, with HTML characters, U+2028 or invalid UTF-8 in a
// string, or invalid.
func hostileRaw(t *rapid.T, label string) json.RawMessage {
	raws := []string{"", `{}`, `{"a":1}`, "{ \"a\" : [1, 2]\n}", `{"h":"<b>&</b>"}`, "{\"l\":\"\u2028\"}",
		"{\"x\":\"\xff\"}", `{`, `nul`, `"s"`, `[1,{"b":null}]`, "\t{\"sp ace\":\"a b\"} ",
		`{"a":"x y"}`, `{"a":"q\" y","b" :1}`, `{"a":"\\", "b":2}`, `{"a":"\"", "b":1}`, `{"a":"\\\" <"}`, `{"a":"é€ \u2028"}`, "[\"\u2028\"]"}
	i := rapid.IntRange(-1, len(raws)-1).Draw(t, label)
	if i < 0 {
		return nil
	}
	return json.RawMessage(raws[i])
}

func hostileConfiguration(t *rapid.T) ExecutionConfiguration {
	c := ExecutionConfiguration{AgentKind: hostileStr(t, "kind"), ConversationID: hostileStr(t, "conv"), RunID: hostileStr(t, "run"),
		AgentSessionID: hostileStr(t, "native"), AgentStateKey: hostileStr(t, "state_key"),
		WorkspaceReadOnly: rapid.Bool().Draw(t, "ro"), WorkspaceAuthoring: rapid.Bool().Draw(t, "authoring"),
		ReleaseOnCompletion: rapid.Bool().Draw(t, "release"), StrictResume: rapid.Bool().Draw(t, "strict"),
		RequireExistingNativeSession: rapid.Bool().Draw(t, "require"), ObserveMessages: rapid.Bool().Draw(t, "obs_msg"),
		ObserveToolObservations: rapid.Bool().Draw(t, "obs_tool"), ObserveSubagentIdentities: rapid.Bool().Draw(t, "obs_sub"),
		ToolSearch: rapid.Bool().Draw(t, "search"), DisableExecutionEnvironment: rapid.Bool().Draw(t, "no_env"),
		DisableSubagents: rapid.Bool().Draw(t, "no_sub")}
	if rapid.IntRange(0, 3).Draw(t, "input") == 0 {
		text := hostileStr(t, "text")
		c.Input = MessageInput{{Content: []InputContent{{Type: ContentInputText, Text: &text}}}}
	}
	c.MaxConcurrentSubagents = rapid.Ptr(rapid.Int(), true).Draw(t, "subagents")
	if n := rapid.IntRange(-1, 3).Draw(t, "options"); n >= 0 {
		c.AgentOptions = map[string]json.RawMessage{}
		for range n {
			c.AgentOptions[hostileStr(t, "option_key")] = hostileRaw(t, "option")
		}
	}
	if rapid.Bool().Draw(t, "controls") {
		c.ExecutionControls = &ExecutionControls{WebSearch: hostileStr(t, "web"), TextVerbosity: hostileStr(t, "verbosity"),
			DisableProgrammaticToolCalling: rapid.Bool().Draw(t, "no_ptc")}
		if rapid.Bool().Draw(t, "format") {
			c.ExecutionControls.OutputFormat = &OutputFormat{Type: hostileStr(t, "format_type"), Schema: hostileRaw(t, "schema")}
		}
	}
	if rapid.Bool().Draw(t, "mcp") {
		var servers []MCPHTTPServer
		if rapid.Bool().Draw(t, "mcp_list") {
			servers = []MCPHTTPServer{}
		}
		for n := rapid.IntRange(0, 2).Draw(t, "servers"); n > 0; n-- {
			s := MCPHTTPServer{ConnectionOrigin: hostileStr(t, "origin"), ServerLabel: hostileStr(t, "label"),
				ServerURL: hostileStr(t, "url"), Required: rapid.Bool().Draw(t, "required"), BearerToken: hostileStr(t, "bearer")}
			switch rapid.IntRange(0, 2).Draw(t, "tools") {
			case 1:
				var none []string
				s.AllowedTools = &none
			case 2:
				tools := rapid.SliceOfN(genHostileString, 0, 3).Draw(t, "tool_names")
				s.AllowedTools = &tools
			}
			servers = append(servers, s)
		}
		c.MCPHTTPServers = &servers
	}
	if rapid.Bool().Draw(t, "local") {
		c.LocalEnvironment = &LocalEnvironment{ID: hostileStr(t, "env"), WorkspaceDirectory: hostileStr(t, "dir"),
			CapabilitySources: hostileRaw(t, "sources"), Capabilities: rapid.Bool().Draw(t, "caps"),
			ToolEnvironment: rapid.Bool().Draw(t, "tool_env"), SystemPackages: rapid.Bool().Draw(t, "packages"),
			NetworkAccess: hostileStr(t, "network")}
		if rapid.Bool().Draw(t, "domains") {
			c.LocalEnvironment.AllowedDomains = rapid.SliceOfN(genHostileString, 0, 3).Draw(t, "domain_names")
		}
	}
	for n := rapid.IntRange(0, 2).Draw(t, "functions"); n > 0; n-- {
		c.FunctionTools = append(c.FunctionTools, FunctionTool{Name: hostileStr(t, "fname"), Description: hostileStr(t, "fdesc"),
			Parameters: hostileRaw(t, "params"), DeferLoading: rapid.Bool().Draw(t, "defer")})
	}
	if c.FunctionTools == nil && rapid.Bool().Draw(t, "empty_functions") {
		c.FunctionTools = []FunctionTool{}
	}
	return c
}

// hostileDirectPayload draws a payload of a type with a direct encoding,
// every string and raw member drawn from hostile values.
func hostileDirectPayload(t *rapid.T) Payload {
	switch rapid.IntRange(0, 8).Draw(t, "type") {
	case 0:
		return PreparationStatus{ExecutorID: hostileStr(t, "executor"), Reused: rapid.Bool().Draw(t, "reused"),
			Handle: hostileStr(t, "handle"), Revision: rapid.Uint64().Draw(t, "revision"), State: hostileStr(t, "state"),
			ExpiresAt: rapid.Int64().Draw(t, "expires"), RunID: hostileStr(t, "run"), ErrorCode: hostileStr(t, "code"),
			Operation: hostileStr(t, "operation")}
	case 1:
		return Delta{ItemID: hostileStr(t, "item"), Delta: hostileStr(t, "delta"), Sequence: rapid.Uint64().Draw(t, "sequence")}
	case 2:
		return PromptSteerAck{InputID: hostileStr(t, "input"), Accepted: rapid.Bool().Draw(t, "accepted"),
			Written: rapid.Bool().Draw(t, "written"), ErrorCode: hostileStr(t, "code"), Error: hostileStr(t, "error")}
	case 3:
		a := InteractionDecisionAck{DeliveryID: hostileStr(t, "delivery"), Applied: rapid.Bool().Draw(t, "applied"),
			ErrorCode: hostileStr(t, "code"), Error: hostileStr(t, "error")}
		if rapid.IntRange(0, 3).Draw(t, "outcome") == 0 {
			a.Outcome = &Done{Content: hostileStr(t, "content")}
		}
		return a
	case 4:
		return WorkspaceRead{Handle: hostileStr(t, "handle"), RunID: hostileStr(t, "run"), EnvironmentID: hostileStr(t, "env"),
			Path: hostileStr(t, "path"), MaxBytes: rapid.Int().Draw(t, "max_bytes"), Operation: hostileStr(t, "operation"),
			MaxEntries: rapid.Int().Draw(t, "max_entries")}
	case 6:
		h := Heartbeat{TS: rapid.Int64().Draw(t, "ts"), ActiveRequests: rapid.Int().Draw(t, "active"),
			DaemonVersion: hostileStr(t, "version")}
		if n := rapid.IntRange(-1, 2).Draw(t, "kinds"); n == 0 {
			h.SupportedAgentKinds = []SupportedAgentKind{}
		} else {
			for range n {
				k := SupportedAgentKind{Kind: hostileStr(t, "kind"), Available: rapid.Bool().Draw(t, "available"),
					Version: hostileStr(t, "kind_version")}
				for _, f := range k.Capabilities.fieldArray() {
					// mostly decided; now and then unspecified, which
					// json.Marshal refuses
					switch d := rapid.IntRange(0, 40).Draw(t, f.Name); {
					case d == 0:
						*f.Value = CapabilityUnspecified
					case d%2 == 1:
						*f.Value = CapabilitySupported
					default:
						*f.Value = CapabilityUnsupported
					}
				}
				h.SupportedAgentKinds = append(h.SupportedAgentKinds, k)
			}
		}
		return h
	case 7:
		return PromptSteer{InputID: hostileStr(t, "input"), Input: hostileInput(t), DurableReceipt: rapid.Bool().Draw(t, "durable")}
	case 8:
		return ExecutionStart{ExecutorID: hostileStr(t, "executor"), Handle: hostileStr(t, "handle"), RunID: hostileStr(t, "run"),
			Input: hostileInput(t)}
	default:
		return ExecutionPrepare{SessionID: hostileStr(t, "session"), Configuration: hostileConfiguration(t)}
	}
}

// hostileInput draws message input as a sender might hold it: nil, empty,
// messages with nil, empty or several parts, each part's pointers set or
// not whatever its type says.
func hostileInput(t *rapid.T) MessageInput {
	n := rapid.IntRange(-1, 2).Draw(t, "messages")
	if n < 0 {
		return nil
	}
	in := MessageInput{}
	for range n {
		var msg InputMessage
		if parts := rapid.IntRange(-1, 2).Draw(t, "parts"); parts >= 0 {
			msg.Content = []InputContent{}
			for range parts {
				c := InputContent{Type: hostileStr(t, "part_type")}
				if rapid.Bool().Draw(t, "has_text") {
					text := hostileStr(t, "text")
					c.Text = &text
				}
				if rapid.Bool().Draw(t, "has_image") {
					url := hostileStr(t, "image")
					c.ImageURL = &url
				}
				msg.Content = append(msg.Content, c)
			}
		}
		in = append(in, msg)
	}
	return in
}

// sameAsMarshal fails unless appendPayload renders p exactly as
// json.Marshal does, after what the buffer already holds, or fails
// exactly when it fails.
func sameAsMarshal(t interface {
	Helper()
	Fatalf(string, ...any)
}, p Payload) {
	t.Helper()
	want, wantErr := json.Marshal(p)
	got, gotErr := appendPayload([]byte(`{"payload":`), p)
	if (wantErr == nil) != (gotErr == nil) || (wantErr != nil && wantErr.Error() != gotErr.Error()) {
		t.Fatalf("%T: error %v, json.Marshal's %v", p, gotErr, wantErr)
	}
	if wantErr != nil {
		return
	}
	if !bytes.Equal(got, append([]byte(`{"payload":`), want...)) {
		t.Fatalf("%T:\n got %s\nwant %s", p, got, want)
	}
}

func TestDirectEncodingMatchesMarshalProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) { sameAsMarshal(t, hostileDirectPayload(t)) })
}

// TestDirectEncodingMatchesMarshalValid draws the valid payloads of the
// frame generators: the direct path renders them itself.
func TestDirectEncodingMatchesMarshalValid(t *testing.T) {
	gens := []func(*rapid.T) Payload{genExecutionPrepare, genSteerAck, genDecisionAck, genWorkspaceRead}
	rapid.Check(t, func(t *rapid.T) {
		p := gens[rapid.IntRange(0, len(gens)-1).Draw(t, "gen")](t)
		sameAsMarshal(t, p)
		if d, ok := p.(directPayload); ok {
			if a, isAck := p.(InteractionDecisionAck); isAck && a.Outcome != nil {
				return
			}
			if _, ok := d.appendJSON(nil); !ok {
				t.Fatalf("%T: valid payload left to json.Marshal: %+v", p, p)
			}
		}
	})
}

func TestDirectEncodingMatchesMarshal(t *testing.T) {
	text := "hi"
	two := 2
	for _, p := range []Payload{
		PreparationStatus{},
		PreparationStatus{ExecutorID: "e", Reused: true, Handle: "h", Revision: 7, State: StateReady, ExpiresAt: -3, RunID: "r", ErrorCode: "c", Operation: "o"},
		Delta{Delta: "a<b>&c\u2028\xff"},
		PromptSteerAck{InputID: "i", Accepted: true, Written: true},
		InteractionDecisionAck{DeliveryID: "d", Outcome: &Done{Content: "done"}},
		WorkspaceRead{EnvironmentID: "env", Path: "/a b", MaxBytes: 10},
		ExecutionPrepare{},
		ExecutionPrepare{SessionID: "s", Configuration: ExecutionConfiguration{AgentKind: "k", MaxConcurrentSubagents: &two,
			AgentOptions:      map[string]json.RawMessage{"z": json.RawMessage(`"x"`), "a": json.RawMessage("{ \"k\" : \"<\" }")},
			ExecutionControls: &ExecutionControls{WebSearch: "disabled", OutputFormat: &OutputFormat{Type: "json_schema", Schema: json.RawMessage(`{"type":"object"}`)}},
			MCPHTTPServers:    &[]MCPHTTPServer{{ConnectionOrigin: OriginService, AllowedTools: &[]string{"t"}}, {ConnectionOrigin: OriginService}},
			LocalEnvironment:  &LocalEnvironment{ID: "env", AllowedDomains: []string{"a.example"}, CapabilitySources: json.RawMessage(`{}`)},
			FunctionTools:     []FunctionTool{{Name: "f", Parameters: json.RawMessage(`{"type":"object"}`)}}}},
		ExecutionPrepare{Configuration: ExecutionConfiguration{Input: MessageInput{{Content: []InputContent{{Type: ContentInputText, Text: &text}}}}}},
		ExecutionPrepare{Configuration: ExecutionConfiguration{AgentOptions: map[string]json.RawMessage{"model": nil}}},
		ExecutionPrepare{Configuration: ExecutionConfiguration{AgentOptions: map[string]json.RawMessage{"model": json.RawMessage(`{`)}}},
		ExecutionPrepare{Configuration: ExecutionConfiguration{MCPHTTPServers: new([]MCPHTTPServer)}},
		Heartbeat{},
		Heartbeat{TS: -1, ActiveRequests: 3, DaemonVersion: "1<2", SupportedAgentKinds: []SupportedAgentKind{}},
		Heartbeat{SupportedAgentKinds: []SupportedAgentKind{{Kind: "k", Available: true, Version: "v\u2028",
			Capabilities: AllCapabilities(CapabilitySupported)}, {Kind: "u", Capabilities: AllCapabilities(CapabilityUnsupported)}}},
		Heartbeat{SupportedAgentKinds: []SupportedAgentKind{{Kind: "k"}}}, // unspecified: json.Marshal's error
		PromptSteer{},
		PromptSteer{InputID: "i", Input: MessageInput{}, DurableReceipt: true},
		PromptSteer{Input: MessageInput{{}, {Content: []InputContent{}}, {Content: []InputContent{TextPart("a&b"), ImagePart("data:x"), {Type: "odd"}}}}},
		ExecutionStart{},
		ExecutionStart{ExecutorID: "e", Handle: "h", RunID: "r", Input: TextInput("\xff<")},
	} {
		sameAsMarshal(t, p)
	}
}

// TestEncodeUsesDirectPath proves the frames the direct path renders are
// the frames Encode sends: the same bytes as the envelope around
// json.Marshal's payload.
func TestEncodeUsesDirectPath(t *testing.T) {
	p := PreparationStatus{Handle: "h<1>", Revision: 3, State: StatePreparing}
	got, err := Encode(Frame{ID: "p-1", Payload: p})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(p)
	want := `{"type":"preparation_status","id":"p-1","payload":` + string(raw) + `}`
	if string(got) != want {
		t.Fatalf("got %s\nwant %s", got, want)
	}
}
