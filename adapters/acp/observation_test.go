package acp

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

// An ACP tool call maps to its engine-neutral observation (an execute
// tool naming a command is a command, any other a function named by its
// kind or title with its raw input), completed or failed by its final
// update, with the raw output when the update carries one.
func TestToolObservationMapping(t *testing.T) {
	cases := []struct {
		name          string
		call, end     sessionUpdate
		before, after wire.ToolObservation
	}{
		{"execute",
			sessionUpdate{ToolCallID: "c1", Kind: "execute", Title: "ls", RawInput: json.RawMessage(`{"command":"ls"}`)},
			sessionUpdate{ToolCallID: "c1", Status: toolCompleted, RawOutput: json.RawMessage(`{"stdout":"a"}`)},
			wire.ToolObservation{Kind: "command", Status: "in_progress", Command: "ls"},
			wire.ToolObservation{Kind: "command", Status: "completed", Command: "ls", Output: json.RawMessage(`{"stdout":"a"}`)}},
		{"edit failed",
			sessionUpdate{ToolCallID: "c2", Kind: "edit", Title: "touch a file", RawInput: json.RawMessage(`{"path":"a.txt"}`)},
			sessionUpdate{ToolCallID: "c2", Status: toolFailed},
			wire.ToolObservation{Kind: "function", Status: "in_progress", Name: "edit", Arguments: json.RawMessage(`{"path":"a.txt"}`)},
			wire.ToolObservation{Kind: "function", Status: "failed", Name: "edit", Arguments: json.RawMessage(`{"path":"a.txt"}`)}},
		{"titled, no input",
			sessionUpdate{ToolCallID: "c3", Title: "think"},
			sessionUpdate{ToolCallID: "c3", Status: toolCompleted, RawOutput: json.RawMessage(`null`)},
			wire.ToolObservation{Kind: "function", Status: "in_progress", Name: "think"},
			wire.ToolObservation{Kind: "function", Status: "completed", Name: "think"}},
	}
	for _, c := range cases {
		before := observeToolCall(c.call)
		after := observeToolEnd(before, c.end)
		if !reflect.DeepEqual(before, c.before) || !reflect.DeepEqual(after, c.after) {
			t.Errorf("%s: before %+v after %+v", c.name, before, after)
		}
		for _, o := range []wire.ToolObservation{before, after} {
			if err := wire.Validate(wire.ToolCall{ID: "t", Name: "x", Stage: wire.ToolStageAfter, Observation: &o}); err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
		}
	}
}
