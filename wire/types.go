package wire

import "encoding/json"

// Type strings of every message of the protocol (wire-reference §3).
const (
	TypeHeartbeat              = "heartbeat"
	TypeRuntimePrepare         = "runtime_prepare"
	TypeRuntimePrepareResult   = "runtime_prepare_result"
	TypeExecutionPrepare       = "execution_prepare"
	TypeExecutionStart         = "execution_start"
	TypeExecutionRelease       = "execution_release"
	TypePreparationStatus      = "preparation_status"
	TypePromptCancel           = "prompt_cancel"
	TypeDeviceShutdown         = "device_shutdown"
	TypeDelta                  = "delta"
	TypeThinking               = "thinking"
	TypeOutputMessage          = "output_message"
	TypeToolCall               = "tool_call"
	TypeUsage                  = "usage"
	TypeError                  = "error"
	TypeDone                   = "done"
	TypePermissionRequest      = "permission_request"
	TypePermissionCancel       = "permission_cancel"
	TypePermissionDecision     = "permission_decision"
	TypeUserChoicePrompt       = "prompt_for_user_choice"
	TypeUserChoiceDecision     = "prompt_for_user_choice_decision"
	TypeInteractionDecisionAck = "interaction_decision_ack"
	TypePromptSteer            = "prompt_steer"
	TypePromptSteerAck         = "prompt_steer_ack"
	TypeFunctionCall           = "function_call"
	TypeFunctionResult         = "function_result"
	TypeWorkspaceRead          = "workspace_read"
	TypeWorkspaceReadResult    = "workspace_read_result"
	TypeWorkspaceWrite         = "workspace_write"
	TypeWorkspaceWriteResult   = "workspace_write_result"
	TypeWorkspaceExport        = "workspace_export"
	TypeWorkspaceExportResult  = "workspace_export_result"
	TypeEnvironmentQuiesce     = "environment_quiesce"
	TypeEnvironmentResume      = "environment_resume"
	TypeEnvironmentQuiesced    = "environment_quiesced"
	TypeEnvironmentResumed     = "environment_resumed"
)

// Struct tag conventions used by the strict codec:
//   - a field whose json tag has no ",omitempty" is required: it must be
//     present on decode and is always encoded;
//   - a field with ",omitempty" is optional;
//   - `wire:"nullable"` allows an explicit JSON null (otherwise null is
//     rejected with ErrNull);
//   - `wire:"emptyabsent"` reads an explicit empty object or array of an
//     optional map or slice as the member's absence (otherwise it is
//     rejected with ErrInvalid, see doc.go).

// Payload is implemented by every typed payload. MessageType returns the
// type string the payload travels under.
type Payload interface {
	MessageType() string
}

// ---- Heartbeat (R→C) ----

type Heartbeat struct {
	TS                  int64                `json:"ts"`
	ActiveRequests      int                  `json:"active_requests"`
	DaemonVersion       string               `json:"daemon_version,omitempty"`
	SupportedAgentKinds []SupportedAgentKind `json:"supported_agent_kinds,omitempty"`
}

type SupportedAgentKind struct {
	Kind         string                `json:"kind"`
	Available    bool                  `json:"available"`
	Version      string                `json:"version,omitempty"`
	Capabilities AgentKindCapabilities `json:"capabilities"`
}

// ---- Execution admission ----

// ExecutionPrepare (C→R, id = preparation request ID).
type ExecutionPrepare struct {
	SessionID     string                 `json:"session_id"`
	Configuration ExecutionConfiguration `json:"configuration"`
}

