package acp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// The members of ACP v1 (the schema of @agentclientprotocol/sdk 2.4.0)
// the adapter writes and reads.

// ProtocolVersion is the ACP major version the adapter speaks.
const ProtocolVersion = 1

// Methods and notifications of ACP v1.
const (
	methodInitialize        = "initialize"
	methodSessionNew        = "session/new"
	methodSessionLoad       = "session/load"
	methodSessionPrompt     = "session/prompt"
	methodSessionCancel     = "session/cancel"
	methodSessionSetMode    = "session/set_mode"
	methodSessionUpdate     = "session/update"
	methodRequestPermission = "session/request_permission"
)

// JSON-RPC error codes the adapter tells apart.
const (
	rpcMethodNotFound   = -32601
	rpcInternalError    = -32603
	rpcAuthRequired     = -32000
	rpcResourceNotFound = -32002
)

// Stop reasons of a prompt's answer.
const (
	stopEndTurn   = "end_turn"
	stopCancelled = "cancelled"
	stopMaxTokens = "max_tokens"
	stopRefusal   = "refusal"
)

// rpcMessage is one JSON-RPC 2.0 line in either direction: a request
// (ID and Method), a notification (Method only) or an answer (ID with
// Result or Error).
type rpcMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *rpcError) Error() string { return "acp: JSON-RPC error " + strconv.Itoa(e.Code) }

// ErrMalformed reports a line from the agent that is not JSON-RPC 2.0: the
// connection is broken and the Executor retires.
var ErrMalformed = errors.New("acp: malformed JSON-RPC from the agent")

// parseLine decodes one line and checks its JSON-RPC 2.0 shape.
func parseLine(line []byte) (rpcMessage, error) {
	var m rpcMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return m, fmt.Errorf("%w: not a JSON object", ErrMalformed)
	}
	id := bytes.TrimSpace(m.ID)
	switch {
	case m.JSONRPC != "2.0":
		return m, fmt.Errorf("%w: jsonrpc is not \"2.0\"", ErrMalformed)
	case m.Method != "" && (m.Result != nil || m.Error != nil):
		return m, fmt.Errorf("%w: a request carrying an answer", ErrMalformed)
	case m.Method == "" && len(id) == 0:
		return m, fmt.Errorf("%w: neither a request nor an answer", ErrMalformed)
	case m.Method == "" && (m.Result == nil) == (m.Error == nil):
		return m, fmt.Errorf("%w: an answer needs exactly one of result and error", ErrMalformed)
	case len(id) > 0 && id[0] != '"' && (id[0] < '0' || id[0] > '9') && id[0] != '-':
		return m, fmt.Errorf("%w: the id is neither a number nor a string", ErrMalformed)
	}
	return m, nil
}

// initializeParams is the client's initialize request: every client
// capability the adapter does not implement (file system, terminal) is
// declared false.
type initializeParams struct {
	ProtocolVersion    int                `json:"protocolVersion"`
	ClientCapabilities clientCapabilities `json:"clientCapabilities"`
	ClientInfo         implementation     `json:"clientInfo"`
}

type clientCapabilities struct {
	FS       fsCapabilities `json:"fs"`
	Terminal bool           `json:"terminal"`
}

type fsCapabilities struct {
	ReadTextFile  bool `json:"readTextFile"`
	WriteTextFile bool `json:"writeTextFile"`
}

type implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// initializeResult is what the agent advertises.
type initializeResult struct {
	ProtocolVersion   int               `json:"protocolVersion"`
	AgentCapabilities agentCapabilities `json:"agentCapabilities"`
	AgentInfo         *implementation   `json:"agentInfo"`
	Meta              json.RawMessage   `json:"_meta"`
}

type agentCapabilities struct {
	LoadSession         bool            `json:"loadSession"`
	SessionCapabilities json.RawMessage `json:"sessionCapabilities"`
	PromptCapabilities  struct {
		Image bool `json:"image"`
	} `json:"promptCapabilities"`
	Meta json.RawMessage `json:"_meta"`
}

type sessionParams struct {
	SessionID  string `json:"sessionId,omitempty"`
	Cwd        string `json:"cwd"`
	MCPServers []any  `json:"mcpServers"`
}

type sessionResult struct {
	SessionID string `json:"sessionId"`
}

type setModeParams struct {
	SessionID string `json:"sessionId"`
	ModeID    string `json:"modeId"`
}

type contentBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type promptParams struct {
	SessionID string         `json:"sessionId"`
	Prompt    []contentBlock `json:"prompt"`
}

// promptUsage is the token usage a prompt's answer may carry.
type promptUsage struct {
	InputTokens       int64 `json:"inputTokens"`
	OutputTokens      int64 `json:"outputTokens"`
	CachedReadTokens  int64 `json:"cachedReadTokens"`
	CachedWriteTokens int64 `json:"cachedWriteTokens"`
	ThoughtTokens     int64 `json:"thoughtTokens"`
	TotalTokens       int64 `json:"totalTokens"`
}

type promptResult struct {
	StopReason string       `json:"stopReason"`
	Usage      *promptUsage `json:"usage"`
}

type cancelParams struct {
	SessionID string `json:"sessionId"`
}

type sessionNotification struct {
	SessionID string        `json:"sessionId"`
	Update    sessionUpdate `json:"update"`
}

// sessionUpdate is the union of session/update payloads, the members read.
type sessionUpdate struct {
	SessionUpdate string          `json:"sessionUpdate"`
	Content       json.RawMessage `json:"content"`
	MessageID     string          `json:"messageId"`
	ToolCallID    string          `json:"toolCallId"`
	Title         string          `json:"title"`
	Kind          string          `json:"kind"`
	Status        string          `json:"status"`
	RawInput      json.RawMessage `json:"rawInput"`
	RawOutput     json.RawMessage `json:"rawOutput"`
}

// Session update kinds.
const (
	updateAgentMessage = "agent_message_chunk"
	updateAgentThought = "agent_thought_chunk"
	updateToolCall     = "tool_call"
	updateToolUpdate   = "tool_call_update"
)

// Tool call statuses that end a tool call.
const (
	toolCompleted = "completed"
	toolFailed    = "failed"
)

type permissionParams struct {
	SessionID string `json:"sessionId"`
	ToolCall  struct {
		ToolCallID string          `json:"toolCallId"`
		Title      string          `json:"title"`
		Kind       string          `json:"kind"`
		RawInput   json.RawMessage `json:"rawInput"`
	} `json:"toolCall"`
	Options []permissionOption `json:"options"`
}

type permissionOption struct {
	OptionID string `json:"optionId"`
	Name     string `json:"name"`
	Kind     string `json:"kind"`
}

// Permission option kinds.
const (
	optionAllowOnce    = "allow_once"
	optionAllowAlways  = "allow_always"
	optionRejectOnce   = "reject_once"
	optionRejectAlways = "reject_always"
)

type permissionOutcome struct {
	Outcome permissionChoice `json:"outcome"`
}

type permissionChoice struct {
	Outcome  string `json:"outcome"` // selected or cancelled
	OptionID string `json:"optionId,omitempty"`
}

// textOf reads a text content block.
func textOf(raw json.RawMessage) (string, bool) {
	var b contentBlock
	if json.Unmarshal(raw, &b) != nil || b.Type != "text" {
		return "", false
	}
	return b.Text, true
}
