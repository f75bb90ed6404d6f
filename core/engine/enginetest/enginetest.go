// Package enginetest holds test fixtures for core/engine. Its literals
// name every Profile and Capabilities field explicitly, and the engine
// package's completeness test fails when a new field is not named here,
// so adding a field forces a decision. It is never a production profile:
// Open qualifies test kinds (adaptertest, in-process scenario runners),
// and the turnstile binary does not link this package (a test of
// cmd/turnstile holds it; a real Core qualifies extra kinds only from an
// engine profile file, engine.ParseProfiles).
package enginetest

import (
	"errors"
	"strings"

	"github.com/turnstile-sim/turnstile/core/engine"
	"github.com/turnstile-sim/turnstile/wire"
)

// Refusal markers the fixture's pure callbacks refuse.
const (
	RefusedModel        = "refused-model"
	RefusedToolPrefix   = "refused_"
	RefusedResultMarker = "refused-result"
)

// Errors returned by the fixture's callbacks.
var (
	ErrModelRefused  = errors.New("model refused by the fixture")
	ErrToolRefused   = errors.New("tool refused by the fixture")
	ErrResultRefused = errors.New("result refused by the fixture")
)

// Full qualifies every operation, every placement and both MCP origins
// with bearer support, and selects additional validation with pure
// callbacks for configuration, tools and function results.
func Full(kind string) engine.Profile {
	yes := wire.CapabilitySupported
	return engine.Profile{
		Kind:  kind,
		Label: "fixture " + kind,
		Capabilities: engine.Capabilities{
			WebSearchControl:               yes,
			TextVerbosity:                  yes,
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
		ConfigurationValidation:  engine.AdditionalValidation,
		ValidateConfiguration:    refuseModel,
		ToolsValidation:          engine.AdditionalValidation,
		ValidateTools:            refuseTools,
		FunctionResultValidation: engine.AdditionalValidation,
		ValidateFunctionResult:   refuseResult,
	}
}

// TextOnly qualifies plain text Turns without an execution environment:
// no optional operation, no MCP origin, common validation only.
func TextOnly(kind string) engine.Profile {
	no := wire.CapabilityUnsupported
	return engine.Profile{
		Kind:  kind,
		Label: "fixture " + kind,
		Capabilities: engine.Capabilities{
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
		Placements:               []engine.Placement{engine.PlacementNone},
		MCPOrigins:               []string{},
		MCPBearer:                no,
		ConfigurationValidation:  engine.CommonValidationOnly,
		ValidateConfiguration:    nil,
		ToolsValidation:          engine.CommonValidationOnly,
		ValidateTools:            nil,
		FunctionResultValidation: engine.CommonValidationOnly,
		ValidateFunctionResult:   nil,
	}
}

func refuseModel(r engine.Request) error {
	if r.Model == RefusedModel {
		return ErrModelRefused
	}
	return nil
}

func refuseTools(tools []wire.FunctionTool) error {
	for _, t := range tools {
		if strings.HasPrefix(t.Name, RefusedToolPrefix) {
			return ErrToolRefused
		}
	}
	return nil
}

func refuseResult(r wire.FunctionResult) error {
	for _, c := range r.Content {
		if c.Text != nil && *c.Text == RefusedResultMarker {
			return ErrResultRefused
		}
	}
	return nil
}

// Open qualifies every operation, placement and MCP origin with common
// validation only, declaring the web search and verbosity controls as
// given: the profile of a test Harness whose Runtime declaration alone
// decides what a device serves.
func Open(kind string, webSearchControl, textVerbosity bool) engine.Profile {
	yes := wire.CapabilitySupported
	return engine.Profile{
		Kind:  kind,
		Label: "open fixture " + kind,
		Capabilities: engine.Capabilities{
			WebSearchControl:               wire.CapabilityFromBool(webSearchControl),
			TextVerbosity:                  wire.CapabilityFromBool(textVerbosity),
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

// OpenPolicy is the Policy over Open profiles (no control declared) for
// kinds.
func OpenPolicy(kinds ...string) *engine.Policy {
	ps := make([]engine.Profile, len(kinds))
	for i, k := range kinds {
		ps[i] = Open(k, false, false)
	}
	p := engine.For(engine.NewCatalog(ps...))
	return &p
}