// ExecutionConfiguration is execution_prepare.configuration (wire-reference §3.14).
type ExecutionConfiguration struct {
	AgentKind                    string                     `json:"agent_kind"`
	ConversationID               string                     `json:"conversation_id"`
	RunID                        string                     `json:"run_id"`
	Input                        MessageInput               `json:"input,omitempty"`
	MaxConcurrentSubagents       *int                       `json:"max_concurrent_subagents,omitempty"`
	AgentOptions                 map[string]json.RawMessage `json:"agent_options,omitempty" wire:"emptyabsent"`
	ExecutionControls            *ExecutionControls         `json:"execution_controls,omitempty"`
	MCPHTTPServers               *[]MCPHTTPServer           `json:"mcp_http_servers,omitempty" wire:"nullable"`
	LocalEnvironment             *LocalEnvironment          `json:"local_environment,omitempty"`
	AgentSessionID               string                     `json:"agent_session_id,omitempty"`
	WorkspaceReadOnly            bool                       `json:"workspace_read_only,omitempty"`
	AgentStateKey                string                     `json:"agent_state_key,omitempty"`
	WorkspaceAuthoring           bool                       `json:"workspace_authoring,omitempty"`
	ReleaseOnCompletion          bool                       `json:"release_on_completion,omitempty"`
	StrictResume                 bool                       `json:"strict_resume,omitempty"`
	RequireExistingNativeSession bool                       `json:"require_existing_native_session,omitempty"`
	ObserveMessages              bool                       `json:"observe_messages,omitempty"`
	ObserveToolObservations      bool                       `json:"observe_tool_observations,omitempty"`
	ObserveSubagentIdentities    bool                       `json:"observe_subagent_identities,omitempty"`
	FunctionTools                []FunctionTool             `json:"function_tools,omitempty"`
	ToolSearch                   bool                       `json:"tool_search,omitempty"`
	DisableExecutionEnvironment  bool                       `json:"disable_execution_environment,omitempty"`
	DisableSubagents             bool                       `json:"disable_subagents,omitempty"`
}

// Allowed agent_options keys (anything else is unsupported_configuration).
const (
	AgentOptionModel         = "model"
	AgentOptionSystemPrompt  = "system_prompt"
	AgentOptionModelProvider = "model_provider"
	AgentOptionHarnessConfig = "harness_config"
)

type ExecutionControls struct {
	WebSearch                      string        `json:"web_search"`
	TextVerbosity                  string        `json:"text_verbosity"`
	DisableProgrammaticToolCalling bool          `json:"disable_programmatic_tool_calling,omitempty"`
	OutputFormat                   *OutputFormat `json:"output_format,omitempty"`
}

type OutputFormat struct {
	Type   string          `json:"type"`
	Schema json.RawMessage `json:"schema,omitempty" wire:"object"`
}

type MCPHTTPServer struct {
	ConnectionOrigin string    `json:"connection_origin"`
	ServerLabel      string    `json:"server_label,omitempty"`
	ServerURL        string    `json:"server_url,omitempty"`
	AllowedTools     *[]string `json:"allowed_tools" wire:"nullable"`
	Required         bool      `json:"required,omitempty"`
	BearerToken      string    `json:"bearer_token,omitempty"`
}

// MCP connection origins.
const (
	OriginService     = "service"
	OriginEnvironment = "environment"
)

type LocalEnvironment struct {
	ID                 string          `json:"id"`
	WorkspaceDirectory string          `json:"workspace_directory,omitempty"`
	CapabilitySources  json.RawMessage `json:"capability_sources,omitempty" wire:"object"`
	Capabilities       bool            `json:"capabilities,omitempty"`
	ToolEnvironment    bool            `json:"tool_environment,omitempty"`
	SystemPackages     bool            `json:"system_packages,omitempty"`
	NetworkAccess      string          `json:"network_access,omitempty"`
	AllowedDomains     []string        `json:"allowed_domains,omitempty"`
}

type FunctionTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	Parameters   json.RawMessage `json:"parameters,omitempty" wire:"object"`
	DeferLoading bool            `json:"defer_loading,omitempty"`
}

// ExecutionStart (C→R, id = preparation request ID).
type ExecutionStart struct {
	ExecutorID string       `json:"executor_id"`
	Handle     string       `json:"handle"`
	RunID      string       `json:"run_id"`
	Input      MessageInput `json:"input"`
}

// ExecutionRelease (C→R, id = preparation request ID).
type ExecutionRelease struct {
	Handle string `json:"handle"`
}

