package codex

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// schemaCase binds one hand-written Go type to its definition in the
// schema bundle: file is the v2 (or top-level) schema file, def the
// definition inside it ("" is the file's root), variant the ThreadItem
// variant's type tag. Sent types must also carry every required member.
type schemaCase struct {
	file, def, variant string
	value              any
	sent               bool
}

var schemaCases = []schemaCase{
	{file: "ClientRequest.json", def: "InitializeParams", value: initializeParams{}, sent: true},
	{file: "ClientRequest.json", def: "ClientInfo", value: clientInfo{}, sent: true},
	{file: "v2/ThreadStartParams.json", value: threadStartParams{}, sent: true},
	{file: "v2/ThreadResumeParams.json", value: threadResumeParams{}, sent: true},
	{file: "v2/ThreadStartResponse.json", value: threadStartResponse{}},
	{file: "v2/ThreadResumeResponse.json", value: threadResumeResponse{}},
	{file: "v2/ThreadStartResponse.json", def: "Thread", value: thread{}},
	{file: "v2/ThreadStartResponse.json", def: "SandboxPolicy", variant: appliedFull, value: sandboxPolicy{}},
	{file: "v2/ThreadResumeResponse.json", def: "SandboxPolicy", variant: appliedFull, value: sandboxPolicy{}},
	{file: "v2/TurnStartParams.json", value: turnStartParams{}, sent: true},
	{file: "v2/TurnStartParams.json", def: "UserInput", variant: "text", value: userInput{}, sent: true},
	{file: "v2/TurnStartResponse.json", value: turnStartResponse{}},
	{file: "v2/TurnSteerParams.json", value: turnSteerParams{}, sent: true},
	{file: "v2/TurnSteerResponse.json", value: turnSteerResponse{}},
	{file: "v2/TurnInterruptParams.json", value: turnInterruptParams{}, sent: true},
	{file: "v2/TurnStartedNotification.json", value: turnNotification{}},
	{file: "v2/TurnCompletedNotification.json", value: turnNotification{}},
	{file: "v2/TurnCompletedNotification.json", def: "Turn", value: turn{}},
	{file: "v2/TurnCompletedNotification.json", def: "TurnError", value: turnError{}},
	{file: "v2/ItemStartedNotification.json", value: itemNotification{}},
	{file: "v2/ItemCompletedNotification.json", value: itemNotification{}},
	{file: "v2/AgentMessageDeltaNotification.json", value: deltaNotification{}},
	{file: "v2/ReasoningSummaryTextDeltaNotification.json", value: deltaNotification{}},
	{file: "v2/ThreadTokenUsageUpdatedNotification.json", value: tokenUsageNotification{}},
	{file: "v2/ThreadTokenUsageUpdatedNotification.json", def: "ThreadTokenUsage", value: threadTokenUsage{}},
	{file: "v2/ThreadTokenUsageUpdatedNotification.json", def: "TokenUsageBreakdown", value: tokenUsageBreakdown{}},
	{file: "v2/ErrorNotification.json", value: errorNotification{}},
	{file: "CommandExecutionRequestApprovalParams.json", value: approvalParams{}},
	{file: "FileChangeRequestApprovalParams.json", value: approvalParams{}},
	{file: "CommandExecutionRequestApprovalResponse.json", value: approvalResponse{}, sent: true},
	{file: "FileChangeRequestApprovalResponse.json", value: approvalResponse{}, sent: true},
}

// approvalDecisions names, per approval response schema, the decision
// union whose string members must include what the adapter writes.
var approvalDecisions = map[string]string{
	"CommandExecutionRequestApprovalResponse.json": "CommandExecutionApprovalDecision",
	"FileChangeRequestApprovalResponse.json":       "FileChangeApprovalDecision",
}

// threadItemFields are the ThreadItem members threadItem reads, by variant.
var threadItemFields = map[string][]string{
	"userMessage":      {"type", "id", "clientId"},
	"agentMessage":     {"type", "id", "text", "phase"},
	"commandExecution": {"type", "id", "status", "command", "cwd", "exitCode", "durationMs", "aggregatedOutput"},
	"mcpToolCall":      {"type", "id", "status", "tool", "server", "arguments", "result", "error", "durationMs"},
	"dynamicToolCall":  {"type", "id", "status", "tool", "namespace", "arguments", "success", "contentItems", "durationMs"},
	"webSearch":        {"type", "id", "query", "action"},
	"fileChange":       {"type", "id", "status", "changes"},
}

