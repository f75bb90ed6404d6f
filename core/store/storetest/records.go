package storetest

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

// The sample records fill every field, pointers and times included, in the
// canonical form wire.Decode produces (compact raw JSON, optional
// collections nil rather than empty), so that a store which encodes them
// must bring each back exactly.

var base = time.Date(2026, 3, 4, 5, 6, 7, 891011121, time.UTC)

func ptr[T any](v T) *T { return &v }

func sampleUsage(n int64) *wire.Usage {
	return &wire.Usage{
		Tokens:       &wire.TokenUsage{InputTokens: n, CachedInputTokens: 2, OutputTokens: 3, ReasoningOutputTokens: 4, TotalTokens: n + 9},
		Provider:     "provider",
		Model:        "model-" + strconv.FormatInt(n, 10),
		InputTokens:  ptr(int32(n)),
		OutputTokens: ptr(int32(0)), // a pointer to zero is not nil
		CostUSD:      ptr(0.125),
		Raw:          json.RawMessage(`{"billed":true,"n":[1,2]}`),
	}
}

func sampleDone(n int64) *wire.Done {
	return &wire.Done{
		SourceCompletedAtMS: 1700000000000 + n,
		Content:             "answer " + strconv.FormatInt(n, 10),
		Transcript:          json.RawMessage(`[{"role":"assistant","text":"hé \u003c"}]`),
		Usage:               sampleUsage(n),
		Metadata:            &wire.DoneMetadata{AgentSessionID: "native-" + strconv.FormatInt(n, 10), AgentSessionType: "thread"},
	}
}

// SampleSession returns a Session record with every field set.
func SampleSession(id string, seq uint64) core.SessionRecord {
	return core.SessionRecord{
		ID:  id,
		Seq: seq,
		Agent: core.AgentConfig{
			Kind: "codex", Model: "gpt", SystemPrompt: "be brief\nand exact", ModelProvider: "openai",
			HarnessConfig: []byte(`{"sandbox":"workspace-write"}`), TextVerbosity: core.VerbosityHigh,
			Environment: core.EnvSelfHosted, EnvironmentID: "env-1",
			Definition: &core.EnvironmentDefinition{
				Files:   []core.EnvironmentFile{{Path: "/workspace/a.txt", SHA256: strings.Repeat("cd", 32), Content: []byte("a\x00b")}},
				Skills:  []core.EnvironmentPackage{{Name: "lint", Description: "lints", SHA256: strings.Repeat("ef", 32), Content: []byte("zip")}},
				Plugins: []core.EnvironmentPackage{{Name: "p", Description: "plug", Slot: 2, SHA256: strings.Repeat("01", 32), Content: []byte("tar")}},
				Setup:   []core.EnvironmentSetup{{Command: "make", Cwd: "/workspace", Network: "enabled"}},
			},
			OutputSchema: []byte(`{"type":"object"}`), MultiAgent: true,
			FunctionTools: []wire.FunctionTool{
				{Name: "lookup", Description: "finds", Parameters: json.RawMessage(`{"type":"object"}`), DeferLoading: true},
				{Name: "plain"},
			},
			ToolSearch: true, DisableProgrammaticToolCalling: true, FunctionResultImages: true,
			MCPServers: []wire.MCPHTTPServer{
				{ConnectionOrigin: wire.OriginService, ServerLabel: "docs", ServerURL: "https://mcp.example/x",
					AllowedTools: &[]string{"a", "b"}, Required: true, BearerToken: "vault-ref"},
				{ConnectionOrigin: wire.OriginEnvironment, AllowedTools: &[]string{}},
				{ConnectionOrigin: wire.OriginEnvironment},
			},
		},
		StartedTurns:    int(seq) + 2,
		NativeSessionID: "native-" + id,
		Mutation: &core.MutationRecord{ID: "6f1c1e1a-8d1b-4c2a-9f3e-2b7d5a0c4e11", Path: "dir/" + id + ".txt",
			SizeBytes: int64(seq) + 7, SHA256: strings.Repeat("ab", 32), Device: "dev-1", CommitSent: true},
		Mutations: int(seq) + 3,
	}
}

