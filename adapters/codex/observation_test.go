package codex

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

func ptr[T any](v T) *T { return &v }

// item decodes a ThreadItem as app-server writes it.
func item(t *testing.T, raw string) threadItem {
	t.Helper()
	var it threadItem
	if err := json.Unmarshal([]byte(raw), &it); err != nil {
		t.Fatal(err)
	}
	return it
}

// Each native tool item maps to a tool_call whose observation carries
// what app-server reported, in the neutral vocabulary, and nothing it
// left null; every tool_call is valid on the wire.
func TestToolObservationMapping(t *testing.T) {
	cases := []struct {
		name    string
		raw     string
		started bool
		want    wire.ToolCall
	}{{
		name: "command before", started: true,
		raw: `{"type":"commandExecution","id":"c1","command":"ls -l","cwd":"/w","commandActions":[],"status":"inProgress",
			"aggregatedOutput":null,"exitCode":null,"durationMs":null}`,
		want: wire.ToolCall{ID: "c1", Name: "shell", Stage: wire.ToolStageBefore,
			Observation: &wire.ToolObservation{Kind: obsKindCommand, Status: obsInProgress, Command: "ls -l", Cwd: ptr("/w")}},
	}, {
		name: "command after",
		raw: `{"type":"commandExecution","id":"c1","command":"ls -l","cwd":"/w","commandActions":[],"status":"failed",
			"aggregatedOutput":"no such file\n","exitCode":2,"durationMs":15}`,
		want: wire.ToolCall{ID: "c1", Name: "shell", Stage: wire.ToolStageAfter,
			Observation: &wire.ToolObservation{Kind: obsKindCommand, Status: obsFailed, Command: "ls -l", Cwd: ptr("/w"),
				ExitCode: ptr[int64](2), DurationMS: ptr[int64](15), Output: json.RawMessage(`"no such file\n"`)}},
	}, {
		name: "patch declined",
		raw:  `{"type":"fileChange","id":"call_1","changes":[{"path":"/w/a.txt","kind":{"type":"add"},"diff":"hi\n"}],"status":"declined"}`,
		want: wire.ToolCall{ID: "call_1", Name: "apply_patch", Stage: wire.ToolStageAfter,
			Observation: &wire.ToolObservation{Kind: obsKindFunction, Status: obsFailed, Name: "apply_patch",
				Arguments: json.RawMessage(`{"changes":[{"path":"/w/a.txt","kind":{"type":"add"},"diff":"hi\n"}]}`)}},
	}, {
		name: "mcp after",
		raw: `{"type":"mcpToolCall","id":"m1","server":"docs","tool":"lookup","status":"completed","arguments":{"q":"x"},
			"result":{"content":[{"type":"text","text":"found"}]},"error":null,"durationMs":7}`,
		want: wire.ToolCall{ID: "m1", Name: "docs.lookup", Stage: wire.ToolStageAfter,
			Observation: &wire.ToolObservation{Kind: obsKindMCP, Status: obsCompleted, Server: "docs", Name: "lookup",
				Arguments: json.RawMessage(`{"q":"x"}`), Output: json.RawMessage(`{"content":[{"type":"text","text":"found"}]}`), DurationMS: ptr[int64](7)}},
	}, {
		name: "mcp failed",
		raw: `{"type":"mcpToolCall","id":"m2","server":"docs","tool":"lookup","status":"failed","arguments":{},
			"result":null,"error":{"message":"boom"},"durationMs":null}`,
		want: wire.ToolCall{ID: "m2", Name: "docs.lookup", Stage: wire.ToolStageAfter,
			Observation: &wire.ToolObservation{Kind: obsKindMCP, Status: obsFailed, Server: "docs", Name: "lookup",
				Arguments: json.RawMessage(`{}`), Error: json.RawMessage(`{"message":"boom"}`)}},
	}, {
		name: "dynamic after, unsuccessful",
		raw: `{"type":"dynamicToolCall","id":"d1","namespace":"ns","tool":"f","status":"completed","arguments":{"a":1},"success":false,
			"contentItems":[{"type":"inputText","text":"bad"}],"durationMs":3}`,
		want: wire.ToolCall{ID: "d1", Name: "ns::f", Stage: wire.ToolStageAfter,
			Observation: &wire.ToolObservation{Kind: obsKindFunction, Status: obsFailed, Name: "ns::f",
				Arguments: json.RawMessage(`{"a":1}`), DurationMS: ptr[int64](3), Content: []wire.InputContent{wire.TextPart("bad")}}},
	}, {
		name: "dynamic with audio output",
		raw:  `{"type":"dynamicToolCall","id":"d2","tool":"f","status":"completed","arguments":null,"contentItems":[{"type":"inputAudio","audioUrl":"x"}]}`,
		want: wire.ToolCall{ID: "d2", Name: "f", Stage: wire.ToolStageAfter,
			Observation: &wire.ToolObservation{Kind: obsKindFunction, Status: obsCompleted, Name: "f"}},
	}, {
		name: "web search before", started: true,
		raw: `{"type":"webSearch","id":"ws_1","query":"","action":null}`,
		want: wire.ToolCall{ID: "ws_1", Name: "web_search", Stage: wire.ToolStageBefore,
			Observation: &wire.ToolObservation{Kind: obsKindWebSearch, Status: obsInProgress}},
	}, {
		name: "web search open page",
		raw:  `{"type":"webSearch","id":"ws_2","query":"q","action":{"type":"openPage","url":"https://example.com"}}`,
		want: wire.ToolCall{ID: "ws_2", Name: "web_search", Stage: wire.ToolStageAfter,
			Observation: &wire.ToolObservation{Kind: obsKindWebSearch, Status: obsCompleted, Action: &wire.ToolAction{Type: "open_page", URL: "https://example.com"}}},
	}, {
		name: "command still in progress after",
		raw:  `{"type":"commandExecution","id":"c3","command":"sleep 9","cwd":"/w","commandActions":[],"status":"inProgress","durationMs":-1}`,
		want: wire.ToolCall{ID: "c3", Name: "shell", Stage: wire.ToolStageAfter,
			Observation: &wire.ToolObservation{Kind: obsKindCommand, Status: obsIncomplete, Command: "sleep 9", Cwd: ptr("/w")}},
	}}
	for _, c := range cases {
		got, ok := toolCallOf(item(t, c.raw), c.started)
		if !ok {
			t.Errorf("%s: not a tool call", c.name)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			gb, _ := json.Marshal(got)
			wb, _ := json.Marshal(c.want)
			t.Errorf("%s:\n got %s\nwant %s", c.name, gb, wb)
		}
		if err := wire.Validate(got); err != nil {
			t.Errorf("%s: invalid on the wire: %v", c.name, err)
		}
	}
	huge := threadItem{Type: "commandExecution", ID: "c9", Command: "cat big", Status: "completed", Output: ptr(strings.Repeat("x", observedBytesMax))}
	if c, _ := toolCallOf(huge, false); c.Observation.Output != nil || c.Observation.Command != "cat big" {
		t.Errorf("an output over observedBytesMax was kept: %d bytes", len(c.Observation.Output))
	}
	for _, raw := range []string{`{"type":"agentMessage","id":"a","text":"x"}`, `{"type":"reasoning","id":"r"}`, `{"type":"fileChange","id":"","changes":[]}`} {
		if c, ok := toolCallOf(item(t, raw), false); ok {
			t.Errorf("%s became a tool call %+v", raw, c)
		}
	}
}

