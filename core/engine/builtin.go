package engine

import "github.com/turnstile-sim/turnstile/wire"

// builtin is published once, at package initialisation; it is immutable.
var builtin = NewCatalog(SyntheticProfile())

// Builtin returns the built-in catalog: the profiles of the Harnesses
// this repository ships. The zero Policy reads it.
func Builtin() *Catalog { return builtin }

// SyntheticProfile qualifies the controlled text-only Harness
// (adapters/synthetic): text turns on every placement, no optional public
// operation, no MCP origin.
func SyntheticProfile() Profile {
	no := wire.CapabilityUnsupported
	return Profile{
		Kind:  "synthetic",
		Label: "Synthetic (controlled text-only Harness)",
		Capabilities: Capabilities{
			WebSearchControl:               no,
			TextVerbosity:                  no,
			StructuredOutput:               no,
			MessageImages:                  no,
			FunctionTools:                  no,
			ToolSearch:                     no,
			FunctionResultImages:           no,
			ProgrammaticToolCallingDisable: no,
			Subagents:                      no,
			MCPRequired:                    no,
		},
		Placements:               []Placement{PlacementNone, PlacementSelfHosted, PlacementOpenAIHosted},
		MCPOrigins:               []string{},
		MCPBearer:                no,
		ConfigurationValidation:  CommonValidationOnly,
		ToolsValidation:          CommonValidationOnly,
		FunctionResultValidation: CommonValidationOnly,
	}
}