// SampleTurn returns a Turn record with every field set.
func SampleTurn(id, session string, seq uint64) core.TurnRecord {
	return core.TurnRecord{
		ID: id, Seq: seq, Session: session, State: core.TurnRunning,
		Input:   wire.MessageInput{{Content: []wire.InputContent{wire.TextPart("hello"), wire.ImagePart("https://img.example/1.png"), wire.TextPart("")}}},
		Attempt: 2, Retried: true, RunID: "run-" + id, Device: "dev-1", ExecutorID: "exec-1", Handle: "handle-1",
		OutputSeen: true, Counted: true,
		Cancel: core.CancelRefused, CancelDeliveryID: "cd-3", CancelAttempts: 3,
		CancelDeadline:  base.Add(time.Duration(seq) * time.Second),
		CancelAnswered:  true,
		CancelErrorCode: "not_ready",
		CancelOutcome:   sampleDone(int64(seq)),
		EventCount:      seq * 3, Done: sampleDone(int64(seq) + 1),
		ErrorSeen: true, ErrorText: "boom", EngineErrorCode: "rate_limited", EngineHTTPStatus: 429,
		Usage:       sampleUsage(int64(seq)),
		InputCursor: 4,
		ErrorCode:   "engine_failed", ErrorDetail: "detail",
		Interactions: []core.InteractionRecord{sampleInteraction(seq)},
		Subagents: []core.SubagentRecord{{RunID: "run-" + id, Type: "subagent_item", NativeID: "sa-1", TurnID: "t-1",
			ItemID: "i-1", Status: "completed", Frame: []byte(`{"type":"subagent_item","id":"run-1"}`)}},
	}
}

// sampleInteraction has every field set (the three decision kinds at
// once, which no machine writes, so that each one's encoding is covered).
func sampleInteraction(seq uint64) core.InteractionRecord {
	return core.InteractionRecord{
		ID: "perm-" + strconv.FormatUint(seq, 10), Kind: core.InteractionPermission, RunID: "run-1",
		Tool: "shell", Title: "run ls", Detail: "in /", Payload: json.RawMessage(`{"cmd":"ls"}`),
		Questions: []wire.UserQuestion{{ID: "q1", Header: "H", Question: "which?", MultiSelect: true, IsOther: true,
			IsSecret: true, Options: []wire.UserOption{{Label: "a", Description: "first"}}}},
		Name: "lookup", Arguments: json.RawMessage(`{"q":1}`),
		Status: core.InteractionRefused, Attempts: 2, DeliveryID: "decision:t-1:1:2",
		Deadline:  base.Add(time.Duration(seq) * time.Minute),
		ErrorCode: "not_ready",
		Permission: &wire.PermissionDecision{DeliveryID: "decision:t-1:1:2", Approved: true, Message: "ok",
			UpdatedInput: json.RawMessage(`{"cmd":"ls -l"}`)},
		Choice: &wire.UserChoiceDecision{DeliveryID: "decision:t-1:1:1", QuestionAnswers: []wire.QuestionAnswer{
			{QuestionID: "q1", Answers: []string{"a"}}}, Cancelled: true, Reason: "left"},
		Result: &wire.FunctionResult{DeliveryID: "decision:t-1:1:3", CallID: "call-1", Success: true,
			Content: []wire.InputContent{wire.TextPart("42")}},
	}
}

// SampleInput returns active input i (1-based) with every field set.
func SampleInput(i int, state core.InputState) core.InputRecord {
	return core.InputRecord{
		Index: i, ID: strconv.Itoa(i),
		Input: wire.MessageInput{{Content: []wire.InputContent{wire.TextPart("steer " + strconv.Itoa(i))}},
			{Content: []wire.InputContent{wire.ImagePart("https://img.example/" + strconv.Itoa(i))}}},
		State: state, ErrorCode: "busy", Sends: i + 1,
	}
}

// SamplePayloads returns one payload of every run event type.
func SamplePayloads() []wire.Payload {
	return []wire.Payload{
		wire.Delta{ItemID: "item-1", Delta: "tok", Sequence: 7},
		wire.Thinking{Text: "hmm", Sequence: 2},
		wire.OutputMessage{ID: "m1", Status: "completed", Phase: "final", Text: ptr("said")},
		wire.OutputMessage{ID: "m2", Status: "in_progress", Text: ptr("")},
		wire.ToolCall{
			Observation: &wire.ToolObservation{Kind: "command", Status: "completed", Name: "sh", Command: "ls",
				Cwd: ptr("/w"), ExitCode: ptr(int64(0)), DurationMS: ptr(int64(12)), Server: "srv",
				Arguments: json.RawMessage(`{"a":1}`), Output: json.RawMessage(`"out"`), Error: json.RawMessage(`null`),
				Content: []wire.InputContent{wire.TextPart("seen")}},
			ID: "call-1", Name: "shell", Stage: "completed",
			Args: json.RawMessage(`{"cmd":["ls","-l"]}`), Result: json.RawMessage(`{"ok":true}`),
		},
		wire.UsageUpdate{Usage: *sampleUsage(5)},
		wire.RunError{Error: "engine said no", Code: "rate_limited", HTTPStatus: 429},
		*sampleDone(9),
	}
}

// SampleEvent returns the event with sequence seq, cycling through
// SamplePayloads.
func SampleEvent(seq uint64) core.RunEvent {
	ps := SamplePayloads()
	p := ps[int(seq-1)%len(ps)]
	return core.RunEvent{Seq: seq, Type: p.MessageType(), Payload: p}
}
