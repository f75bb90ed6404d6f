package wire

import (
	"fmt"
	"math"
	"strings"
)

// Validate checks a heartbeat: non-negative counters and, for every kind,
// a non-blank unique name and a complete capability declaration.
func (h Heartbeat) Validate() error {
	const f = "heartbeat"
	if h.TS < 0 {
		return invalid(f+".ts", "negative")
	}
	if h.ActiveRequests < 0 {
		return invalid(f+".active_requests", "negative")
	}
	for i, k := range h.SupportedAgentKinds {
		kf := fmt.Sprintf("%s.supported_agent_kinds[%d]", f, i)
		if strings.TrimSpace(k.Kind) == "" {
			return invalid(kf+".kind", "blank")
		}
		for _, o := range h.SupportedAgentKinds[:i] {
			if o.Kind == k.Kind {
				return invalid(kf+".kind", "duplicate kind")
			}
		}
		if err := k.Capabilities.validateAt(kf + ".capabilities"); err != nil {
			return err
		}
	}
	return nil
}

// Kind returns the declaration of kind, if the heartbeat declares it.
func (h Heartbeat) Kind(kind string) (SupportedAgentKind, bool) {
	for _, k := range h.SupportedAgentKinds {
		if k.Kind == kind {
			return k, true
		}
	}
	return SupportedAgentKind{}, false
}

// Output message statuses and tool call stages.
const (
	OutputStatusInProgress = "in_progress"
	OutputStatusCompleted  = "completed"
	ToolStageBefore        = "before"
	ToolStageAfter         = "after"
)

// Validate checks output_message: an ID, a known status, and text present
// (possibly empty) on completion.
func (m OutputMessage) Validate() error {
	if m.ID == "" {
		return missing("output_message.id")
	}
	switch m.Status {
	case OutputStatusInProgress:
	case OutputStatusCompleted:
		if m.Text == nil {
			return missing("output_message.text")
		}
	default:
		return invalid("output_message.status", "unknown status")
	}
	return nil
}

// Validate checks tool_call: ID, name, stage before/after, observation.
func (c ToolCall) Validate() error {
	switch {
	case c.ID == "":
		return missing("tool_call.id")
	case c.Name == "":
		return missing("tool_call.name")
	case c.Stage != ToolStageBefore && c.Stage != ToolStageAfter:
		return invalid("tool_call.stage", "must be before or after")
	}
	if o := c.Observation; o != nil {
		if o.Kind == "" {
			return missing("tool_call.observation.kind")
		}
		if o.Status == "" {
			return missing("tool_call.observation.status")
		}
		if o.Content != nil {
			if err := validateParts(o.Content, "tool_call.observation.content"); err != nil {
				return err
			}
		}
		if o.DurationMS != nil && *o.DurationMS < 0 {
			return invalid("tool_call.observation.duration_ms", "negative")
		}
	}
	return nil
}

// Validate checks a usage snapshot: no negative counts or cost.
func (u Usage) Validate() error { return u.validateAt("usage") }

func (u Usage) validateAt(f string) error {
	if t := u.Tokens; t != nil {
		if t.InputTokens < 0 || t.CachedInputTokens < 0 || t.OutputTokens < 0 ||
			t.ReasoningOutputTokens < 0 || t.TotalTokens < 0 {
			return invalid(f+".tokens", "negative count")
		}
	}
	if u.InputTokens != nil && *u.InputTokens < 0 {
		return invalid(f+".input_tokens", "negative")
	}
	if u.OutputTokens != nil && *u.OutputTokens < 0 {
		return invalid(f+".output_tokens", "negative")
	}
	if c := u.CostUSD; c != nil && (*c < 0 || math.IsNaN(*c) || math.IsInf(*c, 0)) {
		return invalid(f+".cost_usd", "must be a finite non-negative number")
	}
	return nil
}

// Validate checks the usage run event.
func (u UsageUpdate) Validate() error { return u.Usage.validateAt("usage") }

// Validate checks done: usage snapshot and completion time.
func (d Done) Validate() error { return d.validateAt("done") }

func (d Done) validateAt(f string) error {
	if d.SourceCompletedAtMS < 0 {
		return invalid(f+".source_completed_at_ms", "negative")
	}
	if d.Usage != nil {
		return d.Usage.validateAt(f + ".usage")
	}
	return nil
}

// Validate checks a function_call: IDs present.
func (c FunctionCall) Validate() error {
	switch {
	case c.CallID == "":
		return missing("function_call.call_id")
	case c.Name == "":
		return missing("function_call.name")
	case len(c.Arguments) == 0:
		return missing("function_call.arguments")
	}
	return nil
}

// Validate checks a function_result: delivery and call IDs, and a non-null
// content array whose parts are valid (`[]` is valid). The Runtime answers
// an invalid result with ack code invalid_result.
func (r FunctionResult) Validate() error {
	switch {
	case strings.TrimSpace(r.DeliveryID) == "":
		return missing("function_result.delivery_id")
	case r.CallID == "":
		return missing("function_result.call_id")
	}
	return validateParts(r.Content, "function_result.content")
}

// Validate accepts every decodable delta: the shared package sets no rule
// beyond the JSON shape (wire-reference §3.4).
func (Delta) Validate() error { return nil }

// Validate accepts every decodable thinking event (no shared rule).
func (Thinking) Validate() error { return nil }

// Validate accepts every prompt_cancel: an empty delivery ID asks for a
// cancel without receipt.
func (PromptCancel) Validate() error { return nil }

// Validate accepts every device_shutdown (the reason is free text).
func (DeviceShutdown) Validate() error { return nil }

// Validate accepts permission_cancel, which has no payload members.
func (PermissionCancel) Validate() error { return nil }
