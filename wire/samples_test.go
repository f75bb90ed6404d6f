package wire

import "encoding/json"

const (
	sampleEnvID     = "6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b"
	sampleSessionID = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
	sampleDigest    = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	sampleTrace     = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
)

func ptr[T any](v T) *T { return &v }

func sampleCaps() AgentKindCapabilities {
	c := AllCapabilities(CapabilityUnsupported)
	for _, f := range c.Fields() {
		switch f.Name {
		case "streaming", "steering", "tool_observations", "environment_none", "preparation",
			"execution_controls", "durable_input_receipts", "durable_turns":
			*f.Value = CapabilitySupported
		}
	}
	return c
}

func samplePrepare() ExecutionPrepare {
	return ExecutionPrepare{SessionID: "session", Configuration: ExecutionConfiguration{
		AgentKind:                   "contract",
		AgentStateKey:               "agents-api-session",
		StrictResume:                true,
		DisableExecutionEnvironment: true,
		AgentOptions:                map[string]json.RawMessage{"model": json.RawMessage(`"m1"`)},
		ExecutionControls:           &ExecutionControls{WebSearch: "disabled", TextVerbosity: "medium"},
	}}
}

func sampleDone() Done {
	return Done{Content: "partial", Metadata: &DoneMetadata{AgentSessionID: "native-session"}}
}