// unionTypes are read types covering a whole oneOf union: each member
// must exist in some variant.
var unionTypes = []struct {
	def   string
	value any
}{
	{"WebSearchAction", webSearchAction{}},
	{"DynamicToolCallOutputContentItem", contentItem{}},
}

// The Go protocol types match `codex app-server generate-json-schema` of
// the pinned binary: every member the adapter reads or writes exists under
// that name, and every member the schema requires of what the adapter
// sends is written.
func TestProtocolMatchesGeneratedSchema(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(realBinary(t), "app-server", "generate-json-schema", "--out", dir)
	cmd.Env = append(os.Environ(), "CODEX_HOME="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("generate-json-schema: %v\n%s", err, out)
	}
	for _, c := range schemaCases {
		obj := schemaObject(t, dir, c)
		props, _ := obj["properties"].(map[string]any)
		if props == nil {
			t.Errorf("%s %s: no properties in the schema", c.file, c.def)
			continue
		}
		tags := jsonNames(reflect.TypeOf(c.value))
		for _, name := range tags {
			if _, ok := props[name]; !ok {
				t.Errorf("%s %s: member %q is not in the schema of codex %s", c.file, c.def, name, Version)
			}
		}
		if !c.sent {
			continue
		}
		req, _ := obj["required"].([]any)
		for _, r := range req {
			if !slices.Contains(tags, r.(string)) {
				t.Errorf("%s %s: required member %q is never written", c.file, c.def, r)
			}
		}
	}
	for file, def := range approvalDecisions {
		union := schemaObject(t, dir, schemaCase{file: file, def: def})
		for _, d := range []string{decisionAccept, decisionDecline} {
			if !slices.Contains(stringMembers(union), d) {
				t.Errorf("%s %s: decision %q is not in the schema", file, def, d)
			}
		}
	}
	for _, u := range unionTypes {
		union := schemaObject(t, dir, schemaCase{file: "v2/ItemCompletedNotification.json", def: u.def})
		members := map[string]bool{}
		for _, v := range union["oneOf"].([]any) {
			for name := range v.(map[string]any)["properties"].(map[string]any) {
				members[name] = true
			}
		}
		for _, name := range jsonNames(reflect.TypeOf(u.value)) {
			if !members[name] {
				t.Errorf("%s: member %q is in no variant of the schema", u.def, name)
			}
		}
	}
	items := schemaObject(t, dir, schemaCase{file: "v2/ItemCompletedNotification.json", def: "ThreadItem"})
	read := jsonNames(reflect.TypeOf(threadItem{}))
	for variant, fields := range threadItemFields {
		v := findVariant(items, variant)
		if v == nil {
			t.Errorf("ThreadItem variant %q missing", variant)
			continue
		}
		props := v["properties"].(map[string]any)
		for _, f := range fields {
			if _, ok := props[f]; !ok || !slices.Contains(read, f) {
				t.Errorf("ThreadItem %s: member %q not in the schema or not read", variant, f)
			}
		}
	}
}

func schemaObject(t *testing.T, dir string, c schemaCase) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, c.file))
	if err != nil {
		t.Fatal(err)
	}
	var root map[string]any
	if err := json.Unmarshal(b, &root); err != nil {
		t.Fatal(err)
	}
	obj := root
	if c.def != "" {
		defs, _ := root["definitions"].(map[string]any)
		obj, _ = defs[c.def].(map[string]any)
		if obj == nil {
			t.Fatalf("%s: no definition %s", c.file, c.def)
		}
	}
	if c.variant != "" {
		obj = findVariant(obj, c.variant)
		if obj == nil {
			t.Fatalf("%s %s: no variant %s", c.file, c.def, c.variant)
		}
	}
	return obj
}

// findVariant returns the oneOf member whose "type" property is tag.
func findVariant(union map[string]any, tag string) map[string]any {
	members, _ := union["oneOf"].([]any)
	for _, m := range members {
		obj := m.(map[string]any)
		props, _ := obj["properties"].(map[string]any)
		typ, _ := props["type"].(map[string]any)
		enum, _ := typ["enum"].([]any)
		if len(enum) == 1 && enum[0] == tag {
			return obj
		}
	}
	return nil
}

// stringMembers returns the single-string enum members of a oneOf union.
func stringMembers(union map[string]any) []string {
	var out []string
	members, _ := union["oneOf"].([]any)
	for _, m := range members {
		enum, _ := m.(map[string]any)["enum"].([]any)
		if len(enum) == 1 {
			if s, ok := enum[0].(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

func jsonNames(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}
