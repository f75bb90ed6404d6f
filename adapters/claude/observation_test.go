package claude

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

// A tool_use maps to its engine-neutral observation (Bash a command, an
// mcp__server__tool an MCP call, any other tool a function with its
// input), and its tool_result completes or fails it with the content as
// output; a raw member over observedBytesMax is left out.
func TestToolObservationMapping(t *testing.T) {
	cases := []struct {
		name, tool, input string
		isError           bool
		result            string
		before, after     wire.ToolObservation
	}{
		{"bash", "Bash", `{"command":"ls","description":"list"}`, false, `"a.txt"`,
			wire.ToolObservation{Kind: "command", Status: "in_progress", Command: "ls"},
			wire.ToolObservation{Kind: "command", Status: "completed", Command: "ls", Output: json.RawMessage(`"a.txt"`)}},
		{"mcp", "mcp__docs__lookup", `{"q":"x"}`, true, `[{"type":"text","text":"boom"}]`,
			wire.ToolObservation{Kind: "mcp", Status: "in_progress", Server: "docs", Name: "lookup", Arguments: json.RawMessage(`{"q":"x"}`)},
			wire.ToolObservation{Kind: "mcp", Status: "failed", Server: "docs", Name: "lookup", Arguments: json.RawMessage(`{"q":"x"}`),
				Output: json.RawMessage(`[{"type":"text","text":"boom"}]`)}},
		{"other tool", "Write", `{"file_path":"a"}`, false, `null`,
			wire.ToolObservation{Kind: "function", Status: "in_progress", Name: "Write", Arguments: json.RawMessage(`{"file_path":"a"}`)},
			wire.ToolObservation{Kind: "function", Status: "completed", Name: "Write", Arguments: json.RawMessage(`{"file_path":"a"}`)}},
		{"huge result", "Read", `{}`, false, `"` + strings.Repeat("x", observedBytesMax) + `"`,
			wire.ToolObservation{Kind: "function", Status: "in_progress", Name: "Read", Arguments: json.RawMessage(`{}`)},
			wire.ToolObservation{Kind: "function", Status: "completed", Name: "Read", Arguments: json.RawMessage(`{}`)}},
	}
	for _, c := range cases {
		before := observeToolUse(c.tool, json.RawMessage(c.input))
		after := observeToolResult(before, c.isError, json.RawMessage(c.result))
		if !reflect.DeepEqual(before, c.before) || !reflect.DeepEqual(after, c.after) {
			t.Errorf("%s: before %+v after %+v", c.name, before, after)
		}
		for _, o := range []wire.ToolObservation{before, after} {
			if err := wire.Validate(wire.ToolCall{ID: "t", Name: c.tool, Stage: wire.ToolStageAfter, Observation: &o}); err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
		}
	}
}
