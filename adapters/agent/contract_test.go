package agent_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

func TestValidateOptions(t *testing.T) {
	withProvider := modelConfig()
	empty := agent.ModelConfiguration{Protocols: []agent.ModelProtocol{}}
	raw := func(kv ...string) map[string]json.RawMessage {
		m := map[string]json.RawMessage{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = json.RawMessage(kv[i+1])
		}
		return m
	}
	cases := []struct {
		name string
		cfg  agent.ModelConfiguration
		opts map[string]json.RawMessage
		want error
	}{
		{"omitted", withProvider, nil, nil},
		{"model and provider", withProvider, raw("model", `"m"`, "model_provider", `"p"`), nil},
		{"native empty config", empty, raw("harness_config", `{}`, "system_prompt", `"s"`), nil},
		{"null model", withProvider, raw("model", `null`), agent.ErrInvalidConfiguration},
		{"empty model", withProvider, raw("model", `""`), agent.ErrInvalidConfiguration},
		{"number model", withProvider, raw("model", `7`), agent.ErrInvalidConfiguration},
		{"provider without model", withProvider, raw("model_provider", `"p"`), agent.ErrInvalidConfiguration},
		{"null provider", withProvider, raw("model", `"m"`, "model_provider", `null`), agent.ErrInvalidConfiguration},
		{"provider not accepted", empty, raw("model", `"m"`, "model_provider", `"p"`), agent.ErrUnsupportedConfiguration},
		{"native params not accepted", empty, raw("harness_config", `{"effort":"high"}`), agent.ErrUnsupportedConfiguration},
		{"harness config not object", withProvider, raw("harness_config", `[]`), agent.ErrInvalidConfiguration},
		{"system prompt not string", withProvider, raw("system_prompt", `{}`), agent.ErrInvalidConfiguration},
		{"unknown key", withProvider, raw("temperature", `1`), agent.ErrUnsupportedConfiguration},
	}
	for _, tc := range cases {
		err := tc.cfg.ValidateOptions(tc.opts)
		if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
			t.Errorf("%s: ValidateOptions = %v, want %v", tc.name, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "temperature") {
			t.Errorf("%s: error echoes an unknown key: %v", tc.name, err)
		}
	}
}

func TestDefaultProtocolIsFirst(t *testing.T) {
	c := agent.ModelConfiguration{Protocols: []agent.ModelProtocol{agent.ProtocolAnthropicMessages, agent.ProtocolOpenAIResponses}}
	if p, ok := c.DefaultProtocol(); !ok || p != agent.ProtocolAnthropicMessages {
		t.Fatalf("default %q %v", p, ok)
	}
	if _, ok := (agent.ModelConfiguration{Protocols: []agent.ModelProtocol{}}).DefaultProtocol(); ok {
		t.Fatal("empty declaration has a default protocol")
	}
}

func TestSettlementRules(t *testing.T) {
	for _, tc := range []struct {
		s  agent.TurnSettlement
		ok bool
	}{
		{agent.Reuse(), true},
		{agent.Retire("native process exited"), true},
		{agent.TurnSettlement{}, false},
		{agent.Retire("  "), false},
		{agent.TurnSettlement{Reusable: true, Reason: "why"}, false},
	} {
		err := tc.s.Validate()
		if tc.ok != (err == nil) || (err != nil && !errors.Is(err, agent.ErrInvalidSettlement)) {
			t.Errorf("Validate(%+v) = %v", tc.s, err)
		}
	}
}