// PreparationStatus (R→C, id = preparation request ID).
type PreparationStatus struct {
	ExecutorID string `json:"executor_id,omitempty"`
	Reused     bool   `json:"reused,omitempty"`
	Handle     string `json:"handle,omitempty"`
	Revision   uint64 `json:"revision"`
	State      string `json:"state"`
	ExpiresAt  int64  `json:"expires_at,omitempty"` // Unix milliseconds
	RunID      string `json:"run_id,omitempty"`
	ErrorCode  string `json:"error_code,omitempty"`
	Operation  string `json:"operation,omitempty"`
}

// Preparation states.
const (
	StatePreparing = "preparing"
	StateReady     = "ready"
	StateStarting  = "starting"
	StateStarted   = "started"
	StateReleased  = "released"
	StateExpired   = "expired"
	StateFailed    = "failed"
	StateRejected  = "rejected"
)

// ---- Cancel and shutdown (C→R) ----

// PromptCancel (id = Run ID). An empty DeliveryID asks for no receipt.
type PromptCancel struct {
	DeliveryID string `json:"delivery_id,omitempty"`
}

type DeviceShutdown struct {
	Reason string `json:"reason,omitempty"`
}

// ---- Run output (R→C, id = Run ID) ----

type Delta struct {
	ItemID   string `json:"item_id,omitempty"`
	Delta    string `json:"delta"`
	Sequence uint64 `json:"sequence"`
}

type Thinking struct {
	Text     string `json:"text"`
	Sequence uint64 `json:"sequence,omitempty"`
}

type OutputMessage struct {
	ID     string  `json:"id"`
	Status string  `json:"status"`
	Phase  string  `json:"phase,omitempty"`
	Text   *string `json:"text,omitempty"`
}

type ToolCall struct {
	Observation *ToolObservation `json:"observation,omitempty"`
	ID          string           `json:"id"`
	Name        string           `json:"name"`
	Stage       string           `json:"stage"`
	Args        json.RawMessage  `json:"args,omitempty" wire:"object"`
	Result      json.RawMessage  `json:"result,omitempty" wire:"object"`
}

type ToolObservation struct {
	Kind       string          `json:"kind"`
	Status     string          `json:"status"`
	Name       string          `json:"name,omitempty"`
	Command    string          `json:"command,omitempty"`
	Cwd        *string         `json:"cwd,omitempty" wire:"nullable"`
	ExitCode   *int64          `json:"exit_code,omitempty"`
	DurationMS *int64          `json:"duration_ms,omitempty"`
	Server     string          `json:"server,omitempty"`
	Arguments  json.RawMessage `json:"arguments,omitempty"`
	Output     json.RawMessage `json:"output,omitempty"`
	Error      json.RawMessage `json:"error,omitempty"`
	Content    []InputContent  `json:"content,omitempty"`
	Action     *ToolAction     `json:"action,omitempty"`
}

type ToolAction struct {
	Type    string   `json:"type"`
	Query   string   `json:"query,omitempty"`
	Queries []string `json:"queries,omitempty"`
	URL     string   `json:"url,omitempty"`
	Pattern string   `json:"pattern,omitempty"`
}

// Usage is a complete cumulative snapshot; nil members are unknown, not zero.
type Usage struct {
	Tokens       *TokenUsage     `json:"tokens,omitempty"`
	Provider     string          `json:"provider,omitempty"`
	Model        string          `json:"model,omitempty"`
	InputTokens  *int32          `json:"input_tokens,omitempty"`
	OutputTokens *int32          `json:"output_tokens,omitempty"`
	CostUSD      *float64        `json:"cost_usd,omitempty"`
	Raw          json.RawMessage `json:"raw,omitempty" wire:"object"`
}

type TokenUsage struct {
	InputTokens           int64 `json:"input_tokens"`
	CachedInputTokens     int64 `json:"cached_input_tokens"`
	OutputTokens          int64 `json:"output_tokens"`
	ReasoningOutputTokens int64 `json:"reasoning_output_tokens"`
	TotalTokens           int64 `json:"total_tokens"`
}

