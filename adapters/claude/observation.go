package claude

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/turnstile-sim/turnstile/wire"
)

// observeToolUse is the engine-neutral observation of a tool_use block
// (the before stage): Bash is kind command with its command, an
// mcp__<server>__<tool> tool kind mcp, any other tool kind function with
// its name; the input is the arguments.
func observeToolUse(name string, input json.RawMessage) wire.ToolObservation {
	o := wire.ToolObservation{Kind: "function", Status: "in_progress", Name: name, Arguments: present(input)}
	if server, tool, ok := strings.Cut(strings.TrimPrefix(name, "mcp__"), "__"); strings.HasPrefix(name, "mcp__") && ok && server != "" && tool != "" {
		o.Kind, o.Server, o.Name = "mcp", server, tool
	}
	if name == "Bash" {
		var in struct {
			Command string `json:"command"`
		}
		if json.Unmarshal(input, &in) == nil && in.Command != "" {
			o.Kind, o.Name, o.Command, o.Arguments = "command", "", in.Command, nil
		}
	}
	return o
}

// observeToolResult is the after stage: the before observation with the
// result's status (failed when is_error) and its content as output.
func observeToolResult(before wire.ToolObservation, isError bool, result json.RawMessage) wire.ToolObservation {
	o := before
	if o.Kind == "" {
		o.Kind = "function"
	}
	o.Status = "completed"
	if isError {
		o.Status = "failed"
	}
	o.Output = present(result)
	return o
}

// observedBytesMax bounds a raw member of an observation: a larger one
// is left out (unknown), so that one tool's input or result never makes
// its tool_call frame exceed wire.FrameBytesMax.
const observedBytesMax = 256 << 10

// present returns raw unless it is absent, JSON null or over
// observedBytesMax.
func present(raw json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) || len(t) > observedBytesMax {
		return nil
	}
	return raw
}