// sampleFrames holds one valid frame per registered type string. Golden
// fixtures, round-trip tests, benchmarks and fuzz seeds derive from it.
func sampleFrames() []Frame {
	return []Frame{
		{Payload: Heartbeat{TS: 1760000000000, ActiveRequests: 0, DaemonVersion: "dev",
			SupportedAgentKinds: []SupportedAgentKind{{Kind: "codex", Available: true, Capabilities: sampleCaps()}}}},
		{ID: "7d9f0c2e-1a2b-4c3d-8e4f-5a6b7c8d9e0f", Payload: RuntimePrepare{Step: StepBegin, EnvironmentID: sampleEnvID,
			SessionID: sampleSessionID, Action: PrepareActionSkill, SizeBytes: 1024, SHA256: sampleDigest,
			Skill: &PackageMeta{Type: PackageTypeInline, Name: "pdf-tools", Description: "Reads PDFs"}}},
		{ID: "7d9f0c2e-1a2b-4c3d-8e4f-5a6b7c8d9e0f", Payload: RuntimePrepareResult{Outcome: OutcomeReceived, Offset: 1024}},
		{ID: "prepare", Trace: sampleTrace, Payload: samplePrepare()},
		{ID: "prepare", Payload: ExecutionStart{ExecutorID: "executor", Handle: "handle", RunID: "run", Input: TextInput("hello")}},
		{ID: "prepare", Payload: ExecutionRelease{Handle: "handle"}},
		{ID: "prepare", Payload: PreparationStatus{ExecutorID: "executor", Handle: "handle", Revision: 3,
			State: StateStarting, ExpiresAt: 1800000000000, RunID: "run"}},
		{ID: "run", Payload: PromptCancel{DeliveryID: "cancel"}},
		{Payload: DeviceShutdown{Reason: "maintenance"}},
		{ID: "run", Payload: Delta{ItemID: "item-1", Delta: "Hello, world", Sequence: 7}},
		{ID: "run", Payload: Thinking{Text: "considering", Sequence: 2}},
		{ID: "run", Payload: OutputMessage{ID: "msg-1", Status: OutputStatusCompleted, Phase: "final", Text: ptr("done")}},
		{ID: "run", Payload: ToolCall{ID: "call-1", Name: "shell", Stage: ToolStageAfter,
			Args: json.RawMessage(`{"cmd":"ls"}`), Result: json.RawMessage(`{"ok":true}`),
			Observation: &ToolObservation{Kind: "command", Status: "completed", Command: "ls", Cwd: ptr("/workspace"),
				ExitCode: ptr(int64(0)), DurationMS: ptr(int64(12))}}},
		{ID: "run", Payload: UsageUpdate{Usage{Tokens: &TokenUsage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15},
			Model: "m1", InputTokens: ptr(int32(10)), OutputTokens: ptr(int32(5)), CostUSD: ptr(0.25)}}},
		{ID: "run", Payload: RunError{Error: "upstream refused", Code: EngineConnectionFailed, HTTPStatus: 502}},
		{ID: "run", Payload: Done{SourceCompletedAtMS: 1760000000123, Content: "final answer",
			Usage: &Usage{Model: "m1", OutputTokens: ptr(int32(5))}, Metadata: &DoneMetadata{AgentSessionID: "native-session"}}},
		{ID: "run", Payload: PermissionRequest{RequestID: "perm_1", Tool: "shell", Title: "Run ls?",
			Payload: json.RawMessage(`{"cmd":"ls"}`)}},
		{ID: "perm_1", Payload: PermissionCancel{}},
		{ID: "perm_1", Payload: PermissionDecision{DeliveryID: "d-1", Approved: true, Message: "ok"}},
		{ID: "run", Payload: UserChoicePrompt{AskID: "ask_1", Questions: []UserQuestion{{ID: "q1", Question: "Which?",
			Options: []UserOption{{Label: "A"}, {Label: "B", Description: "second"}}}}}},
		{ID: "ask_1", Payload: UserChoiceDecision{DeliveryID: "d-2",
			QuestionAnswers: []QuestionAnswer{{QuestionID: "q1", Answers: []string{"A"}}}}},
		{ID: "run", Payload: InteractionDecisionAck{DeliveryID: "cancel", Applied: true, Outcome: ptr(sampleDone())}},
		{ID: "run", Payload: PromptSteer{InputID: "2", Input: TextInput("also this"), DurableReceipt: true}},
		{ID: "run", Payload: PromptSteerAck{InputID: "2", Written: true}},
		{ID: "run", Payload: FunctionCall{CallID: "fc-1", Name: "lookup", Arguments: json.RawMessage(`{"q":"x"}`)}},
		{ID: "run", Payload: FunctionResult{DeliveryID: "d-3", CallID: "fc-1", Success: true,
			Content: []InputContent{TextPart("42")}}},
		{ID: "3c2b1a09-8f7e-4d6c-9b5a-4a3b2c1d0e9f", Payload: WorkspaceRead{Handle: "handle", EnvironmentID: "env",
			Path: "src", Operation: ReadOperationDirectory, MaxEntries: 100}},
		{ID: "3c2b1a09-8f7e-4d6c-9b5a-4a3b2c1d0e9f", Payload: WorkspaceReadResult{Outcome: OutcomeCompleted,
			CloseAcknowledged: true, Directory: &WorkspaceDirectoryResult{Entries: []DirectoryEntry{
				{Name: "main.go", Kind: EntryFile, SizeBytes: ptr(int64(120))}, {Name: "pkg", Kind: EntryDirectory}}}}},
		{ID: "5e4d3c2b-1a09-4f8e-9d7c-6b5a4f3e2d1c", Payload: WorkspaceWrite{Step: StepBegin, EnvironmentID: sampleEnvID,
			SessionID: sampleSessionID, Path: "notes/todo.txt", SizeBytes: 5, SHA256: sampleDigest}},
		{ID: "5e4d3c2b-1a09-4f8e-9d7c-6b5a4f3e2d1c", Payload: WorkspaceWriteResult{Outcome: OutcomeCompleted, SizeBytes: 5}},
		{ID: "2b1a0f9e-8d7c-4b6a-8f5e-4d3c2b1a0f9e", Payload: WorkspaceExport{Step: StepNext, Offset: 65536}},
		{ID: "2b1a0f9e-8d7c-4b6a-8f5e-4d3c2b1a0f9e", Payload: WorkspaceExportResult{Outcome: OutcomeChunk, Offset: 65536,
			Data: []byte("tar bytes")}},
		{ID: "quiesce-1", Payload: EnvironmentQuiesce{EnvironmentID: "env", SuspendID: "s-1"}},
		{ID: "resume-1", Payload: EnvironmentResume{EnvironmentID: "env", SuspendID: "s-1", Rollback: true}},
		{ID: "quiesce-1", Payload: EnvironmentQuiesced{EnvironmentID: "env", SuspendID: "s-1", Accepted: true}},
		{ID: "resume-1", Payload: EnvironmentResumed{EnvironmentID: "env", SuspendID: "s-1", ErrorCode: "not_suspended"}},
		{ID: "run", Payload: PromptRequest{ExecutionConfiguration{AgentKind: "contract", RunID: "run",
			Input: TextInput("hi"), DisableExecutionEnvironment: true}}},
		{ID: "run", Payload: SubagentIdentity{NativeID: "sa-1", ParentNativeID: "root", Name: ptr("helper")}},
		{ID: "run", Payload: SubagentLifecycle{NativeID: "sa-1", EffectID: "e-1", Status: "running", OccurredAtMS: 1760000000000}},
		{ID: "run", Payload: SubagentTurn{NativeID: "sa-1", TurnID: "t-1", Status: "completed", CreatedAtMS: 1760000000000,
			StartedAtMS: ptr(int64(1760000000001))}},
		{ID: "run", Payload: SubagentItem{NativeID: "sa-1", TurnID: "t-1", ItemID: "i-1", Position: 0, Kind: "message",
			Payload: json.RawMessage(`{"text":"hi"}`)}},
		{ID: "auth-1", Payload: AuthoringRequest{RequestID: "auth-1", Operation: AuthoringSkillList}},
		{ID: "auth-1", Payload: AuthoringResponse{RequestID: "auth-1", Data: json.RawMessage(`["pdf-tools"]`)}},
	}
}