// UsageUpdate is the `usage` run event: Usage flattened at top level.
type UsageUpdate struct {
	Usage
}

// RunError is the `error` run event. Code and HTTPStatus are normalised on
// decode (wire-reference §6.3).
type RunError struct {
	Error      string `json:"error"`
	Code       string `json:"code,omitempty" wire:"lenient"`
	HTTPStatus int    `json:"http_status,omitempty" wire:"lenient"`
}

// Done closes a Run stream. It is also the continuity snapshot carried by a
// cancel receipt's outcome.
type Done struct {
	SourceCompletedAtMS int64           `json:"source_completed_at_ms,omitempty"`
	Content             string          `json:"content"`
	Transcript          json.RawMessage `json:"transcript,omitempty"`
	Usage               *Usage          `json:"usage,omitempty"`
	Metadata            *DoneMetadata   `json:"metadata,omitempty"`
}

type DoneMetadata struct {
	AgentSessionID   string `json:"agent_session_id,omitempty"`
	AgentSessionType string `json:"agent_session_type,omitempty"`
}

// ---- Interactions ----

type PermissionRequest struct {
	RequestID string          `json:"request_id"`
	Tool      string          `json:"tool"`
	Title     string          `json:"title"`
	Detail    string          `json:"detail,omitempty"`
	Payload   json.RawMessage `json:"payload,omitempty" wire:"object"`
}

// PermissionCancel is bodyless (id = interaction ID).
type PermissionCancel struct{}

type PermissionDecision struct {
	DeliveryID   string          `json:"delivery_id"`
	Approved     bool            `json:"approved"`
	Message      string          `json:"message,omitempty"`
	UpdatedInput json.RawMessage `json:"updated_input,omitempty" wire:"object"`
}

// UserChoicePrompt is prompt_for_user_choice (id = Run ID).
type UserChoicePrompt struct {
	AskID            string         `json:"ask_id"`
	Questions        []UserQuestion `json:"questions"`
	ToolUseID        string         `json:"tool_use_id,omitempty"`
	AutoResolutionMS uint64         `json:"auto_resolution_ms,omitempty"`
}

type UserQuestion struct {
	ID          string       `json:"id"`
	Header      string       `json:"header,omitempty"`
	Question    string       `json:"question"`
	MultiSelect bool         `json:"multi_select,omitempty"`
	IsOther     bool         `json:"is_other,omitempty"`
	IsSecret    bool         `json:"is_secret,omitempty"`
	Options     []UserOption `json:"options"`
}

type UserOption struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// UserChoiceDecision is prompt_for_user_choice_decision (id = interaction ID).
type UserChoiceDecision struct {
	DeliveryID      string           `json:"delivery_id"`
	QuestionAnswers []QuestionAnswer `json:"question_answers,omitempty"`
	Cancelled       bool             `json:"cancelled,omitempty"`
	Reason          string           `json:"reason,omitempty"`
}

type QuestionAnswer struct {
	QuestionID string   `json:"question_id"`
	Answers    []string `json:"answers"`
}

// InteractionDecisionAck answers decisions (id = interaction ID) and cancel
// or function results (id = Run ID). Outcome carries the continuity snapshot
// of an applied cancel.
type InteractionDecisionAck struct {
	DeliveryID string `json:"delivery_id"`
	Applied    bool   `json:"applied"`
	ErrorCode  string `json:"error_code,omitempty"`
	Error      string `json:"error,omitempty"`
	Outcome    *Done  `json:"outcome,omitempty"`
}

// ---- Steering ----

type PromptSteer struct {
	InputID        string       `json:"input_id"`
	Input          MessageInput `json:"input"`
	DurableReceipt bool         `json:"durable_receipt,omitempty"`
}

type PromptSteerAck struct {
	InputID   string `json:"input_id"`
	Accepted  bool   `json:"accepted"`
	Written   bool   `json:"written,omitempty"`
	ErrorCode string `json:"error_code,omitempty"`
	Error     string `json:"error,omitempty"`
}

// ---- Function tools ----

