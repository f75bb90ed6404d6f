package acp

import (
	"bytes"
	"encoding/json"

	"github.com/turnstile-sim/turnstile/wire"
)

// observedBytesMax bounds a raw member of an observation: a larger one
// is left out (unknown), so that one tool's input or output never makes
// its tool_call frame exceed wire.FrameBytesMax.
const observedBytesMax = 256 << 10

// observeToolCall is the engine-neutral observation of a tool call as the
// agent announced it (the before stage): an execute tool whose raw input
// names a command is kind command, any other kind function named as the
// tool_call is (its ACP kind, else its title), with the raw input as
// arguments.
func observeToolCall(u sessionUpdate) wire.ToolObservation {
	o := wire.ToolObservation{Kind: "function", Status: "in_progress", Name: toolName(u), Arguments: present(u.RawInput)}
	if u.Kind == "execute" {
		var in struct {
			Command string `json:"command"`
		}
		if json.Unmarshal(u.RawInput, &in) == nil && in.Command != "" {
			o.Kind, o.Name, o.Command, o.Arguments = "command", "", in.Command, nil
		}
	}
	return o
}

// observeToolEnd is the after stage: the before observation with the
// final status (completed or failed) and the raw output, when the update
// carries one.
func observeToolEnd(before wire.ToolObservation, u sessionUpdate) wire.ToolObservation {
	o := before
	if o.Kind == "" {
		o = observeToolCall(u)
	}
	o.Status = "completed"
	if u.Status == toolFailed {
		o.Status = "failed"
	}
	if out := present(u.RawOutput); out != nil {
		o.Output = out
	}
	return o
}

// present returns raw unless it is absent, JSON null or over
// observedBytesMax.
func present(raw json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) || len(t) > observedBytesMax {
		return nil
	}
	return raw
}
