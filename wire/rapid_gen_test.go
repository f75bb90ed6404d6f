package wire

import (
	"encoding/json"

	"pgregory.net/rapid"
)

// Generators of valid payloads for every registered type; genFrame draws
// from them and TestPayloadGensComplete keeps the set complete.

var (
	genWord  = rapid.StringMatching(`[a-z][a-z0-9]{0,8}`)
	genPlain = rapid.StringMatching(`[A-Za-z0-9 ._é€-]{1,24}`)
	genUUID  = rapid.SampledFrom([]string{sampleEnvID, sampleSessionID, "7d9f0c2e-1a2b-4c3d-8e4f-5a6b7c8d9e0f"})
)

func distinctWords(t *rapid.T, label string, lo, hi int) []string {
	return rapid.SliceOfNDistinct(genWord, lo, hi, func(s string) string { return s }).Draw(t, label)
}

// genRawObject draws a JSON object in encoding/json's compact form.
func genRawObject(t *rapid.T, label string) json.RawMessage {
	m := map[string]string{}
	for _, k := range distinctWords(t, label+"_keys", 0, 3) {
		m[k] = genText.Draw(t, label+"_value")
	}
	b, _ := json.Marshal(m)
	return b
}

// optRaw draws an absent or present raw object.
func optRaw(t *rapid.T, label string) json.RawMessage {
	if rapid.Bool().Draw(t, label+"_set") {
		return genRawObject(t, label)
	}
	return nil
}

func optPtr[T any](t *rapid.T, g *rapid.Generator[T], label string) *T {
	return rapid.Ptr(g, true).Draw(t, label)
}

func genUsage(t *rapid.T) *Usage {
	if !rapid.Bool().Draw(t, "usage_set") {
		return nil
	}
	u := &Usage{Model: optString(t, "model"), Provider: optString(t, "provider"),
		InputTokens: optPtr(t, rapid.Int32Min(0), "in"), OutputTokens: optPtr(t, rapid.Int32Min(0), "out"),
		CostUSD: optPtr(t, rapid.Float64Range(0, 1e6), "cost"), Raw: optRaw(t, "raw")}
	if rapid.Bool().Draw(t, "tokens") {
		n := rapid.Int64Range(0, 1<<40)
		u.Tokens = &TokenUsage{InputTokens: n.Draw(t, "ti"), CachedInputTokens: n.Draw(t, "tc"),
			OutputTokens: n.Draw(t, "to"), ReasoningOutputTokens: n.Draw(t, "tr"), TotalTokens: n.Draw(t, "tt")}
	}
	return u
}

func genDone(t *rapid.T) Done {
	d := Done{SourceCompletedAtMS: rapid.Int64Min(0).Draw(t, "completed_at"), Content: genText.Draw(t, "content"),
		Usage: genUsage(t)}
	if rapid.Bool().Draw(t, "transcript") {
		d.Transcript, _ = json.Marshal(rapid.SliceOfN(genText, 0, 3).Draw(t, "transcript_items"))
	}
	if rapid.Bool().Draw(t, "metadata") {
		d.Metadata = &DoneMetadata{AgentSessionID: optString(t, "session"), AgentSessionType: optString(t, "session_type")}
	}
	return d
}

