package wire

import (
	"errors"
	"fmt"
)

// CapabilitySupport is a tri-state capability decision. The zero value is
// "unspecified": no decision, invalid everywhere and impossible to encode.
type CapabilitySupport uint8

const (
	CapabilityUnspecified CapabilitySupport = iota
	CapabilitySupported
	CapabilityUnsupported
)

// CapabilityFromBool converts an explicit boolean decision.
func CapabilityFromBool(b bool) CapabilitySupport {
	if b {
		return CapabilitySupported
	}
	return CapabilityUnsupported
}

// IsSupported reports whether the capability is explicitly supported.
func (c CapabilitySupport) IsSupported() bool { return c == CapabilitySupported }

// Valid reports whether a decision was made.
func (c CapabilitySupport) Valid() bool {
	return c == CapabilitySupported || c == CapabilityUnsupported
}

func (c CapabilitySupport) String() string {
	switch c {
	case CapabilitySupported:
		return "supported"
	case CapabilityUnsupported:
		return "unsupported"
	default:
		return "unspecified"
	}
}

var errCapabilityUnspecified = errors.New("capability decision unspecified")

// MarshalJSON refuses the unspecified value.
func (c CapabilitySupport) MarshalJSON() ([]byte, error) {
	switch c {
	case CapabilitySupported:
		return []byte("true"), nil
	case CapabilityUnsupported:
		return []byte("false"), nil
	default:
		return nil, errCapabilityUnspecified
	}
}

// UnmarshalJSON accepts only the literals true and false.
func (c *CapabilitySupport) UnmarshalJSON(b []byte) error {
	switch string(trimSpace(b)) {
	case "true":
		*c = CapabilitySupported
	case "false":
		*c = CapabilityUnsupported
	default:
		return fmt.Errorf("%w: capability must be true or false", ErrInvalid)
	}
	return nil
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// AgentKindCapabilities is the complete capability declaration of one
// Harness kind (D era: 30 members, all required on the wire).
type AgentKindCapabilities struct {
	SubagentObservations           CapabilitySupport `json:"subagent_observations"`
	Streaming                      CapabilitySupport `json:"streaming"`
	Permissions                    CapabilitySupport `json:"permissions"`
	Usage                          CapabilitySupport `json:"usage"`
	Resume                         CapabilitySupport `json:"resume"`
	NativeSessionRecovery          CapabilitySupport `json:"native_session_recovery"`
	WorkspaceAuthoring             CapabilitySupport `json:"workspace_authoring"`
	Steering                       CapabilitySupport `json:"steering"`
	MessageItems                   CapabilitySupport `json:"message_items"`
	ToolObservations               CapabilitySupport `json:"tool_observations"`
	EnvironmentNone                CapabilitySupport `json:"environment_none"`
	LocalEnvironment               CapabilitySupport `json:"local_environment"`
	Preparation                    CapabilitySupport `json:"preparation"`
	WorkspaceReadPreparation       CapabilitySupport `json:"workspace_read_preparation"`
	WorkspaceOutputExport          CapabilitySupport `json:"workspace_output_export"`
	ProgrammaticToolCallingDisable CapabilitySupport `json:"programmatic_tool_calling_disable"`
	WebSearchControl               CapabilitySupport `json:"web_search_control"`
	ExecutionControls              CapabilitySupport `json:"execution_controls"`
	TextVerbosity                  CapabilitySupport `json:"text_verbosity"`
	StructuredOutput               CapabilitySupport `json:"structured_output"`
	ToolSearch                     CapabilitySupport `json:"tool_search"`
	MessageImages                  CapabilitySupport `json:"message_images"`
	FunctionResultImages           CapabilitySupport `json:"function_result_images"`
	SubagentControl                CapabilitySupport `json:"subagent_control"`
	DurableInputReceipts           CapabilitySupport `json:"durable_input_receipts"`
	DurableTurns                   CapabilitySupport `json:"durable_turns"`
	FunctionTools                  CapabilitySupport `json:"function_tools"`
	MCPHTTPTools                   CapabilitySupport `json:"mcp_http_tools"`
	MCPHTTPRequired                CapabilitySupport `json:"mcp_http_required"`
	MCPHTTPBearerAuth              CapabilitySupport `json:"mcp_http_bearer_auth"`
}

// CapabilityField names one member of AgentKindCapabilities and points at it.
type CapabilityField struct {
	Name  string // JSON member name
	Value *CapabilitySupport
}

// fieldArray lists every capability member in declaration order, as
// Fields does, in an array its caller may keep off the heap.
func (c *AgentKindCapabilities) fieldArray() [capabilityFields]CapabilityField {
	return [capabilityFields]CapabilityField{
		{"subagent_observations", &c.SubagentObservations},
		{"streaming", &c.Streaming},
		{"permissions", &c.Permissions},
		{"usage", &c.Usage},
		{"resume", &c.Resume},
		{"native_session_recovery", &c.NativeSessionRecovery},
		{"workspace_authoring", &c.WorkspaceAuthoring},
		{"steering", &c.Steering},
		{"message_items", &c.MessageItems},
		{"tool_observations", &c.ToolObservations},
		{"environment_none", &c.EnvironmentNone},
		{"local_environment", &c.LocalEnvironment},
		{"preparation", &c.Preparation},
		{"workspace_read_preparation", &c.WorkspaceReadPreparation},
		{"workspace_output_export", &c.WorkspaceOutputExport},
		{"programmatic_tool_calling_disable", &c.ProgrammaticToolCallingDisable},
		{"web_search_control", &c.WebSearchControl},
		{"execution_controls", &c.ExecutionControls},
		{"text_verbosity", &c.TextVerbosity},
		{"structured_output", &c.StructuredOutput},
		{"tool_search", &c.ToolSearch},
		{"message_images", &c.MessageImages},
		{"function_result_images", &c.FunctionResultImages},
		{"subagent_control", &c.SubagentControl},
		{"durable_input_receipts", &c.DurableInputReceipts},
		{"durable_turns", &c.DurableTurns},
		{"function_tools", &c.FunctionTools},
		{"mcp_http_tools", &c.MCPHTTPTools},
		{"mcp_http_required", &c.MCPHTTPRequired},
		{"mcp_http_bearer_auth", &c.MCPHTTPBearerAuth},
	}
}

// Validate fails when any member is unspecified. The error names the member.
func (c AgentKindCapabilities) Validate() error { return c.validateAt("capabilities") }

func (c AgentKindCapabilities) validateAt(path string) error {
	a := c.fieldArray()
	for i := range a {
		if !a[i].Value.Valid() {
			return fmt.Errorf("%w: %s.%s", ErrMissingField, path, capabilityName(i))
		}
	}
	return nil
}

// AllCapabilities returns a declaration with every member set to s.
func AllCapabilities(s CapabilitySupport) AgentKindCapabilities {
	var c AgentKindCapabilities
	for _, f := range c.Fields() {
		*f.Value = s
	}
	return c
}
