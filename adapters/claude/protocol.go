package claude

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
)

// The stream-json protocol of the pinned CLI (the message and control
// types @anthropic-ai/claude-agent-sdk declares): newline-delimited JSON
// objects both ways. Only the members the adapter reads are declared.

// Message types and subtypes on the CLI's stdout.
const (
	typeSystem            = "system"
	typeStreamEvent       = "stream_event"
	typeAssistant         = "assistant"
	typeUser              = "user"
	typeResult            = "result"
	typeCommandLifecycle  = "command_lifecycle"
	typeControlRequest    = "control_request"
	typeControlResponse   = "control_response"
	typeControlCancel     = "control_cancel_request"
	subtypeAPIRetry       = "api_retry"
	subtypeCanUseTool     = "can_use_tool"
	subtypeSuccess        = "success"
	lifecycleQueued       = "queued"
	lifecycleStarted      = "started"
	lifecycleCompleted    = "completed"
	lifecycleCancelled    = "cancelled"
	terminalCompleted     = "completed"
	terminalAborted       = "aborted_streaming"
	terminalAbortedTools  = "aborted_tools"
	terminalPromptTooLong = "prompt_too_long"
	terminalBudget        = "budget_exhausted"
	terminalAPIError      = "api_error"
)

// outMessage is one line of the CLI's stdout.
type outMessage struct {
	Type      string `json:"type"`
	Subtype   string `json:"subtype"`
	SessionID string `json:"session_id"`

	// command_lifecycle
	CommandUUID string `json:"command_uuid"`
	State       string `json:"state"`

	// stream_event
	Event        json.RawMessage `json:"event"`
	APIMessageID string          `json:"api_message_id"`
	ParentToolID *string         `json:"parent_tool_use_id"`

	// assistant and user snapshots; the assistant's error fields
	Message        json.RawMessage `json:"message"`
	Error          json.RawMessage `json:"error"`
	APIErrorStatus *int            `json:"api_error_status"`
	APIErrorType   string          `json:"api_error_type"`

	// result
	IsError          bool            `json:"is_error"`
	TerminalReason   string          `json:"terminal_reason"`
	UserMessageUUIDs []string        `json:"user_message_uuids"`
	Result           json.RawMessage `json:"result"`
	Usage            *resultUsage    `json:"usage"`
	TotalCostUSD     *float64        `json:"total_cost_usd"`

	// api_retry
	ErrorStatus *int `json:"error_status"`

	// control_request, control_cancel_request and control_response
	RequestID string          `json:"request_id"`
	Request   json.RawMessage `json:"request"`
	Response  json.RawMessage `json:"response"`
}

// errorString reads the error member when it is a string.
func (m outMessage) errorString() string {
	var s string
	_ = json.Unmarshal(m.Error, &s)
	return s
}

// resultUsage is the usage of a result (cumulative for its native turn).
type resultUsage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
}

// controlResponse is the body of a control_response.
type controlResponse struct {
	Subtype   string          `json:"subtype"`
	RequestID string          `json:"request_id"`
	Response  json.RawMessage `json:"response"`
	Error     string          `json:"error"`
}

// canUseTool is the body of the CLI's can_use_tool control_request.
type canUseTool struct {
	Subtype     string          `json:"subtype"`
	ToolName    string          `json:"tool_name"`
	Input       json.RawMessage `json:"input"`
	ToolUseID   string          `json:"tool_use_id"`
	Description string          `json:"description"`
	Title       string          `json:"title"`
}

// streamEvent is the raw Messages API event a stream_event carries.
type streamEvent struct {
	Type         string `json:"type"`
	Index        int    `json:"index"`
	ContentBlock struct {
		Type string `json:"type"`
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"content_block"`
	Delta struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Thinking string `json:"thinking"`
	} `json:"delta"`
	Message struct {
		ID string `json:"id"`
	} `json:"message"`
}

// snapshot is an assistant or user message's content blocks.
type snapshot struct {
	ID      string `json:"id"`
	Content []struct {
		Type      string          `json:"type"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		ToolUseID string          `json:"tool_use_id"`
		Input     json.RawMessage `json:"input"`    // tool_use
		IsError   bool            `json:"is_error"` // tool_result
		Result    json.RawMessage `json:"content"`  // tool_result
	} `json:"content"`
}

// Lines the adapter writes to the CLI's stdin.

type userLine struct {
	Type            string      `json:"type"`
	UUID            string      `json:"uuid"`
	SessionID       string      `json:"session_id"`
	ParentToolUseID *string     `json:"parent_tool_use_id"`
	Message         userMessage `json:"message"`
}

type userMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type controlRequestLine struct {
	Type      string `json:"type"`
	RequestID string `json:"request_id"`
	Request   any    `json:"request"`
}

type controlResponseLine struct {
	Type     string          `json:"type"`
	Response controlResponse `json:"response"`
}

type interruptRequest struct {
	Subtype      string `json:"subtype"`
	CancelQueued bool   `json:"cancel_queued"`
}

type permissionAllow struct {
	Behavior     string          `json:"behavior"`
	UpdatedInput json.RawMessage `json:"updatedInput"`
}

type permissionDeny struct {
	Behavior string `json:"behavior"`
	Message  string `json:"message"`
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
