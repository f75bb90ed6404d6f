package codex

import "encoding/json"

// The app-server JSON-RPC messages the adapter speaks, hand-written for the
// pinned Version. protocol_schema_test.go checks every field name (and,
// for what the adapter sends, every required field) against the output of
// `codex app-server generate-json-schema` of the pinned binary.

// Client requests and notifications.
const (
	methodInitialize    = "initialize"
	methodInitialized   = "initialized"
	methodThreadStart   = "thread/start"
	methodThreadResume  = "thread/resume"
	methodTurnStart     = "turn/start"
	methodTurnSteer     = "turn/steer"
	methodTurnInterrupt = "turn/interrupt"
)

// Server notifications the adapter reads.
const (
	notifyTurnStarted     = "turn/started"
	notifyTurnCompleted   = "turn/completed"
	notifyItemStarted     = "item/started"
	notifyItemCompleted   = "item/completed"
	notifyAgentDelta      = "item/agentMessage/delta"
	notifyReasoningDelta  = "item/reasoning/summaryTextDelta"
	notifyTokenUsage      = "thread/tokenUsage/updated"
	notifyError           = "error"
	itemTypeUserMessage   = "userMessage"
	itemTypeAgentMessage  = "agentMessage"
	turnStatusCompleted   = "completed"
	turnStatusInterrupted = "interrupted"
	turnStatusFailed      = "failed"
)

type clientInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type initializeParams struct {
	ClientInfo clientInfo `json:"clientInfo"`
}

// threadStartParams is also the shape of thread/resume (plus ThreadID).
type threadStartParams struct {
	Model                 string         `json:"model,omitempty"`
	ModelProvider         string         `json:"modelProvider,omitempty"`
	Cwd                   string         `json:"cwd,omitempty"`
	ApprovalPolicy        string         `json:"approvalPolicy"`
	Sandbox               string         `json:"sandbox"`
	DeveloperInstructions string         `json:"developerInstructions,omitempty"`
	Config                map[string]any `json:"config,omitempty"`
}

type threadResumeParams struct {
	ThreadID              string         `json:"threadId"`
	Model                 string         `json:"model,omitempty"`
	ModelProvider         string         `json:"modelProvider,omitempty"`
	Cwd                   string         `json:"cwd,omitempty"`
	ApprovalPolicy        string         `json:"approvalPolicy"`
	Sandbox               string         `json:"sandbox"`
	DeveloperInstructions string         `json:"developerInstructions,omitempty"`
	Config                map[string]any `json:"config,omitempty"`
}

type thread struct {
	ID string `json:"id"`
}

// threadStartResponse and threadResumeResponse also carry the policy
// app-server applied to the thread, which the adapter checks against what
// it asked for.
type threadStartResponse struct {
	Thread         thread          `json:"thread"`
	ApprovalPolicy json.RawMessage `json:"approvalPolicy"`
	Sandbox        sandboxPolicy   `json:"sandbox"`
}

type threadResumeResponse struct {
	Thread         thread          `json:"thread"`
	ApprovalPolicy json.RawMessage `json:"approvalPolicy"`
	Sandbox        sandboxPolicy   `json:"sandbox"`
}

// sandboxPolicy is the SandboxPolicy union; only its tag is read.
type sandboxPolicy struct {
	Type string `json:"type"`
}

type userInput struct {
	Type         string `json:"type"`
	Text         string `json:"text"`
	TextElements []any  `json:"text_elements"`
}

func textInput(text string) []userInput {
	return []userInput{{Type: "text", Text: text, TextElements: []any{}}}
}

