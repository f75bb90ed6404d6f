package world

import (
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/sim/check"
)

// sessionSpec is the configuration the workload asked Core to create a
// Session with, as the frame oracles want it: the request's fields and
// the engine profile the world configured for the kind. Nothing here is
// read back from Core.
func (u *universe) sessionSpec(a core.AgentConfig) check.SessionSpec {
	p := u.coreCfg.Policy.Controls(a.Kind)
	return check.SessionSpec{
		Kind: a.Kind, Model: a.Model, SystemPrompt: a.SystemPrompt, ModelProvider: a.ModelProvider,
		HarnessConfig: a.HarnessConfig, TextVerbosity: a.TextVerbosity,
		Environment: string(a.Environment), EnvironmentID: a.EnvironmentID,
		OutputSchema: a.OutputSchema, MultiAgent: a.MultiAgent, FunctionTools: a.FunctionTools,
		ToolSearch: a.ToolSearch, DisableProgrammaticToolCalling: a.DisableProgrammaticToolCalling,
		FunctionResultImages: a.FunctionResultImages, MCPServers: a.MCPServers,
		ProfileWebSearchControl: p.WebSearchControl, ProfileTextVerbosity: p.TextVerbosity,
	}
}