type FunctionCall struct {
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

type FunctionResult struct {
	DeliveryID string         `json:"delivery_id"`
	CallID     string         `json:"call_id"`
	Success    bool           `json:"success"`
	Content    []InputContent `json:"content"`
}

// ---- Workspace ----

type WorkspaceRead struct {
	Handle        string `json:"handle,omitempty"`
	RunID         string `json:"run_id,omitempty"`
	EnvironmentID string `json:"environment_id"`
	Path          string `json:"path"`
	MaxBytes      int    `json:"max_bytes"`
	Operation     string `json:"operation,omitempty"`
	MaxEntries    int    `json:"max_entries,omitempty"`
}

type WorkspaceReadResult struct {
	Outcome           string                    `json:"outcome"`
	Data              []byte                    `json:"data,omitempty"`
	Truncated         bool                      `json:"truncated,omitempty"`
	CloseAcknowledged bool                      `json:"close_acknowledged,omitempty"`
	ErrorCode         string                    `json:"error_code,omitempty"`
	Directory         *WorkspaceDirectoryResult `json:"directory,omitempty"`
}

type WorkspaceDirectoryResult struct {
	Entries   []DirectoryEntry `json:"entries"`
	Truncated bool             `json:"truncated"`
}

type DirectoryEntry struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	SizeBytes *int64 `json:"size_bytes" wire:"nullable"`
}

type WorkspaceWrite struct {
	Step          string `json:"step"`
	EnvironmentID string `json:"environment_id,omitempty"`
	SessionID     string `json:"session_id,omitempty"`
	Path          string `json:"path,omitempty"`
	SizeBytes     int64  `json:"size_bytes,omitempty"`
	SHA256        string `json:"sha256,omitempty"`
	Offset        int64  `json:"offset,omitempty"`
	Data          []byte `json:"data,omitempty"`
}

type WorkspaceWriteResult struct {
	Outcome   string `json:"outcome"`
	Offset    int64  `json:"offset,omitempty"`
	SizeBytes int64  `json:"size_bytes,omitempty"`
	ErrorCode string `json:"error_code,omitempty"`
	Reason    string `json:"reason,omitempty"`
}

type WorkspaceExport struct {
	Step          string `json:"step"`
	Handle        string `json:"handle,omitempty"`
	EnvironmentID string `json:"environment_id,omitempty"`
	Offset        int64  `json:"offset,omitempty"`
}

type WorkspaceExportResult struct {
	Outcome   string `json:"outcome"`
	Offset    int64  `json:"offset"`
	Data      []byte `json:"data,omitempty"`
	ErrorCode string `json:"error_code,omitempty"`
}

// ---- Suspension fencing ----

type EnvironmentQuiesce struct {
	EnvironmentID string `json:"environment_id"`
	SuspendID     string `json:"suspend_id"`
	Rollback      bool   `json:"rollback,omitempty"`
}

type EnvironmentResume struct {
	EnvironmentID string `json:"environment_id"`
	SuspendID     string `json:"suspend_id"`
	Rollback      bool   `json:"rollback,omitempty"`
}

type EnvironmentQuiesced struct {
	EnvironmentID string `json:"environment_id"`
	SuspendID     string `json:"suspend_id"`
	Accepted      bool   `json:"accepted"`
	ErrorCode     string `json:"error_code,omitempty"`
}

type EnvironmentResumed struct {
	EnvironmentID string `json:"environment_id"`
	SuspendID     string `json:"suspend_id"`
	Accepted      bool   `json:"accepted"`
	ErrorCode     string `json:"error_code,omitempty"`
}

// ---- Runtime preparation transfer ----

type RuntimePrepare struct {
	Step           string          `json:"step"`
	EnvironmentID  string          `json:"environment_id,omitempty"`
	SessionID      string          `json:"session_id,omitempty"`
	Action         string          `json:"action,omitempty"`
	Slot           int             `json:"slot,omitempty"`
	Skill          *PackageMeta    `json:"skill,omitempty"`
	Plugin         *PackageMeta    `json:"plugin,omitempty"`
	File           *PrepareFile    `json:"file,omitempty"`
	Initialization *Initialization `json:"initialization,omitempty"`
	Sources        json.RawMessage `json:"sources,omitempty" wire:"object"`
	SizeBytes      int64           `json:"size_bytes,omitempty"`
	SHA256         string          `json:"sha256,omitempty"`
	Offset         int64           `json:"offset,omitempty"`
	Data           []byte          `json:"data,omitempty"`
}