type turnStartParams struct {
	ThreadID     string          `json:"threadId"`
	Input        []userInput     `json:"input"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

type turnStartResponse struct {
	Turn turn `json:"turn"`
}

type turnSteerParams struct {
	ThreadID            string      `json:"threadId"`
	Input               []userInput `json:"input"`
	ClientUserMessageID string      `json:"clientUserMessageId"`
	ExpectedTurnID      string      `json:"expectedTurnId"`
}

type turnSteerResponse struct {
	TurnID string `json:"turnId"`
}

type turnInterruptParams struct {
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
}

type turn struct {
	ID     string     `json:"id"`
	Status string     `json:"status"`
	Error  *turnError `json:"error"`
}

type turnError struct {
	Message        string          `json:"message"`
	CodexErrorInfo json.RawMessage `json:"codexErrorInfo"`
}

type turnNotification struct {
	ThreadID string `json:"threadId"`
	Turn     turn   `json:"turn"`
}

type itemNotification struct {
	ThreadID string     `json:"threadId"`
	TurnID   string     `json:"turnId"`
	Item     threadItem `json:"item"`
}

// threadItem holds the members of the ThreadItem variants the adapter
// reads: userMessage (id, clientId), agentMessage (id, text, phase) and
// the tool items: commandExecution (command, cwd, exitCode, durationMs,
// aggregatedOutput), fileChange (changes), mcpToolCall (server, tool,
// arguments, result, error, durationMs), dynamicToolCall (namespace,
// tool, arguments, success, contentItems, durationMs) and webSearch
// (query, action), each with its id and status.
type threadItem struct {
	Type         string           `json:"type"`
	ID           string           `json:"id"`
	ClientID     *string          `json:"clientId"`
	Text         string           `json:"text"`
	Phase        *string          `json:"phase"`
	Status       string           `json:"status"`
	Command      string           `json:"command"`
	Cwd          *string          `json:"cwd"`
	ExitCode     *int64           `json:"exitCode"`
	DurationMS   *int64           `json:"durationMs"`
	Output       *string          `json:"aggregatedOutput"`
	Changes      json.RawMessage  `json:"changes"`
	Tool         string           `json:"tool"`
	Namespace    *string          `json:"namespace"`
	Server       string           `json:"server"`
	Arguments    json.RawMessage  `json:"arguments"`
	Result       json.RawMessage  `json:"result"`
	Error        json.RawMessage  `json:"error"`
	Success      *bool            `json:"success"`
	ContentItems []contentItem    `json:"contentItems"`
	Query        string           `json:"query"`
	Action       *webSearchAction `json:"action"`
}

// contentItem is a DynamicToolCallOutputContentItem (inputText or
// inputImage).
type contentItem struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL string `json:"imageUrl"`
}

// webSearchAction is the WebSearchAction union, all variants' members.
type webSearchAction struct {
	Type    string   `json:"type"`
	Query   *string  `json:"query"`
	Queries []string `json:"queries"`
	URL     *string  `json:"url"`
	Pattern *string  `json:"pattern"`
}

type deltaNotification struct {
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
	ItemID   string `json:"itemId"`
	Delta    string `json:"delta"`
}

type tokenUsageNotification struct {
	ThreadID   string           `json:"threadId"`
	TurnID     string           `json:"turnId"`
	TokenUsage threadTokenUsage `json:"tokenUsage"`
}

type threadTokenUsage struct {
	Total tokenUsageBreakdown `json:"total"`
	Last  tokenUsageBreakdown `json:"last"`
}

type tokenUsageBreakdown struct {
	TotalTokens           int64 `json:"totalTokens"`
	InputTokens           int64 `json:"inputTokens"`
	CachedInputTokens     int64 `json:"cachedInputTokens"`
	OutputTokens          int64 `json:"outputTokens"`
	ReasoningOutputTokens int64 `json:"reasoningOutputTokens"`
}

type errorNotification struct {
	ThreadID  string    `json:"threadId"`
	TurnID    string    `json:"turnId"`
	WillRetry bool      `json:"willRetry"`
	Error     turnError `json:"error"`
}

// rpcMessage is one JSON-RPC line: a request (ID and Method), a
// notification (Method only) or a response (ID with Result or Error).
// app-server omits the "jsonrpc" member.
type rpcMessage struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *rpcError) Error() string { return e.Message }
