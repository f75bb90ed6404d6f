package wire

import (
	"testing"
)

func TestValidateRunOutput(t *testing.T) {
	incomplete := sampleCaps()
	incomplete.Resume = CapabilityUnspecified
	runValidatorCases(t, []validatorCase{
		{"heartbeat no kinds", Heartbeat{TS: 1}, nil, "", ""},
		{"heartbeat negative", Heartbeat{ActiveRequests: -1}, ErrInvalid, "heartbeat.active_requests", ""},
		{"heartbeat blank kind", Heartbeat{SupportedAgentKinds: []SupportedAgentKind{{Capabilities: sampleCaps()}}}, ErrInvalid, "supported_agent_kinds[0].kind", ""},
		{"heartbeat duplicate kind", Heartbeat{SupportedAgentKinds: []SupportedAgentKind{{Kind: "k", Capabilities: sampleCaps()}, {Kind: "k", Capabilities: sampleCaps()}}}, ErrInvalid, "supported_agent_kinds[1].kind", ""},
		{"heartbeat incomplete", Heartbeat{SupportedAgentKinds: []SupportedAgentKind{{Kind: "k", Capabilities: incomplete}}}, ErrMissingField, "supported_agent_kinds[0].capabilities.resume", ""},
		{"output in progress", OutputMessage{ID: "m", Status: OutputStatusInProgress}, nil, "", ""},
		{"output completed empty", OutputMessage{ID: "m", Status: OutputStatusCompleted, Text: ptr("")}, nil, "", ""},
		{"output completed no text", OutputMessage{ID: "m", Status: OutputStatusCompleted}, ErrMissingField, "output_message.text", ""},
		{"output bad status", OutputMessage{ID: "m", Status: "done"}, ErrInvalid, "output_message.status", ""},
		{"tool bad stage", ToolCall{ID: "c", Name: "n", Stage: "during"}, ErrInvalid, "tool_call.stage", ""},
		{"tool observation no kind", ToolCall{ID: "c", Name: "n", Stage: ToolStageBefore, Observation: &ToolObservation{Status: "s"}}, ErrMissingField, "observation.kind", ""},
		{"tool observation bad part", ToolCall{ID: "c", Name: "n", Stage: ToolStageBefore, Observation: &ToolObservation{Kind: "k", Status: "s", Content: []InputContent{{Type: "x"}}}}, ErrInvalid, "observation.content[0].type", ""},
		{"usage negative", UsageUpdate{Usage{InputTokens: ptr(int32(-1))}}, ErrInvalid, "usage.input_tokens", ""},
		{"usage negative tokens", UsageUpdate{Usage{Tokens: &TokenUsage{TotalTokens: -1}}}, ErrInvalid, "usage.tokens", ""},
		{"usage negative cost", UsageUpdate{Usage{CostUSD: ptr(-0.5)}}, ErrInvalid, "usage.cost_usd", ""},
		{"done bad usage", Done{Usage: &Usage{OutputTokens: ptr(int32(-2))}}, ErrInvalid, "done.usage.output_tokens", ""},
		{"error unclassified", RunError{Error: "x"}, nil, "", ""},
		{"error unknown code", RunError{Error: "x", Code: "bad"}, ErrInvalid, "error.code", ""},
		{"error status without connection_failed", RunError{Error: "x", Code: EngineServerError, HTTPStatus: 500}, ErrInvalid, "error.http_status", ""},
		{"error status out of range", RunError{Error: "x", Code: EngineConnectionFailed, HTTPStatus: 600}, ErrInvalid, "error.http_status", ""},
		{"subagent item negative", SubagentItem{NativeID: "n", TurnID: "t", ItemID: "i", Kind: "k", Position: -1, Payload: []byte(`{}`)}, ErrInvalid, "subagent_item.position", ""},
		{"subagent turn no status", SubagentTurn{NativeID: "n", TurnID: "t"}, ErrMissingField, "subagent_turn.status", ""},
		{"authoring unknown op", AuthoringRequest{Operation: "skill.delete"}, ErrInvalid, "authoring_request.operation", ""},
		{"authoring both", AuthoringResponse{Data: []byte(`1`), Error: "x"}, ErrInvalid, "authoring_response.error", ""},
		{"prompt request no run", PromptRequest{ExecutionConfiguration{AgentKind: "k", Input: TextInput("x"), DisableExecutionEnvironment: true}}, ErrMissingField, "prompt_request.run_id", ""},
		{"prompt request no input", PromptRequest{ExecutionConfiguration{AgentKind: "k", RunID: "r", DisableExecutionEnvironment: true}}, ErrMissingField, "prompt_request.input", ""},
		{"prompt request env rule", PromptRequest{ExecutionConfiguration{AgentKind: "k", RunID: "r", Input: TextInput("x")}}, ErrInvalid, "prompt_request.local_environment", PrepUnsupportedConfiguration},
	})
}