func TestCancellationOutcomeMissingEvidenceStaysUnset(t *testing.T) {
	var none agent.CancellationOutcome
	if none.Observed() {
		t.Fatal("zero snapshot observed something")
	}
	d := none.Done()
	if d.Usage != nil || d.Metadata != nil || d.Content != "" {
		t.Fatalf("zero snapshot rendered %+v", d)
	}
	out := int32(4)
	o := agent.CancellationOutcome{NativeSessionID: "n1", Usage: &wire.Usage{OutputTokens: &out}, Content: "par"}
	d = o.Done()
	if !o.Observed() || d.Metadata.AgentSessionID != "n1" || *d.Usage.OutputTokens != 4 || d.Content != "par" {
		t.Fatalf("rendered %+v", d)
	}
	d.Usage.Model = "changed"
	if o.Usage.Model != "" {
		t.Fatal("Done aliases the snapshot's usage")
	}
}

func TestEventValidate(t *testing.T) {
	valid := []wire.Payload{wire.Delta{Delta: "x"}, wire.Thinking{Text: "t"},
		wire.OutputMessage{ID: "m", Status: "in_progress"},
		wire.ToolCall{ID: "t", Name: "shell", Stage: "before"},
		wire.UsageUpdate{}, wire.RunError{Error: "failed"}, wire.Done{},
		wire.PermissionRequest{RequestID: "p", Tool: "shell", Title: "run"}, wire.PermissionCancel{},
		wire.UserChoicePrompt{AskID: "a", Questions: []wire.UserQuestion{{ID: "q", Question: "which?",
			Options: []wire.UserOption{{Label: "one"}}}}},
		wire.FunctionCall{CallID: "c", Name: "lookup", Arguments: json.RawMessage(`{}`)}}
	for _, p := range valid {
		ev := agent.Event{RunID: "r", Payload: p}
		if _, ok := p.(wire.PermissionCancel); ok {
			ev.InteractionID = "p"
		}
		if err := ev.Validate(); err != nil {
			t.Errorf("%s: %v", p.MessageType(), err)
		}
	}
	for name, ev := range map[string]agent.Event{
		"no run":        {Payload: wire.Delta{}},
		"nil payload":   {RunID: "r"},
		"not an output": {RunID: "r", Payload: wire.PromptSteer{}},
		"pointer":       {RunID: "r", Payload: &wire.Done{}},
		"wire invalid":  {RunID: "r", Payload: wire.ToolCall{ID: "t", Name: "shell", Stage: "during"}},
	} {
		if err := ev.Validate(); !errors.Is(err, agent.ErrInvalidRequest) {
			t.Errorf("%s: Validate = %v", name, err)
		}
	}
	if !(agent.Event{Payload: wire.Done{}}).Terminal() || (agent.Event{Payload: wire.Delta{}}).Terminal() {
		t.Fatal("Terminal misclassifies")
	}
}

func TestUnsupportedWrapsSentinel(t *testing.T) {
	const reason agent.UnsupportedReason = "native public function tools are not qualified"
	err := agent.Unsupported(reason)
	if !errors.Is(err, agent.ErrUnsupportedOperation) || !strings.HasSuffix(err.Error(), string(reason)) {
		t.Fatalf("Unsupported = %v", err)
	}
}

func TestTurnRequestAndSteerInputValidate(t *testing.T) {
	out := make(chan agent.Event)
	bad := []agent.TurnRequest{
		{Input: wire.TextInput("x"), Output: out},
		{RunID: "r", Input: wire.TextInput("x")},
		{RunID: "r", Output: out, Input: wire.MessageInput{{}}},
	}
	for i, r := range bad {
		if err := r.Validate(); !errors.Is(err, agent.ErrInvalidRequest) {
			t.Errorf("request %d: %v", i, err)
		}
	}
	if err := (agent.TurnRequest{RunID: "r", Input: wire.TextInput("x"), Output: out}).Validate(); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("i", wire.InputIDBytesMax+1)
	for _, s := range []agent.SteerInput{{Input: wire.TextInput("x")}, {InputID: long, Input: wire.TextInput("x")}, {InputID: "i"}} {
		if err := s.Validate(); !errors.Is(err, agent.ErrInvalidRequest) {
			t.Errorf("SteerInput %.8q: %v", s.InputID, err)
		}
	}
}