func genRuntimePrepare(t *rapid.T) Payload {
	p := RuntimePrepare{Step: StepBegin, EnvironmentID: genUUID.Draw(t, "env"), SessionID: genUUID.Draw(t, "session")}
	size := rapid.Int64Range(1, TransferBytesMax)
	switch rapid.IntRange(0, 6).Draw(t, "variant") {
	case 0:
		p.Action, p.SizeBytes, p.SHA256 = PrepareActionSkill, size.Draw(t, "size"), sampleDigest
		p.Skill = &PackageMeta{Type: PackageTypeInline, Name: genWord.Draw(t, "name"), Description: genPlain.Draw(t, "desc")}
	case 1:
		p.Action, p.SizeBytes, p.SHA256 = PrepareActionPlugin, size.Draw(t, "size"), sampleDigest
		p.Slot = rapid.IntRange(0, PluginSlotMax).Draw(t, "slot")
		p.Plugin = &PackageMeta{Type: PackageTypeInline, Name: genPlain.Draw(t, "name"), Description: genPlain.Draw(t, "desc")}
	case 2:
		p.Action, p.SizeBytes, p.SHA256 = PrepareActionFile, rapid.Int64Range(0, TransferBytesMax).Draw(t, "size"), sampleDigest
		p.File = &PrepareFile{Path: WorkspaceRoot + "/" + genWord.Draw(t, "path")}
	case 3:
		p.Action, p.Initialization = PrepareActionInitialize, genInitialization(t)
	case 4:
		p.Action = PrepareActionFinalize
		p.Sources, _ = json.Marshal(map[string][]string{"directories": distinctWords(t, "dirs", 0, 4)})
	case 5:
		p = RuntimePrepare{Step: StepChunk, Offset: rapid.Int64Range(0, TransferBytesMax-ChunkBytesMax).Draw(t, "offset"),
			Data: rapid.SliceOfN(rapid.Byte(), 1, 64).Draw(t, "data")}
	default:
		p = RuntimePrepare{Step: StepCommit}
	}
	return p
}

func genInitialization(t *rapid.T) *Initialization {
	network := rapid.SampledFrom([]string{NetworkEnabled, NetworkDisabled}).Draw(t, "network")
	switch rapid.IntRange(0, 2).Draw(t, "init") {
	case 0:
		in := &Initialization{Action: InitConfigure, Network: rapid.SampledFrom([]string{"", network}).Draw(t, "net")}
		for _, k := range distinctWords(t, "env_keys", 0, 3) {
			if in.Env == nil {
				in.Env = map[string]string{}
			}
			in.Env[k] = genPlain.Draw(t, "env_value")
		}
		return in
	case 1:
		return &Initialization{Action: rapid.SampledFrom([]string{InitNPM, InitPython}).Draw(t, "manager"),
			Network: network, Packages: distinctWords(t, "packages", 1, 3)}
	}
	in := &Initialization{Action: InitSetup, Network: network, Command: genPlain.Draw(t, "command")}
	if rapid.Bool().Draw(t, "cwd") {
		in.Cwd = WorkspaceRoot + "/" + genWord.Draw(t, "cwd_dir")
	}
	return in
}

func genPrepareResult(t *rapid.T) Payload {
	n := rapid.Int64Range(0, TransferBytesMax)
	switch rapid.IntRange(0, 5).Draw(t, "variant") {
	case 0:
		return RuntimePrepareResult{Outcome: OutcomeReady}
	case 1:
		return RuntimePrepareResult{Outcome: OutcomeReceived, Offset: n.Draw(t, "offset")}
	case 2:
		return RuntimePrepareResult{Outcome: OutcomeCompleted, SizeBytes: n.Draw(t, "size")}
	case 3:
		return RuntimePrepareResult{Outcome: OutcomeRejected, ErrorCode: rapid.SampledFrom(TransferRejectedCodes).Draw(t, "code")}
	case 4:
		return RuntimePrepareResult{Outcome: OutcomeFailed, ErrorCode: TransferFailed, ExitCode: rapid.IntRange(0, 255).Draw(t, "exit")}
	}
	return RuntimePrepareResult{Outcome: OutcomeUnknown, ErrorCode: TransferUnconfirmed}
}