type PackageMeta struct {
	Type        string `json:"type"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

type PrepareFile struct {
	Path string `json:"path"`
}

type Initialization struct {
	Action   string            `json:"action"`
	Env      map[string]string `json:"env,omitempty"`
	Network  string            `json:"network,omitempty"`
	Packages []string          `json:"packages,omitempty"`
	Command  string            `json:"command,omitempty"`
	Cwd      string            `json:"cwd,omitempty"`
}

type RuntimePrepareResult struct {
	Outcome   string `json:"outcome"`
	Offset    int64  `json:"offset,omitempty"`
	SizeBytes int64  `json:"size_bytes,omitempty"`
	ErrorCode string `json:"error_code,omitempty"`
	ExitCode  int    `json:"exit_code,omitempty"`
}

func (Heartbeat) MessageType() string              { return TypeHeartbeat }
func (RuntimePrepare) MessageType() string         { return TypeRuntimePrepare }
func (RuntimePrepareResult) MessageType() string   { return TypeRuntimePrepareResult }
func (ExecutionPrepare) MessageType() string       { return TypeExecutionPrepare }
func (ExecutionStart) MessageType() string         { return TypeExecutionStart }
func (ExecutionRelease) MessageType() string       { return TypeExecutionRelease }
func (PreparationStatus) MessageType() string      { return TypePreparationStatus }
func (PromptCancel) MessageType() string           { return TypePromptCancel }
func (DeviceShutdown) MessageType() string         { return TypeDeviceShutdown }
func (Delta) MessageType() string                  { return TypeDelta }
func (Thinking) MessageType() string               { return TypeThinking }
func (OutputMessage) MessageType() string          { return TypeOutputMessage }
func (ToolCall) MessageType() string               { return TypeToolCall }
func (UsageUpdate) MessageType() string            { return TypeUsage }
func (RunError) MessageType() string               { return TypeError }
func (Done) MessageType() string                   { return TypeDone }
func (PermissionRequest) MessageType() string      { return TypePermissionRequest }
func (PermissionCancel) MessageType() string       { return TypePermissionCancel }
func (PermissionDecision) MessageType() string     { return TypePermissionDecision }
func (UserChoicePrompt) MessageType() string       { return TypeUserChoicePrompt }
func (UserChoiceDecision) MessageType() string     { return TypeUserChoiceDecision }
func (InteractionDecisionAck) MessageType() string { return TypeInteractionDecisionAck }
func (PromptSteer) MessageType() string            { return TypePromptSteer }
func (PromptSteerAck) MessageType() string         { return TypePromptSteerAck }
func (FunctionCall) MessageType() string           { return TypeFunctionCall }
func (FunctionResult) MessageType() string         { return TypeFunctionResult }
func (WorkspaceRead) MessageType() string          { return TypeWorkspaceRead }
func (WorkspaceReadResult) MessageType() string    { return TypeWorkspaceReadResult }
func (WorkspaceWrite) MessageType() string         { return TypeWorkspaceWrite }
func (WorkspaceWriteResult) MessageType() string   { return TypeWorkspaceWriteResult }
func (WorkspaceExport) MessageType() string        { return TypeWorkspaceExport }
func (WorkspaceExportResult) MessageType() string  { return TypeWorkspaceExportResult }
func (EnvironmentQuiesce) MessageType() string     { return TypeEnvironmentQuiesce }
func (EnvironmentResume) MessageType() string      { return TypeEnvironmentResume }
func (EnvironmentQuiesced) MessageType() string    { return TypeEnvironmentQuiesced }
func (EnvironmentResumed) MessageType() string     { return TypeEnvironmentResumed }
