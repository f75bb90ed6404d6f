package wire

import (
	"encoding/json"
	"strings"
)

// Type strings of wire-reference §3.13: present in the documented era but
// outside the documents' message families.
const (
	TypePromptRequest     = "prompt_request"
	TypeSubagentIdentity  = "subagent_identity"
	TypeSubagentLifecycle = "subagent_lifecycle"
	TypeSubagentTurn      = "subagent_turn"
	TypeSubagentItem      = "subagent_item"
	TypeAuthoringRequest  = "authoring_request"
	TypeAuthoringResponse = "authoring_response"
)

// PromptRequest is the legacy one-shot execution (C→R, id = Run ID): the
// execution configuration with run_id and input set. Superseded by
// execution_prepare / execution_start.
type PromptRequest struct {
	ExecutionConfiguration
}

// SubagentIdentity (R→C, id = Run ID) names a native sub-agent.
type SubagentIdentity struct {
	NativeID        string  `json:"native_id"`
	ParentNativeID  string  `json:"parent_native_id,omitempty"`
	NativeCreatedAt int64   `json:"native_created_at,omitempty"`
	ParentTurnID    string  `json:"parent_turn_id,omitempty"`
	SourceItemID    string  `json:"source_item_id,omitempty"`
	Name            *string `json:"name" wire:"nullable"`
	Instructions    *string `json:"instructions" wire:"nullable"`
}

// SubagentLifecycle (R→C, id = Run ID) reports a sub-agent status change.
type SubagentLifecycle struct {
	NativeID     string `json:"native_id"`
	EffectID     string `json:"effect_id,omitempty"`
	Status       string `json:"status"`
	OccurredAtMS int64  `json:"occurred_at_ms,omitempty"`
}

// SubagentTurn (R→C, id = Run ID) reports one turn of a sub-agent.
type SubagentTurn struct {
	NativeID      string `json:"native_id"`
	TurnID        string `json:"turn_id"`
	Status        string `json:"status"`
	CreatedAtMS   int64  `json:"created_at_ms,omitempty"`
	StartedAtMS   *int64 `json:"started_at_ms" wire:"nullable"`
	CompletedAtMS *int64 `json:"completed_at_ms" wire:"nullable"`
	Usage         *Usage `json:"usage" wire:"nullable"`
}

// SubagentItem (R→C, id = Run ID) carries a raw item snapshot.
type SubagentItem struct {
	NativeID string          `json:"native_id"`
	TurnID   string          `json:"turn_id"`
	ItemID   string          `json:"item_id"`
	Position int32           `json:"position"`
	Kind     string          `json:"kind"`
	Payload  json.RawMessage `json:"payload"`
}

// Authoring operations.
const (
	AuthoringContext           = "context"
	AuthoringSkillList         = "skill.list"
	AuthoringSkillRead         = "skill.read"
	AuthoringSkillCreate       = "skill.create"
	AuthoringSkillUpdate       = "skill.update"
	AuthoringInstructionsRead  = "instructions.read"
	AuthoringInstructionsWrite = "instructions.write"
)

// AuthoringOperations lists the authoring operations.
var AuthoringOperations = []string{
	AuthoringContext, AuthoringSkillList, AuthoringSkillRead, AuthoringSkillCreate,
	AuthoringSkillUpdate, AuthoringInstructionsRead, AuthoringInstructionsWrite,
}

// AuthoringRequest (R→C; direction inferred) asks Core for workspace
// authoring data.
type AuthoringRequest struct {
	RequestID    string `json:"request_id,omitempty"`
	Operation    string `json:"operation"`
	CapabilityID string `json:"capability_id,omitempty"`
	Content      string `json:"content,omitempty"`
}

// AuthoringResponse (C→R; direction inferred) answers an AuthoringRequest.
type AuthoringResponse struct {
	RequestID string          `json:"request_id,omitempty"`
	Data      json.RawMessage `json:"data,omitempty"`
	Error     string          `json:"error,omitempty"`
}

func (PromptRequest) MessageType() string     { return TypePromptRequest }
func (SubagentIdentity) MessageType() string  { return TypeSubagentIdentity }
func (SubagentLifecycle) MessageType() string { return TypeSubagentLifecycle }
func (SubagentTurn) MessageType() string      { return TypeSubagentTurn }
func (SubagentItem) MessageType() string      { return TypeSubagentItem }
func (AuthoringRequest) MessageType() string  { return TypeAuthoringRequest }
func (AuthoringResponse) MessageType() string { return TypeAuthoringResponse }

func init() {
	register[PromptRequest](false)
	register[SubagentIdentity](false)
	register[SubagentLifecycle](false)
	register[SubagentTurn](false)
	register[SubagentItem](false)
	register[AuthoringRequest](false)
	register[AuthoringResponse](false)
}

// Validate checks prompt_request: a non-blank run_id, a valid input and the
// configuration rules shared with execution_prepare.
func (r PromptRequest) Validate() error {
	const f = "prompt_request"
	if strings.TrimSpace(r.RunID) == "" {
		return missing(f + ".run_id")
	}
	if r.Input == nil {
		return missing(f + ".input")
	}
	if err := r.Input.validateAt(f + ".input"); err != nil {
		return err
	}
	return r.validateCommon(f)
}

// Validate checks subagent_identity.
func (s SubagentIdentity) Validate() error {
	if s.NativeID == "" {
		return missing("subagent_identity.native_id")
	}
	return nil
}

// Validate checks subagent_lifecycle.
func (s SubagentLifecycle) Validate() error {
	switch {
	case s.NativeID == "":
		return missing("subagent_lifecycle.native_id")
	case s.Status == "":
		return missing("subagent_lifecycle.status")
	}
	return nil
}

// Validate checks subagent_turn.
func (s SubagentTurn) Validate() error {
	const f = "subagent_turn"
	switch {
	case s.NativeID == "":
		return missing(f + ".native_id")
	case s.TurnID == "":
		return missing(f + ".turn_id")
	case s.Status == "":
		return missing(f + ".status")
	}
	if s.Usage != nil {
		return s.Usage.validateAt(f + ".usage")
	}
	return nil
}

// Validate checks subagent_item.
func (s SubagentItem) Validate() error {
	const f = "subagent_item"
	switch {
	case s.NativeID == "":
		return missing(f + ".native_id")
	case s.TurnID == "":
		return missing(f + ".turn_id")
	case s.ItemID == "":
		return missing(f + ".item_id")
	case s.Kind == "":
		return missing(f + ".kind")
	case s.Position < 0:
		return invalid(f+".position", "negative")
	case len(s.Payload) == 0:
		return missing(f + ".payload")
	}
	return nil
}

// Validate checks authoring_request: a known operation, at most 1 MiB.
func (r AuthoringRequest) Validate() error {
	if !oneOf(r.Operation, AuthoringOperations...) {
		return invalid("authoring_request.operation", "unknown operation")
	}
	if n := encodedLen(r); n > AuthoringBytesMax {
		return tooLarge("authoring_request", n, AuthoringBytesMax)
	}
	return nil
}

// Validate checks authoring_response: data or error, not both; at most 1 MiB.
func (r AuthoringResponse) Validate() error {
	if len(r.Data) > 0 && r.Error != "" {
		return invalid("authoring_response.error", "data and error are exclusive")
	}
	if n := encodedLen(r); n > AuthoringBytesMax {
		return tooLarge("authoring_response", n, AuthoringBytesMax)
	}
	return nil
}