func genConfiguration(t *rapid.T, c *ExecutionConfiguration) {
	c.AgentKind = genWord.Draw(t, "kind")
	c.MaxConcurrentSubagents = optPtr(t, rapid.IntRange(0, 16), "subagents")
	for _, k := range rapid.SliceOfNDistinct(rapid.SampledFrom(AllowedAgentOptions), 0, 4, func(s string) string { return s }).Draw(t, "options") {
		if c.AgentOptions == nil {
			c.AgentOptions = map[string]json.RawMessage{}
		}
		c.AgentOptions[k], _ = json.Marshal(genText.Draw(t, "option"))
	}
	if rapid.Bool().Draw(t, "controls") {
		c.ExecutionControls = &ExecutionControls{WebSearch: "disabled", TextVerbosity: genWord.Draw(t, "verbosity"),
			DisableProgrammaticToolCalling: rapid.Bool().Draw(t, "no_ptc")}
		if rapid.Bool().Draw(t, "format") {
			c.ExecutionControls.OutputFormat = &OutputFormat{Type: OutputFormatJSONSchema, Schema: genRawObject(t, "schema")}
		}
	}
	origin := OriginService
	if rapid.Bool().Draw(t, "local") {
		origin = OriginEnvironment
		c.LocalEnvironment = &LocalEnvironment{ID: genID.Draw(t, "env"), WorkspaceDirectory: optString(t, "dir"),
			CapabilitySources: optRaw(t, "sources"), Capabilities: rapid.Bool().Draw(t, "caps"),
			NetworkAccess:  rapid.SampledFrom([]string{"", "enabled", "disabled"}).Draw(t, "network"),
			AllowedDomains: distinctWords(t, "domains", 0, 2)}
		if len(c.LocalEnvironment.AllowedDomains) == 0 {
			c.LocalEnvironment.AllowedDomains = nil
		}
	} else {
		c.DisableExecutionEnvironment = true
	}
	if rapid.Bool().Draw(t, "mcp") {
		servers := []MCPHTTPServer{}
		for _, l := range distinctWords(t, "labels", 0, 2) {
			servers = append(servers, MCPHTTPServer{ConnectionOrigin: origin, ServerLabel: l, ServerURL: "https://" + l,
				AllowedTools: rapid.Ptr(rapid.SliceOfN(genWord, 0, 2), true).Draw(t, "tools"), Required: rapid.Bool().Draw(t, "req")})
		}
		c.MCPHTTPServers = &servers
	}
	for _, name := range distinctWords(t, "functions", 0, 2) {
		c.FunctionTools = append(c.FunctionTools, FunctionTool{Name: name, Description: optString(t, "fdesc"), Parameters: optRaw(t, "params")})
	}
	c.ObserveMessages = rapid.Bool().Draw(t, "observe")
	c.DisableSubagents = rapid.Bool().Draw(t, "no_subagents")
}

func genExecutionPrepare(t *rapid.T) Payload {
	s := genWord.Draw(t, "session")
	p := ExecutionPrepare{SessionID: s, Configuration: ExecutionConfiguration{AgentStateKey: AgentStateKey(s), StrictResume: true,
		ReleaseOnCompletion: rapid.Bool().Draw(t, "release")}}
	if rapid.Bool().Draw(t, "read_only") {
		p.Configuration = ExecutionConfiguration{AgentKind: genWord.Draw(t, "kind"), WorkspaceReadOnly: true,
			LocalEnvironment: &LocalEnvironment{ID: genID.Draw(t, "env")}, AgentStateKey: AgentStateKey(s),
			StrictResume: true, ReleaseOnCompletion: true}
		return p
	}
	genConfiguration(t, &p.Configuration)
	return p
}

func genPromptRequest(t *rapid.T) Payload {
	p := PromptRequest{ExecutionConfiguration{RunID: genID.Draw(t, "run"), ConversationID: optString(t, "conversation"),
		Input: genInput.Draw(t, "input"), AgentSessionID: optString(t, "native")}}
	genConfiguration(t, &p.ExecutionConfiguration)
	return p
}

func genToolCall(t *rapid.T) Payload {
	c := ToolCall{ID: genID.Draw(t, "id"), Name: genWord.Draw(t, "name"),
		Stage: rapid.SampledFrom([]string{ToolStageBefore, ToolStageAfter}).Draw(t, "stage"),
		Args:  optRaw(t, "args"), Result: optRaw(t, "result")}
	if rapid.Bool().Draw(t, "observation") {
		o := &ToolObservation{Kind: genWord.Draw(t, "okind"), Status: genWord.Draw(t, "ostatus"), Name: optString(t, "oname"),
			Command: optString(t, "command"), Cwd: optPtr(t, genText, "cwd"), ExitCode: optPtr(t, rapid.Int64(), "exit"),
			DurationMS: optPtr(t, rapid.Int64Min(0), "duration"), Output: optRaw(t, "output")}
		if rapid.Bool().Draw(t, "action") {
			o.Action = &ToolAction{Type: genWord.Draw(t, "atype"), Query: optString(t, "query")}
		}
		c.Observation = o
	}
	return c
}
