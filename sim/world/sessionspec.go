package world

import (
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/sim/check"
)

// sessionSpec is the configuration the workload asked Core to create a
// Session with, as the frame oracles want it: the request's fields and
// the controls the engine profile the world configured declares for the
// kind (its fields, not the policy's answer). Nothing here is
// read back from Core.
func (u *universe) sessionSpec(a core.AgentConfig) check.SessionSpec {
	webSearch, verbosity := u.controlsOf(a.Kind)
	return check.SessionSpec{
		Kind: a.Kind, Model: a.Model, SystemPrompt: a.SystemPrompt, ModelProvider: a.ModelProvider,
		HarnessConfig: a.HarnessConfig, TextVerbosity: a.TextVerbosity,
		Environment: string(a.Environment), EnvironmentID: a.EnvironmentID,
		OutputSchema: a.OutputSchema, MultiAgent: a.MultiAgent, FunctionTools: a.FunctionTools,
		ToolSearch: a.ToolSearch, DisableProgrammaticToolCalling: a.DisableProgrammaticToolCalling,
		FunctionResultImages: a.FunctionResultImages, MCPServers: a.MCPServers,
		ProfileWebSearchControl: webSearch, ProfileTextVerbosity: verbosity,
	}
}
