package engine

import (
	"errors"

	"github.com/turnstile-sim/turnstile/wire"
)

// ErrInvalidDeclaration is wrapped by the panic of NewCatalog for an
// invalid static profile.
var ErrInvalidDeclaration = errors.New("engine: invalid profile declaration")

// Placement is an Environment placement a profile qualifies.
type Placement string

const (
	PlacementNone         Placement = "none"
	PlacementSelfHosted   Placement = "self_hosted"
	PlacementOpenAIHosted Placement = "openai_hosted"
)

// Placements lists every known placement.
var Placements = []Placement{PlacementNone, PlacementSelfHosted, PlacementOpenAIHosted}

// ValidationPolicy chooses how one family of public input is validated.
// The zero value is unspecified and invalid.
type ValidationPolicy uint8

const (
	ValidationUnspecified ValidationPolicy = iota
	// CommonValidationOnly: the common schema and admission checks
	// suffice; the matching callback must be nil.
	CommonValidationOnly
	// AdditionalValidation: the matching pure callback is required and
	// adds the Harness's own limits.
	AdditionalValidation
)

func (v ValidationPolicy) String() string {
	switch v {
	case CommonValidationOnly:
		return "common_validation_only"
	case AdditionalValidation:
		return "additional_validation"
	default:
		return "unspecified"
	}
}

// Capabilities are the public operations a profile qualifies. Every field
// must be decided explicitly.
type Capabilities struct {
	// WebSearchControl and TextVerbosity declare the controls the engine
	// honours; a declared control makes Core require the matching Runtime
	// capability of the selected device.
	WebSearchControl CapabilitySupport
	TextVerbosity    CapabilitySupport
	// StructuredOutput qualifies a json_schema output format.
	StructuredOutput CapabilitySupport
	// MessageImages qualifies image parts in initial and active inputs.
	MessageImages CapabilitySupport
	// FunctionTools qualifies public function tools; ToolSearch deferred
	// function discovery; FunctionResultImages images in function results.
	FunctionTools        CapabilitySupport
	ToolSearch           CapabilitySupport
	FunctionResultImages CapabilitySupport
	// ProgrammaticToolCallingDisable qualifies an Agent that disables
	// programmatic tool calling.
	ProgrammaticToolCallingDisable CapabilitySupport
	// Subagents qualifies multi_agent.enabled (subagent observation).
	Subagents CapabilitySupport
	// MCPRequired qualifies an MCP server marked required.
	MCPRequired CapabilitySupport
}

// CapabilitySupport is the shared tri-state value type. Reusing it does
// not let a Runtime's declaration grant service qualification.
type CapabilitySupport = wire.CapabilitySupport

// Field is one named capability of a profile.
type Field struct {
	Name  string
	Value CapabilitySupport
}

// Fields lists every capability with its field name, in declaration order.
func (c Capabilities) Fields() []Field {
	return []Field{
		{"WebSearchControl", c.WebSearchControl},
		{"TextVerbosity", c.TextVerbosity},
		{"StructuredOutput", c.StructuredOutput},
		{"MessageImages", c.MessageImages},
		{"FunctionTools", c.FunctionTools},
		{"ToolSearch", c.ToolSearch},
		{"FunctionResultImages", c.FunctionResultImages},
		{"ProgrammaticToolCallingDisable", c.ProgrammaticToolCallingDisable},
		{"Subagents", c.Subagents},
		{"MCPRequired", c.MCPRequired},
	}
}

// Profile is the service's qualification of one Harness kind. Callbacks
// are pure: they never query business data, decrypt credentials or
// control native processes.
type Profile struct {
	Kind  string // public kind; non-empty, no surrounding white space
	Label string // display label; non-empty

	Capabilities Capabilities
	Placements   []Placement // at least one, no duplicates
	MCPOrigins   []string    // non-nil; wire.OriginService / wire.OriginEnvironment
	MCPBearer    CapabilitySupport

	ConfigurationValidation ValidationPolicy
	ValidateConfiguration   func(Request) error
	ToolsValidation         ValidationPolicy
	ValidateTools           func([]wire.FunctionTool) error
	// FunctionResultValidation adds native result limits; the common
	// policy adds none.
	FunctionResultValidation ValidationPolicy
	ValidateFunctionResult   func(wire.FunctionResult) error
}

// clone returns a deep copy that shares nothing mutable with p.
func (p Profile) clone() Profile {
	p.Placements = append([]Placement(nil), p.Placements...)
	origins := make([]string, len(p.MCPOrigins))
	copy(origins, p.MCPOrigins)
	p.MCPOrigins = origins
	return p
}

// Supports reports whether the profile qualifies placement pl.
func (p Profile) Supports(pl Placement) bool {
	for _, q := range p.Placements {
		if q == pl {
			return true
		}
	}
	return false
}

// QualifiesOrigin reports whether origin is one of the profile's MCP origins.
func (p Profile) QualifiesOrigin(origin string) bool {
	for _, o := range p.MCPOrigins {
		if o == origin {
			return true
		}
	}
	return false
}