// queued returns the payloads a Turn queued, without running its pump.
func queued(tr *Turn) []wire.Payload {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var out []wire.Payload
	for _, ev := range tr.queue {
		out = append(out, ev.Payload)
	}
	return out
}

// With messages observed, an agentMessage is an output_message
// in_progress at item/started and completed at item/completed, each with
// the native phase (absent when app-server reports none); a completion
// reported without its start still begins first, once. Without
// observe_messages no output_message is emitted at all.
func TestOutputMessageMapping(t *testing.T) {
	turnOf := func(observe bool) *Turn {
		e := &Executor{h: New(Options{}), nc: nativeConfig{observeMessages: observe}}
		return newTurn(e, agent.TurnRequest{RunID: "run-1"})
	}
	tr := turnOf(true)
	tr.onItem(true, item(t, `{"type":"agentMessage","id":"m1","text":"","phase":"commentary"}`))
	tr.onDelta("m1", "look")
	tr.onItem(false, item(t, `{"type":"agentMessage","id":"m1","text":"look","phase":"commentary"}`))
	tr.onItem(false, item(t, `{"type":"agentMessage","id":"m2","text":"done","phase":null}`))
	want := []wire.Payload{
		wire.OutputMessage{ID: "m1", Status: wire.OutputStatusInProgress, Phase: "commentary"},
		wire.Delta{ItemID: "m1", Delta: "look", Sequence: 1},
		wire.OutputMessage{ID: "m1", Status: wire.OutputStatusCompleted, Phase: "commentary", Text: ptr("look")},
		wire.OutputMessage{ID: "m2", Status: wire.OutputStatusInProgress},
		wire.Delta{ItemID: "m2", Delta: "done", Sequence: 2},
		wire.OutputMessage{ID: "m2", Status: wire.OutputStatusCompleted, Text: ptr("done")},
	}
	if got := queued(tr); !reflect.DeepEqual(got, want) {
		t.Fatalf("observed messages:\n got %+v\nwant %+v", got, want)
	}
	for _, p := range want {
		if err := wire.Validate(p); err != nil {
			t.Fatal(err)
		}
	}

	tr = turnOf(false)
	tr.onItem(true, item(t, `{"type":"agentMessage","id":"m1","text":"","phase":"final_answer"}`))
	tr.onItem(false, item(t, `{"type":"agentMessage","id":"m1","text":"hi","phase":"final_answer"}`))
	if got := queued(tr); !reflect.DeepEqual(got, []wire.Payload{wire.Delta{ItemID: "m1", Delta: "hi", Sequence: 1}}) {
		t.Fatalf("unobserved messages: %+v", got)
	}
}
