package codex

import (
	"bytes"
	"encoding/json"

	"github.com/turnstile-sim/turnstile/wire"
)

// Engine-neutral tool observation vocabulary (wire.ToolObservation): the
// kind of native tool and the status of the call. The wire reference
// leaves both sets open (§9); the claude and acp adapters use the same
// values.
const (
	obsKindCommand   = "command"    // commandExecution
	obsKindFunction  = "function"   // fileChange (name apply_patch) and dynamicToolCall
	obsKindMCP       = "mcp"        // mcpToolCall
	obsKindWebSearch = "web_search" // webSearch

	obsInProgress = "in_progress" // before: the call started
	obsCompleted  = "completed"   // after: it ran to its end
	obsFailed     = "failed"      // after: it failed or was declined
	obsIncomplete = "incomplete"  // after: it ended in no final state
)

// observedBytesMax bounds each raw member of an observation (arguments,
// output, error): a larger one is left out (unknown), so that one tool's
// output never makes its tool_call frame exceed wire.FrameBytesMax.
const observedBytesMax = 256 << 10

// toolCallOf maps a native tool item to its tool_call (before on
// item/started, after on item/completed) with the engine-neutral
// observation of what app-server reported; ok is false for an item that
// is no tool call.
func toolCallOf(it threadItem, started bool) (wire.ToolCall, bool) {
	name := toolName(it)
	if name == "" || it.ID == "" {
		return wire.ToolCall{}, false
	}
	stage := wire.ToolStageAfter
	if started {
		stage = wire.ToolStageBefore
	}
	return wire.ToolCall{ID: it.ID, Name: name, Stage: stage, Observation: observationOf(it, started)}, true
}

// toolName is the tool_call name of a native tool item ("" for an item
// that is no tool call).
func toolName(it threadItem) string {
	switch it.Type {
	case "commandExecution":
		return "shell"
	case "fileChange":
		return "apply_patch"
	case "webSearch":
		return "web_search"
	case "mcpToolCall":
		return it.Server + "." + it.Tool
	case "dynamicToolCall":
		return dynamicName(it)
	}
	return ""
}

func dynamicName(it threadItem) string {
	if it.Namespace != nil && *it.Namespace != "" {
		return *it.Namespace + "::" + it.Tool
	}
	return it.Tool
}

// observationOf renders what app-server reported of one tool item. Only
// observed members are set: a member app-server left null stays absent
// (unknown), never zero.
func observationOf(it threadItem, started bool) *wire.ToolObservation {
	o := &wire.ToolObservation{Status: observedStatus(it.Status, started)}
	switch it.Type {
	case "commandExecution":
		o.Kind, o.Command, o.Cwd = obsKindCommand, it.Command, it.Cwd
		o.ExitCode, o.DurationMS = it.ExitCode, it.DurationMS
		if it.Output != nil {
			o.Output, _ = json.Marshal(*it.Output)
		}
	case "fileChange":
		o.Kind, o.Name = obsKindFunction, "apply_patch"
		if changes := present(it.Changes); changes != nil {
			o.Arguments, _ = json.Marshal(struct {
				Changes json.RawMessage `json:"changes"`
			}{changes})
		}
	case "mcpToolCall":
		o.Kind, o.Server, o.Name = obsKindMCP, it.Server, it.Tool
		o.Arguments, o.Output, o.Error = present(it.Arguments), present(it.Result), present(it.Error)
		o.DurationMS = it.DurationMS
	case "dynamicToolCall":
		o.Kind, o.Name, o.Arguments, o.DurationMS = obsKindFunction, dynamicName(it), present(it.Arguments), it.DurationMS
		if !started && it.Success != nil && !*it.Success {
			o.Status = obsFailed
		}
		if !started {
			o.Content = contentOf(it.ContentItems)
		}
	case "webSearch":
		o.Kind, o.Action = obsKindWebSearch, actionOf(it.Action)
	}
	if o.DurationMS != nil && *o.DurationMS < 0 {
		o.DurationMS = nil
	}
	o.Arguments, o.Output, o.Error = bounded(o.Arguments), bounded(o.Output), bounded(o.Error)
	return o
}

// bounded leaves out a raw member over observedBytesMax.
func bounded(raw json.RawMessage) json.RawMessage {
	if len(raw) > observedBytesMax {
		return nil
	}
	return raw
}

// observedStatus maps a native item status (CommandExecutionStatus,
// PatchApplyStatus, McpToolCallStatus, DynamicToolCallStatus; webSearch
// has none) to the observation's: in_progress before; after, completed,
// failed for failed or declined, incomplete for anything else.
func observedStatus(native string, started bool) string {
	if started {
		return obsInProgress
	}
	switch native {
	case "", "completed":
		return obsCompleted
	case "failed", "declined":
		return obsFailed
	}
	return obsIncomplete
}

// present returns raw unless it is absent or JSON null.
func present(raw json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil
	}
	return raw
}

// contentOf maps a dynamic tool's output content (text and image parts);
// nil when there is none or a part has no neutral form (audio) or is
// invalid, so an observation never carries a part the wire refuses.
func contentOf(items []contentItem) []wire.InputContent {
	if len(items) == 0 {
		return nil
	}
	out := make([]wire.InputContent, 0, len(items))
	for _, c := range items {
		var p wire.InputContent
		switch c.Type {
		case "inputText":
			p = wire.TextPart(c.Text)
		case "inputImage":
			p = wire.ImagePart(c.ImageURL)
		default:
			return nil
		}
		if p.Validate() != nil {
			return nil
		}
		out = append(out, p)
	}
	return out
}

// webActions renames the WebSearchAction tags to the neutral ones.
var webActions = map[string]string{"search": "search", "openPage": "open_page", "findInPage": "find_in_page", "other": "other"}

func actionOf(a *webSearchAction) *wire.ToolAction {
	if a == nil {
		return nil
	}
	typ, ok := webActions[a.Type]
	if !ok {
		return nil
	}
	out := &wire.ToolAction{Type: typ, Queries: a.Queries}
	for _, f := range []struct {
		dst *string
		src *string
	}{{&out.Query, a.Query}, {&out.URL, a.URL}, {&out.Pattern, a.Pattern}} {
		if f.src != nil {
			*f.dst = *f.src
		}
	}
	return out
}
