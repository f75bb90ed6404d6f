package world

import (
	"github.com/turnstile-sim/turnstile/core/engine"
	"github.com/turnstile-sim/turnstile/wire"
)

// simulatedPolicy qualifies the simulated Harness kinds: every operation,
// placement and MCP origin, no control declared, common validation only,
// so that the drawn device declarations alone decide what is served. It
// is the simulator's own profile, named field by field; Core's production
// catalog never holds it.
func simulatedPolicy(kinds ...string) *engine.Policy {
	yes, no := wire.CapabilitySupported, wire.CapabilityUnsupported
	ps := make([]engine.Profile, len(kinds))
	for i, k := range kinds {
		ps[i] = engine.Profile{
			Kind:  k,
			Label: "simulated " + k,
			Capabilities: engine.Capabilities{
				WebSearchControl:               no,
				TextVerbosity:                  no,
				StructuredOutput:               yes,
				MessageImages:                  yes,
				FunctionTools:                  yes,
				ToolSearch:                     yes,
				FunctionResultImages:           yes,
				ProgrammaticToolCallingDisable: yes,
				Subagents:                      yes,
				MCPRequired:                    yes,
			},
			Placements:               []engine.Placement{engine.PlacementNone, engine.PlacementSelfHosted, engine.PlacementOpenAIHosted},
			MCPOrigins:               []string{wire.OriginService, wire.OriginEnvironment},
			MCPBearer:                yes,
			ConfigurationValidation:  engine.CommonValidationOnly,
			ValidateConfiguration:    nil,
			ToolsValidation:          engine.CommonValidationOnly,
			ValidateTools:            nil,
			FunctionResultValidation: engine.CommonValidationOnly,
			ValidateFunctionResult:   nil,
		}
	}
	p := engine.For(engine.NewCatalog(ps...))
	return &p
}
